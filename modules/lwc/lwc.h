// SPDX-License-Identifier: MIT
// File: modules/lwc/lwc.h
//
// #include <lwc/lwc.h>: every contract, as `import lwc;` brings them (modules/lwc.cppm), for builds
// without C++20 modules (modules/lwc/config.h). Needs only the include directory and abseil: the
// CMake target lwc::headers.
#pragma once
#ifndef LWC_HEADER_BUILD
#define LWC_HEADER_BUILD 1
#endif
#include "lwc/decompose.h"
#include "lwc/cover.h"
#include "lwc/rebase.h"
#include "lwc/broadphase.h"
#include "lwc/commit.h"
