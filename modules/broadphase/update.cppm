// SPDX-License-Identifier: MIT
// File: modules/broadphase/update.cppm  Module: lwc.broadphase:update
//
// The module unit of lwc.broadphase:update: it exports what modules/lwc/broadphase/update.h declares (one
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

#include "absl/container/inlined_vector.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:update;

import :box;
import :place;
import :cells;
import :events;
import :sort;
import :table;

#include "lwc/broadphase/update.h"
