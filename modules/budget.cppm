// SPDX-License-Identifier: MIT
// File: modules/budget.cppm            Module: lwc.budget
//
// The module unit of lwc.budget: it exports what modules/lwc/budget.h declares (one source, two modes:
// modules/lwc/config.h). Only the global module fragment's includes, the imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <limits>
#include <ostream>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
export module lwc.budget;

#include "lwc/budget.h"
