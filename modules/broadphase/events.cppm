// SPDX-License-Identifier: MIT
// File: modules/broadphase/events.cppm  Module: lwc.broadphase:events
//
// The module unit of lwc.broadphase:events: it exports what modules/lwc/broadphase/events.h declares (one
// source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the imports and
// that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lwc/exact_fp.h"
export module lwc.broadphase:events;

import :box;

#include "lwc/broadphase/events.h"
