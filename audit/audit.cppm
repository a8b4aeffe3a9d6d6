// SPDX-License-Identifier: MIT
// File: audit/audit.cppm                Module: lwc.contracts.audit
//
// The module unit of lwc.contracts.audit: it exports what audit/lwc/contracts/audit.h declares (one source,
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
export module lwc.contracts.audit;

#include "lwc/contracts/audit.h"
