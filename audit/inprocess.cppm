// SPDX-License-Identifier: MIT
// File: audit/inprocess.cppm            Module: lwc.audit.inprocess
//
// The module unit of lwc.audit.inprocess: it exports what audit/lwc/audit/inprocess.h declares (one source,
// two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that header
// belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
export module lwc.audit.inprocess;

export import lwc.decompose;
export import lwc.contracts.cover;  // CoverAnswer: what an engine's cover answered, in raw form

#include "lwc/audit/inprocess.h"
