// SPDX-License-Identifier: MIT
// File: contracts/broadphase.cppm       Module: lwc.contracts.broadphase
//
// Executable B- and E-clauses (docs/broadphase.md), split as modules/broadphase is:
//   :batch       (contracts/broadphase/batch.cppm)       brute force, the outcome oracle, the B checkers;
//   :persistent  (contracts/broadphase/persistent.cppm)  the persistent model, its checkers and judge.
// `import lwc.contracts.broadphase;` brings both. Only `export import` lines belong here.
#ifndef LWC_HEADER_BUILD
export module lwc.contracts.broadphase;

export import :batch;
export import :persistent;
#else
#include "lwc/contracts/broadphase/batch.h"
#include "lwc/contracts/broadphase/persistent.h"
#endif
