// SPDX-License-Identifier: MIT
// File: contracts/commit.cppm          Module: lwc.contracts.commit
//
// The module unit of lwc.contracts.commit: it exports what contracts/lwc/contracts/commit.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that
// header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
export module lwc.contracts.commit;

import lwc.decompose;
export import lwc.commit;  // the signatures name ChunkRun, Point2
import lwc.contracts.decompose;

#include "lwc/contracts/commit.h"
