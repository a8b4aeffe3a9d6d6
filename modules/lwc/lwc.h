// SPDX-License-Identifier: MIT
// File: modules/lwc/lwc.h
//
// #include <lwc/lwc.h>: every contract, as `import lwc;` brings them (modules/lwc.cppm), for builds
// without C++20 modules (modules/lwc/config.h). Needs only the include directory and abseil: the
// CMake target lwc::headers.
#ifndef LWC_LWC_H_
#define LWC_LWC_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // the umbrella module unit imports these instead (modules/lwc.cppm)
#include "lwc/budget.h"
#include "lwc/decompose.h"
#include "lwc/cover.h"
#include "lwc/rebase.h"
#include "lwc/broadphase.h"
#include "lwc/commit.h"
#endif

#endif  // LWC_LWC_H_
