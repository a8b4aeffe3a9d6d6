// SPDX-License-Identifier: MIT
// File: modules/broadphase/table.cppm   Module: lwc.broadphase:table
//
// The module unit of lwc.broadphase:table: it exports what modules/lwc/broadphase/table.h declares (one
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
#include "lwc/check.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:table;

import lwc.decompose;
import :box;
import :place;
import :cells;
import :sort;

#include "lwc/broadphase/table.h"
