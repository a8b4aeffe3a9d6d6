// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase.h
//
// #include <lwc/broadphase.h>: batch and persistent broad phase (docs/broadphase.md).
// The same source as `import lwc.broadphase;`, as a header for builds without C++20 modules
// (modules/lwc/config.h). The module unit it includes is installed beside it, in ../.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../broadphase.cppm"
