// SPDX-License-Identifier: MIT
// File: modules/broadphase.cppm         Module: lwc.broadphase
//
// The module unit of lwc.broadphase: it exports its rooms, the partitions below, each the module unit of
// a header in modules/lwc/broadphase/ (one source, two modes: modules/lwc/config.h); modules/lwc/broadphase.h
// says what each room holds.
module;
#define LWC_MODULE_UNIT 1
#include "lwc/config.h"
export module lwc.broadphase;

// The API speaks in CellSize (lwc.decompose) and its budgets (lwc.budget): importing lwc.broadphase is enough.
export import lwc.budget;
export import lwc.decompose;
export import :box;
export import :place;
export import :cells;
export import :sort;
export import :tasks;
export import :level;
export import :batch;
export import :grid;
export import :events;
export import :table;
export import :update;
export import :persistent;

#include "lwc/broadphase.h"
