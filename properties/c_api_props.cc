// SPDX-License-Identifier: MIT
// File: properties/c_api_props.cc
//
// One or more RapidCheck properties per F-clause of docs/c_api.md, named by clause id: the C API
// (capi/include/lwc.h) against the C++ API it wraps, over the extreme-biased generators of the contracts
// (support/arbitrary_*.h): codes, results and messages agree (F1, F2); refusals and failures write
// nothing (F3); small buffers get the count (F4); handles are ids (F5); and random operation sequences on
// the stateful handles, with injected failures (bad boxes, stale handles, tight budgets, failing prepare
// callbacks), give what the same sequences give in C++ (F6). The scene and sequence properties run a
// quarter of the cases (LWC_PROP_SCALED): each case is a whole find_pairs or a sequence of up to 30 calls.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../tests/support/poison.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lwc.h"
#include "support/arbitrary_broadphase.h"
#include "support/arbitrary_cover.h"
#include "support/arbitrary_decompose.h"
#include "support/property.h"

import lwc;

namespace {

lwc_status code_of(const absl::Status& s) { return static_cast<lwc_status>(s.code()); }

// A byte pattern no call writes (tests/support/poison.h): fill an output, check it survived (F3, F4).
using lwc::testing::poisoned;
using lwc::testing::untouched;

lwc_box2 to_c(const lwc::Box2& b) { return {{b.min[0], b.min[1]}, {b.max[0], b.max[1]}}; }
std::vector<lwc_box2> to_c(const std::vector<lwc::Box2>& boxes) {
  std::vector<lwc_box2> out;
  for (const lwc::Box2& b : boxes) out.push_back(to_c(b));
  return out;
}

// The float equal to v, when there is one (NaN has no equal; a double beyond the floats is never cast).
std::optional<float> as_float(double v) {
  if (std::isnan(v) || (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max())) return std::nullopt;
  const auto f = static_cast<float>(v);
  return static_cast<double>(f) == v ? std::optional<float>(f) : std::nullopt;
}

// The float box equal to `b`, when each bound is a float.
std::optional<lwc_float_box2> as_float_box(const lwc::Box2& b) {
  lwc_float_box2 out{};
  for (std::size_t k = 0; k < 2; ++k) {
    const std::optional<float> lo = as_float(b.min[k]);
    const std::optional<float> hi = as_float(b.max[k]);
    if (!lo || !hi) return std::nullopt;
    out.min[k] = *lo;
    out.max[k] = *hi;
  }
  return out;
}

// A config as raw numbers, valid or not, and the C++ config it makes (when every create() accepts it).
struct Config {
  lwc_grid_config c;
  std::optional<lwc::GridConfig> cpp;
};

rc::Gen<Config> any_config(double h) {
  return rc::gen::exec([h] {
    lwc_grid_config c = lwc_grid_config_default();
    c.cell_size = *rc::gen::weightedOneOf<double>({{8, rc::gen::just(h)}, {1, lwc::testing::any_cell_size()}});
    c.max_cells_per_box = *rc::gen::weightedOneOf<std::int64_t>(
        {{4, rc::gen::just(std::int64_t{4096})}, {2, rc::gen::inRange<std::int64_t>(-1, 80)},
         {1, rc::gen::element(lwc::testing::kInt64Min, std::int64_t{0})}});  // refused (B6); a huge budget
                                                                             // would only make cases slow
    c.max_memberships = *rc::gen::weightedOneOf<std::int64_t>(
        {{4, rc::gen::just(std::int64_t{1} << 26)}, {2, rc::gen::inRange<std::int64_t>(-1, 200)}});
    c.max_pairs = *rc::gen::weightedOneOf<std::int64_t>(
        {{4, rc::gen::just(std::int64_t{1} << 26)}, {2, rc::gen::inRange<std::int64_t>(-1, 40)}});
    c.oversize = *rc::gen::weightedOneOf<int>({{8, rc::gen::element(0, 1)}, {1, rc::gen::element(-1, 2, 1000)}});
    Config out{c, std::nullopt};
    const auto hs = lwc::CellSize::create(c.cell_size);
    const auto cells = lwc::CellBudget::create(c.max_cells_per_box);
    const auto members = lwc::MembershipBudget::create(c.max_memberships);
    const auto pairs = lwc::PairBudget::create(c.max_pairs);
    if (hs.ok() && cells.ok() && members.ok() && pairs.ok() && (c.oversize == 0 || c.oversize == 1)) {
      out.cpp = lwc::GridConfig{.cell_size = *hs,
                                .max_cells_per_box = *cells,
                                .max_memberships = *members,
                                .max_pairs = *pairs,
                                .oversize = c.oversize == 0 ? lwc::Oversize::kReject : lwc::Oversize::kCoarserLevels};
    }
    return out;
  });
}

// Boxes for a scene: mostly valid, sometimes one defective (NaN, inf, min > max).
rc::Gen<std::vector<lwc::Box2>> any_scene(double h) {
  return rc::gen::exec([h] {
    std::vector<lwc::Box2> boxes = *lwc::testing::scene<2>(h, 16);
    if (!boxes.empty() && *rc::gen::inRange(0, 5) == 0) {
      boxes[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(boxes.size())))] =
          *lwc::testing::any_box<2>(h);
    }
    return boxes;
  });
}

// ---------------------------------------------------------------------------------------------------
// F1

LWC_PROP(CApi, F1_SplitAgreesWithCpp, ()) {
  const std::int64_t x = *lwc::testing::any_int64();
  const std::int64_t size = *lwc::testing::any_size();
  lwc_chunk_point p = poisoned<lwc_chunk_point>();
  const lwc_status s = lwc_split(x, size, &p);
  const absl::StatusOr<lwc::ChunkSize> cpp = lwc::ChunkSize::create(size);
  RC_ASSERT(s == code_of(cpp.status()));
  if (cpp.ok()) {
    const lwc::ChunkPoint q = lwc::split(x, *cpp);
    RC_ASSERT(p.chunk == q.chunk);
    RC_ASSERT(p.local == q.local);
    lwc_chunk_point3 p3;
    RC_ASSERT(lwc_split3({x, x == lwc::testing::kInt64Min ? 0 : -x, x / 2}, size, &p3) == LWC_OK);
    RC_ASSERT(p3.chunk.x == q.chunk && p3.local.x == q.local);
    lwc_chunk_point batch[1];
    RC_ASSERT(lwc_split_all(&x, 1, size, batch) == LWC_OK);
    RC_ASSERT(batch[0].chunk == q.chunk && batch[0].local == q.local);
  } else {
    RC_ASSERT(untouched(p));
  }
}

LWC_PROP(CApi, F1_CellOfAgreesWithCpp, ()) {
  const lwc::testing::CellCase c = *lwc::testing::cell_case();
  std::int64_t cell = 0x5a5a5a5a;
  const lwc_status s = lwc_cell_of(c.v, c.h, &cell);
  const absl::StatusOr<std::int64_t> cpp = lwc::cell_of(c.v, c.h);
  RC_ASSERT(s == code_of(cpp.status()));
  RC_ASSERT(cell == (cpp.ok() ? *cpp : 0x5a5a5a5a));
  std::int64_t batch = 0x5a5a5a5a;
  RC_ASSERT(lwc_cell_of_all(&c.v, 1, c.h, &batch) == s);
  RC_ASSERT(batch == cell);
}

LWC_PROP(CApi, F1_CoverAgreesWithCpp, ()) {
  const lwc::testing::RangeCase r = *lwc::testing::any_range_case();
  const bool closed = *rc::gen::arbitrary<bool>();
  lwc_chunk_span span = poisoned<lwc_chunk_span>();
  int nonempty = -7;
  const lwc::ChunkSize size = *lwc::ChunkSize::create(r.size);
  const lwc_status s = closed ? lwc_cover_closed(r.min, r.max, r.size, &span, &nonempty)
                              : lwc_cover(r.min, r.max, r.size, &span, &nonempty);
  const absl::StatusOr<std::optional<lwc::ChunkSpan>> cpp =
      closed ? lwc::cover_closed(r.min, r.max, size) : lwc::cover(r.min, r.max, size);
  RC_ASSERT(s == code_of(cpp.status()));
  if (!cpp.ok()) {
    RC_ASSERT(nonempty == -7);
    RC_ASSERT(untouched(span));
    return;
  }
  RC_ASSERT(nonempty == (cpp->has_value() ? 1 : 0));
  if (!cpp->has_value()) {
    RC_ASSERT(untouched(span));
    return;
  }
  RC_ASSERT(span.first == (*cpp)->first() && span.last == (*cpp)->last());
  std::uint64_t n = 3;
  const absl::StatusOr<std::uint64_t> count = lwc::count(**cpp);
  RC_ASSERT(lwc_count(span, &n) == code_of(count.status()));
  RC_ASSERT(n == (count.ok() ? *count : 3));
  lwc_chunk_box2 box;
  RC_ASSERT(lwc_cover_closed2({r.min, 0}, {r.max, 0}, r.size, &box, &nonempty) ==
            code_of(lwc::cover_closed(lwc::Point2{r.min, 0}, lwc::Point2{r.max, 0}, size).status()));
}

LWC_PROP_SCALED(CApi, F1_FindPairsAgreesWithCpp, 4, ()) {
  const double h = *lwc::testing::scene_cell_size();
  const std::vector<lwc::Box2> boxes = *any_scene(h);
  const Config config = *any_config(h);
  const std::vector<lwc_box2> in = to_c(boxes);
  std::vector<lwc_pair> pairs(boxes.size() * boxes.size() + 1);
  std::size_t count = 12345;
  lwc_stats stats = poisoned<lwc_stats>();
  const lwc_status s = lwc_find_pairs2(in.data(), in.size(), &config.c, pairs.data(), pairs.size(), &count, &stats);
  if (!config.cpp) {
    RC_ASSERT(s == LWC_INVALID_ARGUMENT);
    RC_ASSERT(count == 12345u && untouched(stats));
    return;
  }
  const absl::StatusOr<lwc::PairsResult> cpp = lwc::find_pairs(boxes, *config.cpp);
  RC_ASSERT(s == code_of(cpp.status()));
  if (!cpp.ok()) {
    RC_ASSERT(count == 12345u && untouched(stats));
    RC_ASSERT(std::string(lwc_last_error()) == cpp.status().message());  // F2 too
    return;
  }
  RC_ASSERT(count == cpp->pairs.size());
  for (std::size_t i = 0; i < count; ++i) RC_ASSERT(pairs[i].a == cpp->pairs[i].a && pairs[i].b == cpp->pairs[i].b);
  RC_ASSERT(stats.boxes == cpp->stats.boxes && stats.memberships == cpp->stats.memberships &&
            stats.occupied_cells == cpp->stats.occupied_cells && stats.pair_visits == cpp->stats.pair_visits &&
            stats.unique_candidates == cpp->stats.unique_candidates && stats.pairs == cpp->stats.pairs &&
            stats.levels == cpp->stats.levels && stats.coarse_boxes == cpp->stats.coarse_boxes);
  // The query grid answers as Grid<2> does (B10).
  lwc_grid2* grid = nullptr;
  const absl::StatusOr<lwc::Grid<2>> cpp_grid = lwc::Grid<2>::create(boxes, *config.cpp);
  RC_ASSERT(lwc_grid2_create(in.data(), in.size(), &config.c, &grid) == code_of(cpp_grid.status()));
  if (!cpp_grid.ok()) return;
  const lwc::Box2 probe = *lwc::testing::any_box<2>(h);
  const lwc_box2 cprobe = to_c(probe);
  std::vector<std::uint32_t> hits(boxes.size());
  const absl::StatusOr<std::vector<std::uint32_t>> want = cpp_grid->query(probe);
  RC_ASSERT(lwc_grid2_query(grid, &cprobe, hits.data(), hits.size(), &count) == code_of(want.status()));
  if (want.ok()) {
    hits.resize(count);
    RC_ASSERT(hits == *want);
  }
  RC_ASSERT(lwc_grid2_destroy(grid) == LWC_OK);
}

// ---------------------------------------------------------------------------------------------------
// F2

LWC_PROP(CApi, F2_MessageIsTheCppMessage, ()) {
  const int which = *rc::gen::inRange(0, 3);
  absl::Status want;
  lwc_status got = LWC_OK;
  if (which == 0) {
    const std::int64_t size = *rc::gen::element(std::int64_t{0}, std::int64_t{-1}, lwc::testing::kInt64Min,
                                                *lwc::testing::any_int64());
    lwc_chunk_point p;
    got = lwc_split(1, size, &p);
    want = lwc::ChunkSize::create(size).status();
  } else if (which == 1) {
    const lwc::testing::CellCase c = *lwc::testing::cell_case();
    std::int64_t cell;
    got = lwc_cell_of(c.v, c.h, &cell);
    want = lwc::cell_of(c.v, c.h).status();
  } else {
    const lwc::testing::RangeCase r = *lwc::testing::any_range_case();
    lwc_chunk_span span;
    int nonempty;
    got = lwc_cover(r.min, r.max, r.size, &span, &nonempty);
    want = lwc::cover(r.min, r.max, *lwc::ChunkSize::create(r.size)).status();
  }
  RC_ASSERT(got == code_of(want));
  if (!want.ok()) RC_ASSERT(std::string(lwc_last_error()) == want.message());
  RC_ASSERT(std::string(lwc_status_name(got)).rfind("LWC_", 0) == 0);
}

// ---------------------------------------------------------------------------------------------------
// F3

// A call with one argument made bad (NULL, NULL array with a count, an enum out of its set): refused,
// nothing written, no state changed.
LWC_PROP(CApi, F3_NullOrBadArgumentWritesNothing, ()) {
  lwc_persistent_grid2* grid = nullptr;
  const lwc_grid_config config = lwc_grid_config_default();
  RC_ASSERT(lwc_persistent_grid2_create(&config, nullptr, nullptr, &grid) == LWC_OK);
  const lwc_box2 box{{0, 0}, {1, 1}};
  lwc_handle h;
  RC_ASSERT(lwc_persistent_grid2_insert(grid, &box, 0, lwc_filter_default(), &h) == LWC_OK);
  const auto n = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  std::vector<std::int64_t> xs(n, 5);
  std::vector<lwc_chunk_point> points(n, poisoned<lwc_chunk_point>());
  lwc_contact contacts[4];
  for (lwc_contact& c : contacts) c = poisoned<lwc_contact>();
  std::size_t count = 777;
  lwc_handle out = poisoned<lwc_handle>();
  const int bad_enum = *rc::gen::element(-1, 3, 100, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
  const int call = *rc::gen::inRange(0, 8);
  lwc_status s = LWC_OK;
  switch (call) {
    case 0: s = lwc_split_all(nullptr, n, 16, points.data()); break;
    case 1: s = lwc_split_all(xs.data(), n, 16, nullptr); break;
    case 2: s = lwc_persistent_grid2_insert(grid, nullptr, 0, lwc_filter_default(), &out); break;
    case 3: s = lwc_persistent_grid2_insert(grid, &box, 0, lwc_filter_default(), nullptr); break;
    case 4: s = lwc_persistent_grid2_move(grid, h, &box, bad_enum); break;
    case 5: s = lwc_persistent_grid2_events(grid, bad_enum, contacts, 4, &count); break;
    case 6: s = lwc_persistent_grid2_pairs(grid, nullptr, n, &count); break;
    default: s = lwc_persistent_grid2_pairs(grid, contacts, 4, nullptr); break;
  }
  RC_ASSERT(s == LWC_INVALID_ARGUMENT);
  RC_ASSERT(std::string(lwc_last_error()).find("(F3)") != std::string::npos);
  for (const lwc_chunk_point& p : points) RC_ASSERT(untouched(p));
  for (const lwc_contact& c : contacts) RC_ASSERT(untouched(c));
  RC_ASSERT(count == 777u && untouched(out));
  std::size_t pending = 0;
  RC_ASSERT(lwc_persistent_grid2_pending(grid, &pending) == LWC_OK);
  RC_ASSERT(pending == 1u);  // the insert, and nothing else
  RC_ASSERT(lwc_persistent_grid2_destroy(grid) == LWC_OK);
}

// A call that fails in C++ (bad values) writes nothing either: cell_of_all checks every input first.
LWC_PROP(CApi, F3_FailedCallWritesNothing, ()) {
  const double h = *lwc::testing::any_cell_size();
  const std::vector<double> vs = *rc::gen::container<std::vector<double>>(lwc::testing::any_double());
  std::vector<std::int64_t> out(vs.size(), 0x5a5a);
  const lwc_status s = lwc_cell_of_all(vs.data(), vs.size(), h, out.data());
  absl::Status want = lwc::CellSize::create(h).status();
  for (std::size_t i = 0; want.ok() && i < vs.size(); ++i) want = lwc::cell_of(vs[i], h).status();
  RC_ASSERT(s == code_of(want));
  for (std::size_t i = 0; i < vs.size(); ++i) {
    RC_ASSERT(out[i] == (s == LWC_OK ? *lwc::cell_of(vs[i], h) : 0x5a5a));
  }
}

// ---------------------------------------------------------------------------------------------------
// F8

// find_pairs through a view into a pair list: an engine's AABB array of doubles with padding between the
// corners, or of floats (when every bound is a float), gives the C++ find_pairs' code, pairs and stats;
// a failed call leaves the list with what it held (F3).
LWC_PROP_SCALED(CApi, F8_PairListHoldsFindPairs, 4, ()) {
  const double h = *lwc::testing::scene_cell_size();
  const std::vector<lwc::Box2> boxes = *any_scene(h);
  const Config config = *any_config(h);
  struct Aabb {
    double lower[2];
    std::int32_t tag;
    double upper[2];
  };
  struct FloatAabb {
    std::uint32_t id;
    float lower[2];
    float upper[2];
  };
  std::vector<Aabb> doubles;
  std::vector<FloatAabb> floats;
  bool all_float = true;
  for (const lwc::Box2& b : boxes) {
    doubles.push_back({{b.min[0], b.min[1]}, 7, {b.max[0], b.max[1]}});
    const std::optional<lwc_float_box2> f = as_float_box(b);
    all_float = all_float && f.has_value();
    const lwc_float_box2 fb = f.value_or(lwc_float_box2{});
    floats.push_back({3, {fb.min[0], fb.min[1]}, {fb.max[0], fb.max[1]}});
  }
  const bool use_floats = all_float && *rc::gen::arbitrary<bool>();
  const lwc_box_view view =
      use_floats ? lwc_box_view{floats.empty() ? nullptr : floats[0].lower, floats.empty() ? nullptr : floats[0].upper,
                                floats.size(), sizeof(FloatAabb), LWC_REAL_FLOAT}
                 : lwc_box_view{doubles.empty() ? nullptr : doubles[0].lower,
                                doubles.empty() ? nullptr : doubles[0].upper, doubles.size(), sizeof(Aabb),
                                LWC_REAL_DOUBLE};
  lwc_pair_list* list = nullptr;
  RC_ASSERT(lwc_pair_list_create(&list) == LWC_OK);
  // The list holds the pairs of an earlier call: a failure must leave them.
  const lwc_box2 earlier[2] = {{{0, 0}, {1, 1}}, {{1, 1}, {2, 2}}};
  const lwc_box_view earlier_view{earlier[0].min, earlier[0].max, 2, sizeof(lwc_box2), LWC_REAL_DOUBLE};
  const lwc_grid_config plain = lwc_grid_config_default();
  RC_ASSERT(lwc_find_pairs2_view(&earlier_view, &plain, list, nullptr) == LWC_OK);
  lwc_stats stats = poisoned<lwc_stats>();
  const lwc_status s = lwc_find_pairs2_view(&view, &config.c, list, &stats);
  const lwc_pair* got = nullptr;
  std::size_t count = 0;
  RC_ASSERT(lwc_pair_list_pairs(list, &got, &count) == LWC_OK);
  const absl::StatusOr<lwc::PairsResult> cpp =
      config.cpp ? lwc::find_pairs(boxes, *config.cpp) : absl::InvalidArgumentError("bad config");
  RC_ASSERT(s == code_of(cpp.status()));
  if (!cpp.ok()) {
    RC_ASSERT(untouched(stats));
    RC_ASSERT(count == 1u && got[0].a == 0u && got[0].b == 1u);
  } else {
    RC_ASSERT(count == cpp->pairs.size());
    for (std::size_t i = 0; i < count; ++i) RC_ASSERT(got[i].a == cpp->pairs[i].a && got[i].b == cpp->pairs[i].b);
    RC_ASSERT(stats.memberships == cpp->stats.memberships && stats.pairs == cpp->stats.pairs &&
              stats.levels == cpp->stats.levels && stats.occupied_cells == cpp->stats.occupied_cells);
  }
  RC_ASSERT(lwc_pair_list_destroy(list) == LWC_OK);
}

// ---------------------------------------------------------------------------------------------------
// F4

LWC_PROP_SCALED(CApi, F4_SmallBufferReportsNeededCount, 4, ()) {
  const double h = *lwc::testing::scene_cell_size();
  const std::vector<lwc::Box2> boxes = *lwc::testing::scene<2>(h, 16);
  const lwc_grid_config config = [&] {
    lwc_grid_config c = lwc_grid_config_default();
    c.cell_size = h;
    c.oversize = LWC_OVERSIZE_COARSER_LEVELS;
    return c;
  }();
  const std::vector<lwc_box2> in = to_c(boxes);
  std::size_t needed = 0;
  const lwc_status first = lwc_find_pairs2(in.data(), in.size(), &config, nullptr, 0, &needed, nullptr);
  RC_PRE(first == LWC_OK || first == LWC_BUFFER_TOO_SMALL);
  if (first == LWC_OK) RC_ASSERT(needed == 0u);
  const auto capacity = static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(needed) + 3));
  std::vector<lwc_pair> pairs(capacity, poisoned<lwc_pair>());
  std::size_t count = 0;
  lwc_stats stats = poisoned<lwc_stats>();
  const lwc_status s = lwc_find_pairs2(in.data(), in.size(), &config, pairs.data(), capacity, &count, &stats);
  RC_ASSERT(count == needed);
  if (capacity < needed) {
    RC_ASSERT(s == LWC_BUFFER_TOO_SMALL);
    for (const lwc_pair& p : pairs) RC_ASSERT(untouched(p));
    RC_ASSERT(untouched(stats));
  } else {
    RC_ASSERT(s == LWC_OK);
    RC_ASSERT(stats.pairs == static_cast<std::int64_t>(needed));
    for (std::size_t i = needed; i < capacity; ++i) RC_ASSERT(untouched(pairs[i]));
  }
}

// ---------------------------------------------------------------------------------------------------
// F5

LWC_PROP(CApi, F5_HandlesIssuedOnceRefusedAfterDestroy, ()) {
  struct Issued {
    void* id;
    int kind;  // 0 committer, 1 persistent grid 2D
    bool live;
  };
  std::vector<Issued> issued;
  std::set<void*> ever;
  const int steps = *rc::gen::inRange(1, 40);
  const lwc_grid_config config = lwc_grid_config_default();
  for (int step = 0; step < steps; ++step) {
    const int op = issued.empty() ? 0 : *rc::gen::inRange(0, 3);
    if (op == 0) {
      const int kind = *rc::gen::inRange(0, 2);
      void* id = nullptr;
      if (kind == 0) {
        lwc_committer* c = nullptr;
        RC_ASSERT(lwc_committer_create(*rc::gen::inRange<std::int64_t>(1, 100), &c) == LWC_OK);
        id = c;
      } else {
        lwc_persistent_grid2* g = nullptr;
        RC_ASSERT(lwc_persistent_grid2_create(&config, nullptr, nullptr, &g) == LWC_OK);
        id = g;
      }
      RC_ASSERT(reinterpret_cast<std::uintptr_t>(id) != 0u);
      RC_ASSERT(ever.insert(id).second);  // never issued before
      issued.push_back({id, kind, true});
      continue;
    }
    Issued& h = issued[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(issued.size())))];
    const int as_kind = *rc::gen::weightedOneOf<int>({{3, rc::gen::just(h.kind)}, {1, rc::gen::just(1 - h.kind)}});
    const bool valid = h.live && as_kind == h.kind;
    lwc_status s = LWC_OK;
    if (op == 1) {  // use
      if (as_kind == 0) {
        std::uint64_t generation = 0;
        s = lwc_committer_generation(static_cast<lwc_committer*>(h.id), &generation);
        if (s == LWC_OK) RC_ASSERT(generation == 1u);
      } else {
        std::int64_t size = -1;
        s = lwc_persistent_grid2_size(static_cast<lwc_persistent_grid2*>(h.id), &size);
        if (s == LWC_OK) RC_ASSERT(size == 0);
      }
    } else {  // destroy
      s = as_kind == 0 ? lwc_committer_destroy(static_cast<lwc_committer*>(h.id))
                       : lwc_persistent_grid2_destroy(static_cast<lwc_persistent_grid2*>(h.id));
      if (valid) h.live = false;
    }
    RC_ASSERT(s == (valid ? LWC_OK : LWC_INVALID_ARGUMENT));
    if (!valid) RC_ASSERT(std::string(lwc_last_error()).find("(F5)") != std::string::npos);
  }
  for (Issued& h : issued) {
    if (!h.live) continue;
    RC_ASSERT((h.kind == 0 ? lwc_committer_destroy(static_cast<lwc_committer*>(h.id))
                           : lwc_persistent_grid2_destroy(static_cast<lwc_persistent_grid2*>(h.id))) == LWC_OK);
  }
}

// ---------------------------------------------------------------------------------------------------
// F6

bool same(const lwc_contact& c, const lwc::Contact& d) {
  return c.a.slot == d.a.slot && c.a.generation == d.a.generation && c.b.slot == d.b.slot &&
         c.b.generation == d.b.generation && c.user_a == d.user_a && c.user_b == d.user_b;
}

// The pair predicate of both twins (E8): refuses pairs whose payloads sum to a multiple of 3.
bool cpp_pair_filter(void*, lwc::UserData lower, lwc::UserData higher) { return (lower + higher) % 3 != 0; }
int c_pair_filter(void*, uintptr_t lower, uintptr_t higher) { return (lower + higher) % 3 != 0 ? 1 : 0; }

lwc::Filter any_filter() {
  return *rc::gen::element(lwc::Filter{}, lwc::Filter{2, ~std::uint64_t{2}}, lwc::Filter{4, 1},
                           lwc::Filter{1, 0}, lwc::Filter{~std::uint64_t{0}, ~std::uint64_t{0}});
}

void assert_same_list(lwc_persistent_grid2* grid, int which, const std::vector<lwc::Contact>& want) {
  std::vector<lwc_contact> got(want.size() + 1);
  std::size_t count = 0;
  RC_ASSERT(lwc_persistent_grid2_events(grid, which, got.data(), got.size(), &count) == LWC_OK);
  RC_ASSERT(count == want.size());
  for (std::size_t i = 0; i < count; ++i) RC_ASSERT(same(got[i], want[i]));
}

// Random insert / move (teleport or swept) / remove / set_filter / set_user_data / refilter / update /
// query / raycast sequences, with payloads, filter bits, a pair predicate (half the cases), float boxes,
// invalid boxes and segments, stale and never-issued handles and tight budgets, on a C handle and a C++
// PersistentGrid<2>: the same codes, handles, events with their payloads, pairs, hits and boxes after
// every step.
LWC_PROP_SCALED(CApi, F6_PersistentGridAgreesWithCpp, 4, ()) {
  const double h = *rc::gen::element(0.5, 1.0, 2.0, 3.0);
  lwc_grid_config c = lwc_grid_config_default();
  c.cell_size = h;
  c.max_memberships = *rc::gen::element(std::int64_t{1} << 26, std::int64_t{40}, std::int64_t{8});
  c.max_pairs = *rc::gen::element(std::int64_t{1} << 26, std::int64_t{6}, std::int64_t{1});
  c.max_cells_per_box = *rc::gen::element(std::int64_t{4096}, std::int64_t{64});
  c.oversize = *rc::gen::element(0, 1);
  lwc::GridConfig cpp_config{.cell_size = *lwc::CellSize::create(h),
                             .max_cells_per_box = *lwc::CellBudget::create(c.max_cells_per_box),
                             .max_memberships = *lwc::MembershipBudget::create(c.max_memberships),
                             .max_pairs = *lwc::PairBudget::create(c.max_pairs),
                             .oversize = c.oversize == 0 ? lwc::Oversize::kReject : lwc::Oversize::kCoarserLevels};
  const bool predicate = *rc::gen::arbitrary<bool>();
  absl::StatusOr<lwc::PersistentGrid<2>> cpp = lwc::PersistentGrid<2>::create(
      cpp_config, predicate ? lwc::PairFilter{cpp_pair_filter, nullptr} : lwc::PairFilter{});
  RC_ASSERT(cpp.ok());
  lwc_persistent_grid2* grid = nullptr;
  RC_ASSERT(lwc_persistent_grid2_create(&c, predicate ? c_pair_filter : nullptr, nullptr, &grid) == LWC_OK);
  std::vector<lwc::Handle> handles;  // every handle issued (some stale later)
  const int steps = *rc::gen::inRange(1, 30);
  for (int step = 0; step < steps; ++step) {
    const int op = *rc::gen::weightedOneOf<int>({{4, rc::gen::just(0)}, {3, rc::gen::just(1)},
                                                 {1, rc::gen::just(2)}, {2, rc::gen::just(3)},
                                                 {1, rc::gen::just(4)}, {1, rc::gen::just(5)},
                                                 {1, rc::gen::just(6)}});
    const auto pick = [&] {
      if (handles.empty() || *rc::gen::inRange(0, 8) == 0) {
        return lwc::Handle{*rc::gen::inRange<std::uint32_t>(0, 5), *rc::gen::inRange<std::uint32_t>(0, 3)};
      }
      return handles[static_cast<std::size_t>(*rc::gen::inRange<int>(0, static_cast<int>(handles.size())))];
    };
    if (op == 0) {
      const lwc::Box2 b = *lwc::testing::any_box<2>(h);
      const lwc_box2 cb = to_c(b);
      const auto user = *rc::gen::inRange<uintptr_t>(0, 7);
      const lwc::Filter filter = any_filter();
      lwc_handle got = poisoned<lwc_handle>();
      const absl::StatusOr<lwc::Handle> want = cpp->insert(b, user, filter);
      // A box whose bounds are floats goes in as a float box half the time (E10: the same box).
      const std::optional<lwc_float_box2> fb = as_float_box(b);
      const lwc_filter cf{filter.group, filter.mask};
      const lwc_status s = fb && *rc::gen::arbitrary<bool>()
                               ? lwc_persistent_grid2_insertf(grid, &*fb, user, cf, &got)
                               : lwc_persistent_grid2_insert(grid, &cb, user, cf, &got);
      RC_ASSERT(s == code_of(want.status()));
      if (want.ok()) {
        RC_ASSERT(got.slot == want->slot && got.generation == want->generation);
        handles.push_back(*want);
      } else {
        RC_ASSERT(untouched(got));
      }
    } else if (op == 1) {
      const lwc::Handle target = pick();
      const lwc::Box2 b = *lwc::testing::any_box<2>(h);
      const lwc_box2 cb = to_c(b);
      const bool swept = *rc::gen::arbitrary<bool>();
      const absl::Status want = cpp->move(target, b, swept ? lwc::Motion::kSwept : lwc::Motion::kTeleport);
      RC_ASSERT(lwc_persistent_grid2_move(grid, {target.slot, target.generation}, &cb,
                                          swept ? LWC_MOTION_SWEPT : LWC_MOTION_TELEPORT) == code_of(want));
    } else if (op == 2) {
      const lwc::Handle target = pick();
      const absl::Status want = cpp->remove(target);
      RC_ASSERT(lwc_persistent_grid2_remove(grid, {target.slot, target.generation}) == code_of(want));
    } else if (op == 4) {  // change a payload or filter, or ask the predicate again (E8)
      const lwc::Handle target = pick();
      const lwc_handle ct{target.slot, target.generation};
      const auto user = *rc::gen::inRange<uintptr_t>(0, 7);
      const lwc::Filter filter = any_filter();
      switch (*rc::gen::inRange(0, 3)) {
        case 0:
          RC_ASSERT(lwc_persistent_grid2_set_user_data(grid, ct, user) == code_of(cpp->set_user_data(target, user)));
          break;
        case 1:
          RC_ASSERT(lwc_persistent_grid2_set_filter(grid, ct, {filter.group, filter.mask}) ==
                    code_of(cpp->set_filter(target, filter)));
          break;
        default:
          RC_ASSERT(lwc_persistent_grid2_refilter(grid, ct) == code_of(cpp->refilter(target)));
          break;
      }
      uintptr_t got_user = 99;
      lwc_filter got_filter = poisoned<lwc_filter>();
      const absl::StatusOr<lwc::UserData> want_user = cpp->user_data(target);
      const absl::StatusOr<lwc::Filter> want_filter = cpp->filter(target);
      RC_ASSERT(lwc_persistent_grid2_user_data(grid, ct, &got_user) == code_of(want_user.status()));
      RC_ASSERT(lwc_persistent_grid2_filter(grid, ct, &got_filter) == code_of(want_filter.status()));
      const bool user_right = want_user.ok() ? got_user == *want_user : got_user == 99u;
      const bool filter_right = want_filter.ok() ? got_filter.group == want_filter->group &&
                                                       got_filter.mask == want_filter->mask
                                                 : untouched(got_filter);
      RC_ASSERT(user_right);
      RC_ASSERT(filter_right);
    } else if (op == 5) {  // query: the C++ hits, by slot (E11)
      const lwc::Box2 probe = *lwc::testing::any_box<2>(h);
      const lwc_box2 cp = to_c(probe);
      std::vector<lwc_query_hit> want;
      const absl::Status s = cpp->query(probe, [&](lwc::Handle hh, lwc::UserData u) {
        want.push_back({{hh.slot, hh.generation}, u});
        return true;
      });
      std::sort(want.begin(), want.end(), [](const lwc_query_hit& a, const lwc_query_hit& b) {
        return a.handle.slot < b.handle.slot;
      });
      std::vector<lwc_query_hit> got(want.size() + 1, poisoned<lwc_query_hit>());
      std::size_t count = 0;
      RC_ASSERT(lwc_persistent_grid2_query(grid, &cp, got.data(), got.size(), &count) == code_of(s));
      if (s.ok()) {
        RC_ASSERT(count == want.size());
        for (std::size_t i = 0; i < count; ++i) {
          RC_ASSERT(got[i].handle.slot == want[i].handle.slot &&
                    got[i].handle.generation == want[i].handle.generation && got[i].user == want[i].user);
        }
      } else {
        for (const lwc_query_hit& hit : got) RC_ASSERT(untouched(hit));
      }
    } else if (op == 6) {  // raycast: the C++ hits, in order of entry (E9)
      const lwc::Box2 span = *lwc::testing::any_box<2>(h);
      const lwc_segment2 seg{{span.min[0], span.max[1]}, {span.max[0], span.min[1]}};
      std::vector<lwc_ray_hit> want;
      const absl::Status s = cpp->raycast(lwc::Segment<2>{{seg.from[0], seg.from[1]}, {seg.to[0], seg.to[1]}},
                                          [&](lwc::Handle hh, lwc::UserData u, double t) {
                                            want.push_back({{hh.slot, hh.generation}, u, t});
                                            return true;
                                          });
      std::vector<lwc_ray_hit> got(want.size(), poisoned<lwc_ray_hit>());
      std::size_t count = 0;
      RC_ASSERT(lwc_persistent_grid2_raycast(grid, &seg, got.data(), got.size(), &count) == code_of(s));
      if (s.ok()) {
        RC_ASSERT(count == want.size());
        for (std::size_t i = 0; i < count; ++i) {
          RC_ASSERT(got[i].handle.slot == want[i].handle.slot && got[i].user == want[i].user &&
                    std::bit_cast<std::uint64_t>(got[i].t) == std::bit_cast<std::uint64_t>(want[i].t));
        }
      }
    } else {
      lwc_update_stats stats = poisoned<lwc_update_stats>();
      const absl::StatusOr<lwc::ContactEvents> want = cpp->update();
      RC_ASSERT(lwc_persistent_grid2_update(grid, &stats) == code_of(want.status()));
      if (!want.ok()) {
        RC_ASSERT(untouched(stats));
        RC_ASSERT(std::string(lwc_last_error()) == want.status().message());
        continue;
      }
      RC_ASSERT(stats.began == want->stats.began && stats.ended == want->stats.ended &&
                stats.swept == want->stats.swept && stats.pairs == want->stats.pairs &&
                stats.memberships == want->stats.memberships && stats.dirty == want->stats.dirty);
      assert_same_list(grid, LWC_EVENTS_BEGAN, want->began);
      assert_same_list(grid, LWC_EVENTS_ENDED, want->ended);
      assert_same_list(grid, LWC_EVENTS_SWEPT, want->swept);
      const std::vector<lwc::Contact> pairs = cpp->pairs();
      std::vector<lwc_contact> got(pairs.size());
      std::size_t count = 0;
      RC_ASSERT(lwc_persistent_grid2_pairs(grid, got.data(), got.size(), &count) == LWC_OK);
      RC_ASSERT(count == pairs.size());
      for (std::size_t i = 0; i < count; ++i) RC_ASSERT(same(got[i], pairs[i]));
    }
    std::int64_t size = -1;
    std::size_t pending = 0;
    RC_ASSERT(lwc_persistent_grid2_size(grid, &size) == LWC_OK && size == cpp->size());
    RC_ASSERT(lwc_persistent_grid2_pending(grid, &pending) == LWC_OK && pending == cpp->pending());
  }
  const std::vector<lwc::Tracked<2>> boxes = cpp->boxes();
  std::vector<lwc_tracked2> got(boxes.size());
  std::size_t count = 0;
  RC_ASSERT(lwc_persistent_grid2_boxes(grid, got.data(), got.size(), &count) == LWC_OK && count == boxes.size());
  for (std::size_t i = 0; i < count; ++i) {
    RC_ASSERT(got[i].handle.slot == boxes[i].handle.slot && got[i].box.min[0] == boxes[i].box.min[0] &&
              got[i].box.max[1] == boxes[i].box.max[1]);
  }
  RC_ASSERT(lwc_persistent_grid2_destroy(grid) == LWC_OK);
}

struct Script {
  int calls = 0;
  int fail_at = -1;
  int code = LWC_OK;
};

int scripted_prepare(void* user, const lwc_chunk_run* run, std::uint64_t* snapshot) {
  auto* s = static_cast<Script*>(user);
  const int call = s->calls++;
  if (call == s->fail_at) return s->code;
  *snapshot = std::rotl(static_cast<std::uint64_t>(run->y), 17) ^ static_cast<std::uint64_t>(run->x_first);
  return LWC_OK;
}

// Random marks and commits (budgets, prepare failures with any int code) on a C committer and a C++
// Committer<uint64_t> with the same script: the same codes, reports, pending runs and published batches.
LWC_PROP_SCALED(CApi, F6_CommitterAgreesWithCpp, 4, ()) {
  const std::int64_t size = *rc::gen::element(std::int64_t{1}, std::int64_t{16}, std::int64_t{1000},
                                              lwc::testing::kInt64Max);
  lwc::Committer<std::uint64_t> cpp(*lwc::ChunkSize::create(size));
  lwc_committer* c = nullptr;
  RC_ASSERT(lwc_committer_create(size, &c) == LWC_OK);
  const int steps = *rc::gen::inRange(1, 30);
  for (int step = 0; step < steps; ++step) {
    if (*rc::gen::inRange(0, 3) != 0) {
      const lwc_int2 cell{*lwc::testing::any_int64(), *rc::gen::weightedOneOf<std::int64_t>(
                                                          {{3, rc::gen::inRange<std::int64_t>(-40, 40)},
                                                           {1, lwc::testing::any_int64()}})};
      cpp.mark({cell.x, cell.y});
      RC_ASSERT(lwc_committer_mark(c, cell) == LWC_OK);
      continue;
    }
    const std::int64_t budget = *rc::gen::weightedOneOf<std::int64_t>(
        {{3, rc::gen::just(LWC_RUN_BUDGET_UNLIMITED)}, {3, rc::gen::inRange<std::int64_t>(1, 4)},
         {1, rc::gen::element(std::int64_t{0}, std::int64_t{-1})}});
    Script script{.fail_at = *rc::gen::weightedOneOf<int>({{2, rc::gen::just(-1)}, {1, rc::gen::inRange(0, 4)}}),
                  .code = *rc::gen::element(1, 3, 9, 13, 16, 0x7fffffff, -5, 100)};
    Script twin = script;
    lwc_commit_report report = poisoned<lwc_commit_report>();
    const lwc_status got = lwc_committer_commit(c, scripted_prepare, &script, budget, &report);
    const absl::StatusOr<lwc::RunBudget> b = lwc::RunBudget::create(budget);
    if (!b.ok()) {
      RC_ASSERT(got == LWC_INVALID_ARGUMENT && untouched(report));
      continue;
    }
    const absl::StatusOr<lwc::CommitReport> want = cpp.commit(
        [&](const lwc::ChunkRun& run) -> absl::StatusOr<std::uint64_t> {
          const lwc_chunk_run r{run.y, run.x_first, run.x_last};
          std::uint64_t snapshot = 0;
          const int code = scripted_prepare(&twin, &r, &snapshot);
          if (code == LWC_OK) return snapshot;
          return absl::Status(code >= 1 && code <= 16 ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown,
                              "scripted failure");
        },
        *b);
    RC_ASSERT(got == code_of(want.status()));
    if (!want.ok()) {
      RC_ASSERT(untouched(report));
    } else {
      RC_ASSERT(report.sequence == want->sequence && report.generation == want->generation &&
                report.runs_published == want->runs_published && report.chunks_published == want->chunks_published &&
                report.chunks_cleared == want->chunks_cleared && report.chunks_pending == want->chunks_pending);
    }
    const auto batch = cpp.published();
    lwc_batch_info info;
    std::vector<lwc_batch_entry> entries(batch->entries.size());
    std::size_t count = 0;
    RC_ASSERT(lwc_committer_published(c, &info, entries.data(), entries.size(), &count) == LWC_OK);
    RC_ASSERT(info.sequence == batch->sequence && info.generation == batch->generation);
    RC_ASSERT(count == batch->entries.size());
    for (std::size_t i = 0; i < count; ++i) {
      RC_ASSERT(entries[i].snapshot == batch->entries[i].snapshot && entries[i].run.y == batch->entries[i].run.y &&
                entries[i].run.x_first == batch->entries[i].run.x_first &&
                entries[i].run.x_last == batch->entries[i].run.x_last);
    }
  }
  const std::vector<lwc::ChunkRun> runs = cpp.pending_runs();
  std::vector<lwc_chunk_run> got(runs.size());
  std::size_t count = 0;
  RC_ASSERT(lwc_committer_pending_runs(c, got.data(), got.size(), &count) == LWC_OK && count == runs.size());
  for (std::size_t i = 0; i < count; ++i) {
    RC_ASSERT(got[i].y == runs[i].y && got[i].x_first == runs[i].x_first && got[i].x_last == runs[i].x_last);
  }
  std::uint64_t generation = 0;
  RC_ASSERT(lwc_committer_generation(c, &generation) == LWC_OK && generation == cpp.generation());
  RC_ASSERT(lwc_committer_destroy(c) == LWC_OK);
}

}  // namespace
