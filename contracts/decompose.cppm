// SPDX-License-Identifier: MIT
// File: contracts/decompose.cppm       Module: lwc.contracts.decompose
//
// The module unit of lwc.contracts.decompose: it exports what contracts/lwc/contracts/decompose.h declares
// (one source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
export module lwc.contracts.decompose;

export import lwc.decompose;  // the signatures name ChunkPoint, Point2, Point3

#include "lwc/contracts/decompose.h"
