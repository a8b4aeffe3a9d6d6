// SPDX-License-Identifier: MIT
// File: modules/broadphase/sort.cppm    Module: lwc.broadphase:sort
//
// The module unit of lwc.broadphase:sort: it exports what modules/lwc/broadphase/sort.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>
export module lwc.broadphase:sort;

import :cells;
import :tasks;

#include "lwc/broadphase/sort.h"
