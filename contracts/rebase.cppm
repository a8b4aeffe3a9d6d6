// SPDX-License-Identifier: MIT
// File: contracts/rebase.cppm          Module: lwc.contracts.rebase
//
// The module unit of lwc.contracts.rebase: it exports what contracts/lwc/contracts/rebase.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that
// header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
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
export module lwc.contracts.rebase;

export import lwc.rebase;  // the signatures name WorldPosition, RenderPoint, CellIndex
import lwc.contracts.internal.wide;

#include "lwc/contracts/rebase.h"
