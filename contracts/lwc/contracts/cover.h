// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/cover.h
//
// #include <lwc/contracts/cover.h>: the checkers and oracles of lwc.cover, the same source as
// `import lwc.contracts.cover;`, as a header for builds without C++20 modules (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../cover.cppm"
