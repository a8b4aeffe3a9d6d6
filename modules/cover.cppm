// SPDX-License-Identifier: MIT
// File: modules/cover.cppm             Module: lwc.cover
//
// The module unit of lwc.cover: it exports what modules/lwc/cover.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "lwc/check.h"
#include "lwc/kernels.h"
#include "lwc/walk.h"
export module lwc.cover;

// The API speaks in ChunkSize, ChunkBudget, Point2 and Point3: importing lwc.cover is enough to use it.
export import lwc.budget;
export import lwc.decompose;

#include "lwc/cover.h"
