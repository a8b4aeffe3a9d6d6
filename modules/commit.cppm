// SPDX-License-Identifier: MIT
// File: modules/commit.cppm            Module: lwc.commit
//
// The module unit of lwc.commit: it exports what modules/lwc/commit.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <atomic>
#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lwc/kernels.h"
export module lwc.commit;

// The API speaks in ChunkSize, Point2 and RunBudget: importing lwc.commit is enough to use it.
export import lwc.budget;
export import lwc.decompose;

#include "lwc/commit.h"
