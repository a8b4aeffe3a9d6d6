// SPDX-License-Identifier: MIT
// File: modules/rebase/wire.cppm       Module: lwc.rebase:wire
//
// The module unit of lwc.rebase:wire: it exports what modules/lwc/rebase/wire.h declares (one source, two
// modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that header
// belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
export module lwc.rebase:wire;

import lwc.decompose;
import :spec;

#include "lwc/rebase/wire.h"
