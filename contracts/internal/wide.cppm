// SPDX-License-Identifier: MIT
// File: contracts/internal/wide.cppm   Module: lwc.contracts.internal.wide
//
// The module unit of lwc.contracts.internal.wide: it exports what contracts/lwc/contracts/internal/wide.h
// declares (one source, two modes: modules/lwc/config.h). Only the global module fragment's includes, the
// imports and that header belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>

#include "absl/numeric/int128.h"
export module lwc.contracts.internal.wide;

#include "lwc/contracts/internal/wide.h"
