// SPDX-License-Identifier: MIT
// File: modules/lwc/broadphase/grid.h
//
// Grid: the batch broad phase's registered boxes kept for gameplay queries (B10) and later pairing: the
// index of :batch, built once, probed level by level (:level).
// Spec: docs/broadphase.md (B10, and B1-B12 for its pairs).
//
// One source, two modes (lwc/config.h): `#include <lwc/broadphase.h>` brings it without module support;
// the module unit modules/broadphase/grid.cppm exports the same declarations as lwc.broadphase:grid.
#ifndef LWC_BROADPHASE_GRID_H_
#define LWC_BROADPHASE_GRID_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/broadphase/grid.cppm includes these in its global module fragment
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
// ... and imports these.
#include "lwc/broadphase/batch.h"
#include "lwc/broadphase/box.h"
#include "lwc/broadphase/place.h"
#include "lwc/broadphase/cells.h"
#include "lwc/broadphase/level.h"
#include "lwc/broadphase/tasks.h"
#endif

LWC_EXPORT namespace lwc {

// Grid
//
// A registered set of boxes kept for gameplay queries. Owns its boxes; immutable once built.
//
// Example:
//   absl::StatusOr<lwc::Grid<2>> grid =
//       lwc::Grid<2>::create(std::move(boxes), {.cell_size = lwc::CellSize::of<2.0>()});
//   absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query({{8, 0}, {9, 1}});   // ascending
//   absl::Status s = grid->query({{8, 0}, {9, 1}}, [](std::uint32_t i) { return i < 10; });  // visited
template <std::size_t D>
class Grid {
 public:
  // create()
  //
  // Validates and registers `boxes`, with the errors of find_pairs except max_pairs (checked by pairs()).
  // `timings`, when given, receives validation_ns and registration_ns.
  [[nodiscard]] static absl::StatusOr<Grid> create(std::vector<Box<D>> boxes, const GridConfig& config,
                                                   Timings* timings = nullptr) {
    absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
    if (!spec.ok()) return spec.status();
    absl::StatusOr<internal::Index<D>> index = internal::build_index<D>(std::span<const Box<D>>(boxes), *spec, timings);
    if (!index.ok()) return index.status();
    return Grid(std::move(boxes), *std::move(index));
  }

  // query()
  //
  // The indices of every box overlapping `probe` (closed), ascending, each once (B10). The probe may be
  // any valid box, however large or far: it is clamped to the grid, never budgeted. InvalidArgument
  // ("query: ...") for a non-finite bound or min > max.
  [[nodiscard]] absl::StatusOr<std::vector<std::uint32_t>> query(const Box<D>& probe) const {
    std::vector<std::uint32_t> hits;
    if (absl::Status s = query(probe, [&](std::uint32_t id) { return hits.push_back(id), true; }); !s.ok()) return s;
    std::sort(hits.begin(), hits.end());
    return hits;
  }
  // The same answer visited: fn(index) once for every overlapping box, in no particular order, until fn
  // returns false; allocates nothing. InvalidArgument as above, with fn never called.
  template <typename Fn>
  [[nodiscard]] absl::Status query(const Box<D>& probe, Fn&& fn) const {
    if (absl::Status s = internal::validate(probe, internal::Named::call("query")); !s.ok()) return s;
    internal::Counters counters;
    bool go = true;
    for (const internal::Level<D>& level : index_.levels) {
      internal::probe_level(level, std::span<const Box<D>>(boxes_), probe, counters,
                            [&](std::uint32_t id) { go = go && static_cast<bool>(fn(id)); });
    }
    return absl::OkStatus();
  }

  // pairs()
  //
  // find_pairs on the registered boxes: the same pairs and stats (ResourceExhausted over max_pairs).
  // `timings`, when given, receives pairing_ns.
  [[nodiscard]] absl::StatusOr<PairsResult> pairs(Timings* timings = nullptr) const {
    return internal::pair_index<D>(index_, std::span<const Box<D>>(boxes_), timings);
  }

  [[nodiscard]] std::span<const Box<D>> boxes() const noexcept { return boxes_; }
  // The registration stats (boxes, memberships, occupied cells, levels, coarse boxes).
  [[nodiscard]] const Stats& stats() const noexcept { return index_.stats; }

 private:
  Grid(std::vector<Box<D>> boxes, internal::Index<D> index) : boxes_(std::move(boxes)), index_(std::move(index)) {}

  std::vector<Box<D>> boxes_;
  internal::Index<D> index_;
};

}  // namespace lwc

#endif  // LWC_BROADPHASE_GRID_H_
