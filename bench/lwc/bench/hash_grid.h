// SPDX-License-Identifier: MIT
// File: bench/lwc/bench/hash_grid.h
//
// The textbook spatial hash baseline (bench/hash_grid.cppm, not part of lwc) as a header, for the unit
// tests built in the header build (tests/header_build/). Not installed.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../../hash_grid.cppm"
