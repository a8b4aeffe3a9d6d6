// SPDX-License-Identifier: MIT
// File: modules/broadphase/place.cppm   Module: lwc.broadphase:place
//
// The module unit of lwc.broadphase:place: it exports what modules/lwc/broadphase/place.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
#include "lwc/kernels.h"
export module lwc.broadphase:place;

export import lwc.budget;
import lwc.decompose;
import :box;

#include "lwc/broadphase/place.h"
