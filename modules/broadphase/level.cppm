// SPDX-License-Identifier: MIT
// File: modules/broadphase/level.cppm   Module: lwc.broadphase:level
//
// The module unit of lwc.broadphase:level: it exports what modules/lwc/broadphase/level.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:level;

import lwc.decompose;
import :box;
import :place;
import :cells;
import :sort;
import :tasks;

#include "lwc/broadphase/level.h"
