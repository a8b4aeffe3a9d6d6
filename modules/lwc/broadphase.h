// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase.h
//
// Broad phase on a uniform grid: every overlapping pair of closed axis-aligned boxes, each exactly once,
// in canonical order, without a global pair set; and a persistent grid of moving boxes with exactly-once
// contact events. Its rooms, in the order of a box's way (each a header in lwc/broadphase/ and a partition):
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
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support; the
// module unit modules/broadphase.cppm exports the same declarations as `import lwc.broadphase;`.
#ifndef LWC_BROADPHASE_H_
#define LWC_BROADPHASE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase.cppm imports these
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

#endif  // LWC_BROADPHASE_H_
