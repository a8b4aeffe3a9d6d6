// SPDX-License-Identifier: MIT
// File: modules/lwc/cover.h
//
// #include <lwc/cover.h>: chunk covers of ranges and boxes, counts, enumeration (docs/cover.md).
// The same source as `import lwc.cover;`, as a header for builds without C++20 modules
// (modules/lwc/config.h). The module unit it includes is installed beside it, in ../.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../cover.cppm"
