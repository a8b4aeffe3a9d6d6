// SPDX-License-Identifier: MIT
// File: contracts/cover.cppm           Module: lwc.contracts.cover
//
// The module unit of lwc.contracts.cover: it exports what contracts/lwc/contracts/cover.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that
// header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
export module lwc.contracts.cover;

export import lwc.cover;  // the signatures name ChunkSpan, ChunkBox2, Point2

#include "lwc/contracts/cover.h"
