// SPDX-License-Identifier: MIT
// File: modules/lwc.cppm                Module: lwc
//
// The umbrella: `import lwc;` brings every contract, as `#include <lwc/lwc.h>` does in the header build
// (one source, two modes: modules/lwc/config.h). Only `export import` lines belong here.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
export module lwc;

export import lwc.budget;
export import lwc.decompose;
export import lwc.cover;
export import lwc.rebase;
export import lwc.broadphase;
export import lwc.commit;

#include "lwc/lwc.h"
