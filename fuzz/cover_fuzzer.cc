// SPDX-License-Identifier: MIT
// File: fuzz/cover_fuzzer.cc
//
// libFuzzer target for lwc.cover. The input is read as raw little-endian 64-bit words (so the
// dictionary's 8-byte extremes land as whole values): a range (min, max, size), a budget and a stop
// point, then a 3-D box (min corner, max corner). Every range is covered half-open and closed, counted,
// probed between its ends and enumerated under the budget; the box likewise in 3-D and 2-D. Each check
// traps when lwc.contracts.cover rejects the result.
//
// lwc-clauses: C1 C2 C3 C4 C5 C6 C7 C8 C9 C10
// (C10: the whole tree is built with UBSan + -fsanitize=integer in the fuzz preset, so an overflowing
// intermediate aborts; the other clauses are decided by the checkers named at each call.)
#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz_support.h"

import lwc.cover;
import lwc.contracts.cover;

namespace {

using lwc::fuzzing::word;
using lwc::fuzzing::require;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
// Enumerations within budget are walked only up to this many chunks (over-budget ones at any count:
// they must return before the first visit).
constexpr std::uint64_t kMaxWalk = 4096;

// A positive word is the size itself; any other maps to a small size (1 to 256), where chunk boundaries
// fall inside short ranges.
std::int64_t size_from(std::uint64_t w) {
  const auto s = std::bit_cast<std::int64_t>(w);
  return s > 0 ? s : static_cast<std::int64_t>(w & 0xff) + 1;
}

// A budget: small (0 to 4095) unless the word's top bit is set, then the word itself (up to UINT64_MAX).
std::uint64_t budget_from(std::uint64_t w) { return (w >> 63) != 0 ? w : (w & 0xfff); }

absl::uint128 box_count(lwc::Point3 first, lwc::Point3 last) {
  return lwc::contracts::oracle_count(first.x, last.x) * lwc::contracts::oracle_count(first.y, last.y) *
         lwc::contracts::oracle_count(first.z, last.z);
}

// Enumerates `chunks` under `budget` with a visitor that records (as Point3 via to3) and asks to stop at
// call `stop_after` (0: never), then judges the run. Skipped when within budget but too long to walk.
template <typename Chunks, typename To3>
void enumerate(const Chunks& chunks, lwc::Point3 first, lwc::Point3 last, std::uint64_t budget,
               std::uint64_t stop_after, To3 to3) {
  const absl::uint128 n = box_count(first, last);
  if (n <= budget && n > kMaxWalk) return;
  std::vector<lwc::Point3> seen;
  const absl::Status status = lwc::for_each_chunk(chunks, *lwc::ChunkBudget::create(budget), [&](auto c) {
    seen.push_back(to3(c));
    return stop_after == 0 || seen.size() < stop_after;
  });
  require(lwc::contracts::check_enumeration(first, last, budget, status, seen, stop_after));  // C7 C8
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto min = std::bit_cast<std::int64_t>(word(in));
  const auto max = std::bit_cast<std::int64_t>(word(in));
  const std::int64_t s = size_from(word(in));
  const std::uint64_t budget = budget_from(word(in));
  const std::uint64_t stop_after = word(in) % 64;
  const lwc::ChunkSize chunk_size = *lwc::ChunkSize::create(s);

  // 1-D: half-open (C1-C4, C10), closed and their equivalence (C5).
  const absl::StatusOr<std::optional<lwc::ChunkSpan>> half_open = lwc::cover(min, max, chunk_size);
  require(lwc::contracts::check_cover(min, max, s, lwc::contracts::answer_of(half_open)));
  const absl::StatusOr<std::optional<lwc::ChunkSpan>> closed = lwc::cover_closed(min, max, chunk_size);
  const lwc::contracts::CoverAnswer plus_one =
      max == kMax ? lwc::contracts::CoverAnswer::none()
                  : lwc::contracts::answer_of(lwc::cover(min, max + 1, chunk_size));
  require(lwc::contracts::check_closed_form(min, max, s, lwc::contracts::answer_of(closed), plus_one));

  for (const auto* r : {&half_open, &closed}) {
    if (!r->ok() || !(*r)->has_value()) continue;
    const lwc::ChunkSpan span = ***r;
    require(lwc::contracts::check_count(span.first(), span.last(), lwc::count(span)));  // C6
    // C3 at a chunk chosen by the budget word, for the half-open range (the closed one is the same
    // range plus its last point, checked through C5).
    if (r == &half_open) {
      const absl::uint128 n = lwc::contracts::oracle_count(span.first(), span.last());
      const auto probe =
          static_cast<std::int64_t>(absl::int128(span.first()) + static_cast<absl::int128>(budget % n));
      require(lwc::contracts::check_contiguity(min, max, s, span.first(), span.last(), probe));  // C3
    }
    enumerate(span, lwc::Point3{span.first(), 0, 0}, lwc::Point3{span.last(), 0, 0}, budget, stop_after,
              [](std::int64_t x) {
                return lwc::Point3{x, 0, 0};
              });
  }

  // 3-D and 2-D boxes (C9), their counts and enumerations.
  const lwc::Point3 lo{min, std::bit_cast<std::int64_t>(word(in)), std::bit_cast<std::int64_t>(word(in))};
  const lwc::Point3 hi{max, std::bit_cast<std::int64_t>(word(in)), std::bit_cast<std::int64_t>(word(in))};
  for (const bool is_closed : {false, true}) {
    const absl::StatusOr<std::optional<lwc::ChunkBox3>> box3 =
        is_closed ? lwc::cover_closed(lo, hi, chunk_size) : lwc::cover(lo, hi, chunk_size);
    require(lwc::contracts::check_cover_box(lo, hi, s, lwc::contracts::answer_of(box3), is_closed));
    if (box3.ok() && box3->has_value()) {
      const lwc::ChunkBox3& b = **box3;
      require(lwc::contracts::check_box_count(b.first(), b.last(), lwc::count(b)));
      enumerate(b, b.first(), b.last(), budget, stop_after, [](lwc::Point3 p) { return p; });
    }
    const lwc::Point2 lo2{lo.x, lo.y};
    const lwc::Point2 hi2{hi.x, hi.y};
    const absl::StatusOr<std::optional<lwc::ChunkBox2>> box2 =
        is_closed ? lwc::cover_closed(lo2, hi2, chunk_size) : lwc::cover(lo2, hi2, chunk_size);
    require(lwc::contracts::check_cover_box(lo2, hi2, s, lwc::contracts::answer_of(box2), is_closed));
    if (box2.ok() && box2->has_value()) {
      const lwc::ChunkBox2& b = **box2;
      require(lwc::contracts::check_box_count(b.first(), b.last(), lwc::count(b)));
      enumerate(b, lwc::Point3{b.x.first(), b.y.first(), 0}, lwc::Point3{b.x.last(), b.y.last(), 0}, budget,
                stop_after, [](lwc::Point2 p) {
                  return lwc::Point3{p.x, p.y, 0};
                });
    }
  }
  return 0;
}
