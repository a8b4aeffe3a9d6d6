// SPDX-License-Identifier: MIT
// File: modules/broadphase/box.cppm     Module: lwc.broadphase:box
//
// The module unit of lwc.broadphase:box: it exports what modules/lwc/broadphase/box.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <array>
#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:box;

#include "lwc/broadphase/box.h"
