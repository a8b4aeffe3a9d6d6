// SPDX-License-Identifier: MIT
// File: contracts/broadphase/persistent.cppm Module: lwc.contracts.broadphase:persistent
//
// The module unit of lwc.contracts.broadphase:persistent: it exports what
// contracts/lwc/contracts/broadphase/persistent.h declares (one source, two modes: modules/lwc/config.h).
// Only the global module fragment's includes, the imports and that header belong here.
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
export module lwc.contracts.broadphase:persistent;

import lwc.decompose;
import lwc.broadphase;
import :batch;

#include "lwc/contracts/broadphase/persistent.h"
