// SPDX-License-Identifier: MIT
// File: contracts/broadphase.cppm       Module: lwc.contracts.broadphase
//
// Executable B- and E-clauses (docs/broadphase.md), split as modules/broadphase is:
//   :batch       (contracts/broadphase/batch.cppm)       brute force, the outcome oracle, the B checkers;
//   :persistent  (contracts/broadphase/persistent.cppm)  the persistent model, its checkers and judge.
// `import lwc.contracts.broadphase;` brings both; the header contracts/lwc/contracts/broadphase.h is the
// same in the header build (one source, two modes: modules/lwc/config.h).
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
export module lwc.contracts.broadphase;

export import :batch;
export import :persistent;

#include "lwc/contracts/broadphase.h"
