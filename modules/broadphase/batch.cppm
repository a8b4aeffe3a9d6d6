// SPDX-License-Identifier: MIT
// File: modules/broadphase/batch.cppm   Module: lwc.broadphase:batch
//
// The module unit of lwc.broadphase:batch: it exports what modules/lwc/broadphase/batch.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <atomic>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:batch;

import lwc.decompose;
import :box;
import :place;
import :cells;
import :level;
import :sort;
import :tasks;

#include "lwc/broadphase/batch.h"
