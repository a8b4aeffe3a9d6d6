// SPDX-License-Identifier: MIT
// File: modules/broadphase/cells.cppm   Module: lwc.broadphase:cells
//
// The module unit of lwc.broadphase:cells: it exports what modules/lwc/broadphase/cells.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

#include "lwc/exact_fp.h"
#include "lwc/walk.h"
export module lwc.broadphase:cells;

import :box;

#include "lwc/broadphase/cells.h"
