// SPDX-License-Identifier: MIT
// File: modules/lwc/commit.h
//
// #include <lwc/commit.h>: dirty-chunk runs and the committer (docs/commit.md).
// The same source as `import lwc.commit;`, as a header for builds without C++20 modules
// (modules/lwc/config.h). The module unit it includes is installed beside it, in ../.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "../commit.cppm"
