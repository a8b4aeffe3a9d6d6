// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/commit.h
//
// #include <lwc/contracts/commit.h>: the checkers and oracles of lwc.commit, the same source as
// `import lwc.contracts.commit;`, as a header for builds without C++20 modules (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../commit.cppm"
