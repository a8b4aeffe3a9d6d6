// SPDX-License-Identifier: MIT
// File: modules/decompose.cppm         Module: lwc.decompose
//
// The module unit of lwc.decompose: it exports what modules/lwc/decompose.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <concepts>
#include <limits>
#include <ostream>
#include <span>
#include <type_traits>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
#include "lwc/kernels.h"
export module lwc.decompose;

#include "lwc/decompose.h"
