// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/broadphase.h
//
// Executable B- and E-clauses (docs/broadphase.md), split as modules/broadphase is:
//   batch.h       brute force, the outcome oracle, the B checkers;
//   persistent.h  the persistent model, its checkers and judge.
// `#include <lwc/contracts/broadphase.h>` brings both without module support; the module unit
// contracts/broadphase.cppm re-exports its partitions as `import lwc.contracts.broadphase;`.
#ifndef LWC_CONTRACTS_BROADPHASE_H_
#define LWC_CONTRACTS_BROADPHASE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // a module unit imports these instead (contracts/broadphase.cppm)
#include "lwc/contracts/broadphase/batch.h"
#include "lwc/contracts/broadphase/persistent.h"
#endif

#endif  // LWC_CONTRACTS_BROADPHASE_H_
