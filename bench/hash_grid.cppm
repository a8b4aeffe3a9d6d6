// SPDX-License-Identifier: MIT
// File: bench/hash_grid.cppm           Module: lwc.bench.hash_grid
//
// The module unit of lwc.bench.hash_grid: it exports what bench/lwc/bench/hash_grid.h declares (one source,
// two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that header
// belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
export module lwc.bench.hash_grid;

import lwc.broadphase;

#include "lwc/bench/hash_grid.h"
