// SPDX-License-Identifier: MIT
// File: bench/lwc/bench/hash_grid.h
//
// A benchmark baseline, not part of lwc: the textbook spatial hash (a hash map of cell lists and a global
// pair set) that lwc.broadphase is measured against (bench/broadphase_bench.cc) and whose independent
// counts tests/broadphase_test.cc compares lwc's stats with (B12). Built only with the tests or benches.
//
// One source, two modes (lwc/config.h): `#include <lwc/bench/hash_grid.h>` brings it without module support
// (tests/header_build); the module unit bench/hash_grid.cppm exports the same declarations as `import
// lwc.bench.hash_grid;`.
#ifndef LWC_BENCH_HASH_GRID_H_
#define LWC_BENCH_HASH_GRID_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // bench/hash_grid.cppm includes these in its global module fragment
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
// ... and imports these.
#include "lwc/broadphase.h"
#endif

namespace lwc::bench {

// The cell key hash of a C#-style Dictionary<(int, int), List<int>>. A rotation and xor only: nothing
// that wraps or shifts bits out (the sanitized presets trap on both in our code, and on libstdc++'s
// std::rotl).
template <std::size_t D>
struct CellHash {
  std::size_t operator()(const std::array<std::int64_t, D>& c) const noexcept {
    std::uint64_t h = 0;
    for (const std::int64_t v : c) {
      h = (((h & ((std::uint64_t{1} << 41) - 1)) << 23) | (h >> 41)) ^ static_cast<std::uint64_t>(v);
    }
    return static_cast<std::size_t>(h);
  }
};

}  // namespace lwc::bench

LWC_EXPORT namespace lwc::bench {

// HashGridResult
//
// The output of hash_grid_pairs with its own counters: memberships, pair visits (every pair of every
// cell list), unique candidates (the size of the global pair set) and the overlapping pairs, sorted.
struct HashGridResult {
  std::vector<Pair> pairs;
  std::int64_t memberships = 0;
  std::int64_t pair_visits = 0;
  std::int64_t unique_candidates = 0;
};

// hash_grid_pairs()
//
// The textbook spatial hash (the approach lwc.broadphase was written to replace, see docs/broadphase.md
// "Origin"): per box, register it in every cell from cell_of(min) to cell_of(max) in a hash map of
// cell -> box list; then every pair of every list goes into a global hash set of (lower, higher) keys;
// then each candidate is tested, and the overlaps are sorted (the set has no order; sorting makes it
// comparable). The cells are lwc.decompose's exact cells. Errors: InvalidArgument for a bad box,
// OutOfRange for a cell outside int64, ResourceExhausted beyond config.max_cells_per_box or
// config.max_memberships (config.oversize and config.max_pairs are ignored). The baseline the benchmarks
// compare lwc with, and the independent count of memberships and candidates of docs/broadphase.md B12.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<HashGridResult> hash_grid_pairs(std::span<const Box<D>> boxes, const GridConfig& config) {
  const CellSize size = config.cell_size;
  std::unordered_map<std::array<std::int64_t, D>, std::vector<std::uint32_t>, CellHash<D>> cells;
  HashGridResult out;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status s = validate_box(boxes[i], i); !s.ok()) return s;
    absl::StatusOr<CellRange<D>> r = cell_range(boxes[i], size);
    if (!r.ok()) return r.status();
    if (cell_count(*r) > static_cast<absl::uint128>(config.max_cells_per_box.value())) {
      return absl::ResourceExhaustedError(absl::StrCat("box ", i, ": too many cells"));
    }
    std::array<std::int64_t, D> c = r->lo;
    for (;;) {
      if (++out.memberships > config.max_memberships.value()) return absl::ResourceExhaustedError("too many memberships");
      cells[c].push_back(static_cast<std::uint32_t>(i));
      std::size_t k = 0;
      for (; k < D; ++k) {
        if (c[k] != r->hi[k]) {
          ++c[k];
          break;
        }
        c[k] = r->lo[k];
      }
      if (k == D) break;
    }
  }
  std::unordered_set<std::uint64_t> candidates;
  for (const auto& [cell, ids] : cells) {
    for (std::size_t a = 0; a < ids.size(); ++a) {
      for (std::size_t b = a + 1; b < ids.size(); ++b) {
        ++out.pair_visits;
        // Registered in index order, so ids[a] < ids[b].
        candidates.insert((static_cast<std::uint64_t>(ids[a]) << 32) | ids[b]);
      }
    }
  }
  out.unique_candidates = static_cast<std::int64_t>(candidates.size());
  for (const std::uint64_t key : candidates) {
    const auto a = static_cast<std::uint32_t>(key >> 32);
    const auto b = static_cast<std::uint32_t>(key & 0xffffffffu);
    if (overlaps(boxes[a], boxes[b])) out.pairs.push_back({a, b});
  }
  std::sort(out.pairs.begin(), out.pairs.end());
  return out;
}
[[nodiscard]] inline absl::StatusOr<HashGridResult> hash_grid_pairs(std::span<const Box2> boxes, const GridConfig& config) {
  return hash_grid_pairs<2>(boxes, config);
}
[[nodiscard]] inline absl::StatusOr<HashGridResult> hash_grid_pairs(std::span<const Box3> boxes, const GridConfig& config) {
  return hash_grid_pairs<3>(boxes, config);
}

}  // namespace lwc::bench

#endif  // LWC_BENCH_HASH_GRID_H_
