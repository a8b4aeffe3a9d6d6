// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase.h
//
// #include <lwc/rebase.h>: world positions, the origin coordinator (docs/rebase.md).
// The same source as `import lwc.rebase;`, as a header for builds without C++20 modules
// (modules/lwc/config.h). The module unit it includes is installed beside it, in ../.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../rebase.cppm"
