// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/decompose.h
//
// #include <lwc/contracts/decompose.h>: the checkers and oracles of lwc.decompose, the same source as
// `import lwc.contracts.decompose;`, as a header for builds without C++20 modules (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../decompose.cppm"
