// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/rebase.h
//
// #include <lwc/contracts/rebase.h>: the checkers and oracles of lwc.rebase, the same source as
// `import lwc.contracts.rebase;`, as a header for builds without C++20 modules (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../rebase.cppm"
