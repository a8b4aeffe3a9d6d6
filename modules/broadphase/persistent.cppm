// SPDX-License-Identifier: MIT
// File: modules/broadphase/persistent.cppm Module: lwc.broadphase:persistent
//
// The module unit of lwc.broadphase:persistent: it exports what modules/lwc/broadphase/persistent.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:persistent;

import lwc.decompose;
import :box;
import :place;
import :cells;
import :events;
import :table;
import :tasks;
import :update;

#include "lwc/broadphase/persistent.h"
