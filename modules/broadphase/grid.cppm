// SPDX-License-Identifier: MIT
// File: modules/broadphase/grid.cppm    Module: lwc.broadphase:grid
//
// The module unit of lwc.broadphase:grid: it exports what modules/lwc/broadphase/grid.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
export module lwc.broadphase:grid;

import :batch;
import :box;
import :place;
import :cells;
import :level;
import :tasks;

#include "lwc/broadphase/grid.h"
