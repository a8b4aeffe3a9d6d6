// SPDX-License-Identifier: MIT
// File: audit/inprocess/audit.cppm     Module: lwc.audit
//
// The module unit of lwc.audit: it exports what audit/inprocess/lwc/audit.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
export module lwc.audit;

export import lwc.decompose;
export import lwc.contracts.cover;  // CoverAnswer: what an engine's cover answered, in raw form

#include "lwc/audit.h"
