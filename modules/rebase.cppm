// SPDX-License-Identifier: MIT
// File: modules/rebase.cppm            Module: lwc.rebase
//
// The module unit of lwc.rebase: it exports what modules/lwc/rebase.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
#include "lwc/walk.h"
export module lwc.rebase;

// The API speaks in ChunkSize (WorldGrid::create): importing lwc.rebase is enough to use it.
export import lwc.decompose;
// The vocabulary (positions, render points, plans, tickets, view ids) and the wire format.
export import :spec;
export import :wire;

#include "lwc/rebase.h"
