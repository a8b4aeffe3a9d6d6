// SPDX-License-Identifier: MIT
// File: modules/broadphase.cppm         Module: lwc.broadphase
//
// Broad phase on a uniform grid: every overlapping pair of closed axis-aligned boxes, each exactly once,
// in canonical order, without a global pair set; and a persistent grid of moving boxes with exactly-once
// contact events. The primary unit only exports its rooms, in the order of a box's way:
//   :box         a box as the caller holds it, validated (B6, B13), and the one overlap predicate
//   :place       the config, and a box placed and quantised once, batch or one by one (B6-B8, B11)
//   :cells       its cells, and the reference-cell pairing kernel (B3, B9)
//   :sort        the radix sorts (B4)
//   :tasks       the caller's job system, a thread pool, the shared pair budget, the clock (B7, B15)
//   :level       one level of the batch grid: registration, pairing, probing (B1-B5, B9-B11)
//   :batch       find_pairs and its forms (B1-B15)
//   :grid        Grid: the registered boxes kept for queries (B10)
//   :events      the persistent grid's handles, filters, events and ray segments (E1-E12)
//   :table       the persistent grid's cell table (E5, E12)
//   :update      the persistent grid's state and the phases of its update (E1-E8)
//   :persistent  PersistentGrid (E1-E12)
// Spec: docs/broadphase.md (clauses B1-B15, E1-E12; "Algorithm" names the room of every step).
// Checker and oracle: lwc.contracts.broadphase.
#ifndef LWC_HEADER_BUILD
module;
#endif
#ifndef LWC_HEADER_BUILD
export module lwc.broadphase;

// The API speaks in CellSize and the budgets of lwc.decompose: importing lwc.broadphase is enough.
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
#else
#include "lwc/decompose.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/sort.h"
#include "lwc/broadphase/tasks.h"
#include "lwc/broadphase/level.h"
#include "lwc/broadphase/batch.h"
#include "lwc/broadphase/grid.h"
#include "lwc/broadphase/events.h"
#include "lwc/broadphase/table.h"
#include "lwc/broadphase/update.h"
#include "lwc/broadphase/persistent.h"
#endif
