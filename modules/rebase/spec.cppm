// SPDX-License-Identifier: MIT
// File: modules/rebase/spec.cppm       Module: lwc.rebase:spec
//
// The module unit of lwc.rebase:spec: it exports what modules/lwc/rebase/spec.h declares (one source, two
// modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and that header
// belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <ostream>
export module lwc.rebase:spec;

#include "lwc/rebase/spec.h"
