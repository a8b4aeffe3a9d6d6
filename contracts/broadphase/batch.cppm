// SPDX-License-Identifier: MIT
// File: contracts/broadphase/batch.cppm Module: lwc.contracts.broadphase:batch
//
// The module unit of lwc.contracts.broadphase:batch: it exports what
// contracts/lwc/contracts/broadphase/batch.h declares (one source, two modes: modules/lwc/config.h). Only the
// global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
export module lwc.contracts.broadphase:batch;

import lwc.decompose;
export import lwc.broadphase;  // the signatures name Box, Pair, GridConfig, Placement
import lwc.contracts.decompose;

#include "lwc/contracts/broadphase/batch.h"
