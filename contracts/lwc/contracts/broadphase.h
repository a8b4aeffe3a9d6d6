// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase.h
//
// #include <lwc/contracts/broadphase.h>: the checkers and oracles of lwc.broadphase, the same source as
// `import lwc.contracts.broadphase;`, as a header for builds without C++20 modules (modules/lwc/config.h).
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../broadphase.cppm"
