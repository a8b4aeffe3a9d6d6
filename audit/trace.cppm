// SPDX-License-Identifier: MIT
// File: audit/trace.cppm                Module: lwc.audit.trace
//
// The module unit of lwc.audit.trace: it exports what audit/lwc/audit/trace.h declares (one source,
// two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that header
// belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
export module lwc.audit.trace;

#include "lwc/audit/trace.h"
