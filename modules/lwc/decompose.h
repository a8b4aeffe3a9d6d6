// SPDX-License-Identifier: MIT
// File: modules/lwc/decompose.h
//
// #include <lwc/decompose.h>: chunk decomposition and cell quantisation (docs/decompose.md).
// The same source as `import lwc.decompose;`, as a header for builds without C++20 modules
// (modules/lwc/config.h). The module unit it includes is installed beside it, in ../.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../decompose.cppm"
