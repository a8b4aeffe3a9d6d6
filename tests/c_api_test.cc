// SPDX-License-Identifier: MIT
// File: tests/c_api_test.cc
//
// The C API (capi/include/lwc.h) against its clauses F1-F6 (docs/c_api.md) and against the C++ API it
// wraps: the extremes by name, every entry point with NULL, buffers too small, stale and foreign handles,
// per-thread messages, and the worked examples of the stateful contracts through the C handles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lwc.h"
#include "support/poison.h"

import lwc;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

lwc_status code_of(const absl::Status& s) { return static_cast<lwc_status>(s.code()); }

// A byte pattern no call writes (tests/support/poison.h): fill an output, check it survived (F3, F4).
using lwc::testing::poisoned;
using lwc::testing::untouched;

TEST(CApi, AbiVersionOfHeaderAndLibraryAgree) {
  EXPECT_EQ(lwc_abi_version(), LWC_ABI_VERSION);
  EXPECT_STREQ(lwc_status_name(LWC_OUT_OF_RANGE), "LWC_OUT_OF_RANGE");  // F2
  EXPECT_STREQ(lwc_status_name(LWC_BUFFER_TOO_SMALL), "LWC_BUFFER_TOO_SMALL");
  EXPECT_STREQ(lwc_status_name(42), "LWC_UNKNOWN_CODE");
  EXPECT_STREQ(lwc_status_name(-1), "LWC_UNKNOWN_CODE");
  EXPECT_EQ(static_cast<int>(absl::StatusCode::kFailedPrecondition), LWC_FAILED_PRECONDITION);  // F1
  EXPECT_EQ(static_cast<int>(absl::StatusCode::kAborted), LWC_ABORTED);
  EXPECT_EQ(static_cast<int>(absl::StatusCode::kNotFound), LWC_NOT_FOUND);
}

// F1 at the named extremes: the C call and the C++ call agree on code and result.
TEST(CApi, F1_SplitAtTheInt64Extremes) {
  for (const std::int64_t x : {kMin, kMin + 1, std::int64_t{-1}, std::int64_t{0}, kMax - 1, kMax}) {
    for (const std::int64_t size : {std::int64_t{1}, std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 62,
                                    kMax, std::int64_t{0}, std::int64_t{-1}, kMin}) {
      lwc_chunk_point p = poisoned<lwc_chunk_point>();
      const lwc_status s = lwc_split(x, size, &p);
      const absl::StatusOr<lwc::ChunkSize> cpp = lwc::ChunkSize::create(size);
      ASSERT_EQ(s, code_of(cpp.status())) << x << " " << size;
      if (!cpp.ok()) {
        EXPECT_TRUE(untouched(p));  // F3
        continue;
      }
      const lwc::ChunkPoint q = lwc::split(x, *cpp);
      EXPECT_EQ(p.chunk, q.chunk);
      EXPECT_EQ(p.local, q.local);
    }
  }
  lwc_chunk_point p;
  ASSERT_EQ(lwc_split(-1, 1000, &p), LWC_OK);  // the truncating-division example: chunk -1, not 0 (D6)
  EXPECT_EQ(p.chunk, -1);
  EXPECT_EQ(p.local, 999);
  lwc_chunk_point3 p3;
  ASSERT_EQ(lwc_split3({kMin, kMax, -1}, 16, &p3), LWC_OK);
  EXPECT_EQ(p3.chunk.x, kMin / 16);
  EXPECT_EQ(p3.local.y, 15);
  EXPECT_EQ(p3.chunk.z, -1);
}

TEST(CApi, F1_CellOfAtNaNInfinitiesAndSignedZero) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  for (const double v : {kNaN, -kNaN, kInf, -kInf, -0.0, 0.0, -tiny, tiny, 0x1p63, -0x1p63, 1e300, -1e300,
                         std::numeric_limits<double>::max()}) {
    for (const double h : {0.5, 2.0, 1e-300, tiny, 0.0, -0.0, -1.0, kNaN, kInf}) {
      std::int64_t cell = 0x5a5a;
      const lwc_status s = lwc_cell_of(v, h, &cell);
      const absl::StatusOr<std::int64_t> cpp = lwc::cell_of(v, h);
      ASSERT_EQ(s, code_of(cpp.status())) << v << " " << h;
      if (cpp.ok()) {
        EXPECT_EQ(cell, *cpp);
      } else {
        EXPECT_EQ(cell, 0x5a5a);  // F3
        EXPECT_EQ(lwc_last_error(), cpp.status().message());  // F2
      }
    }
  }
  std::int64_t cell = 7;
  ASSERT_EQ(lwc_cell_of(-0.0, 0.5, &cell), LWC_OK);  // -0.0 is in cell 0 (D9)
  EXPECT_EQ(cell, 0);
  ASSERT_EQ(lwc_cell_of(-tiny, 2.0, &cell), LWC_OK);  // not floor(-0.0) = 0
  EXPECT_EQ(cell, -1);
}

TEST(CApi, F1_CoverAndCountOverTheWholeDomain) {
  lwc_chunk_span span = poisoned<lwc_chunk_span>();
  int nonempty = -1;
  ASSERT_EQ(lwc_cover_closed(kMin, kMax, 1, &span, &nonempty), LWC_OK);
  EXPECT_EQ(nonempty, 1);
  EXPECT_EQ(span.first, kMin);
  EXPECT_EQ(span.last, kMax);
  std::uint64_t n = 17;
  EXPECT_EQ(lwc_count(span, &n), LWC_OUT_OF_RANGE);  // 2^64 chunks (C6)
  EXPECT_EQ(n, 17u);                                   // F3
  ASSERT_EQ(lwc_cover(-1000, 0, 1000, &span, &nonempty), LWC_OK);  // [-1, -1], not [-1, 0]
  EXPECT_EQ(span.first, -1);
  EXPECT_EQ(span.last, -1);
  span = poisoned<lwc_chunk_span>();
  ASSERT_EQ(lwc_cover(kMin, kMin, 7, &span, &nonempty), LWC_OK);  // empty (C4)
  EXPECT_EQ(nonempty, 0);
  EXPECT_TRUE(untouched(span));
  nonempty = 5;
  EXPECT_EQ(lwc_cover(1, 0, 7, &span, &nonempty), LWC_INVALID_ARGUMENT);  // reversed
  EXPECT_EQ(nonempty, 5);
  EXPECT_EQ(lwc_count({3, 2}, &n), LWC_INVALID_ARGUMENT);  // a reversed span is no ChunkSpan
  lwc_chunk_box2 box;
  ASSERT_EQ(lwc_cover2({kMin, 0}, {kMax, 10}, 1, &box, &nonempty), LWC_OK);
  EXPECT_EQ(lwc_count2(box, &n), LWC_OUT_OF_RANGE);
  lwc_chunk_box3 box3;
  ASSERT_EQ(lwc_cover_closed3({0, 0, 0}, {9, 9, 9}, 10, &box3, &nonempty), LWC_OK);
  ASSERT_EQ(lwc_count3(box3, &n), LWC_OK);
  EXPECT_EQ(n, 1u);
}

TEST(CApi, F1_FindPairsAtExtremeBoxes) {
  // The centre-cell example: the wall and the prop overlap; a NaN bound is refused naming the box.
  const std::vector<lwc_box2> boxes = {{{0, 0}, {10, 2}}, {{9, 0.5}, {9.5, 1.5}}, {{-0.0, -1e300}, {0.0, 1e300}}};
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = 2.0;
  config.oversize = LWC_OVERSIZE_COARSER_LEVELS;
  std::vector<lwc_pair> pairs(8);
  std::size_t count = 0;
  lwc_stats stats;
  ASSERT_EQ(lwc_find_pairs2(boxes.data(), boxes.size(), &config, pairs.data(), pairs.size(), &count, &stats), LWC_OK)
      << lwc_last_error();
  std::vector<lwc::Box2> cpp_boxes;
  for (const lwc_box2& b : boxes) cpp_boxes.push_back({{b.min[0], b.min[1]}, {b.max[0], b.max[1]}});
  const absl::StatusOr<lwc::PairsResult> cpp = lwc::find_pairs(
      cpp_boxes, {.cell_size = lwc::CellSize::of<2.0>(), .oversize = lwc::Oversize::kCoarserLevels});
  ASSERT_TRUE(cpp.ok());
  ASSERT_EQ(count, cpp->pairs.size());
  for (std::size_t i = 0; i < count; ++i) {
    EXPECT_EQ(pairs[i].a, cpp->pairs[i].a);
    EXPECT_EQ(pairs[i].b, cpp->pairs[i].b);
  }
  EXPECT_EQ(stats.memberships, cpp->stats.memberships);
  EXPECT_EQ(stats.levels, cpp->stats.levels);

  std::vector<lwc_box2> bad = boxes;
  bad[1].max[0] = kNaN;
  count = 99;
  stats = poisoned<lwc_stats>();
  EXPECT_EQ(lwc_find_pairs2(bad.data(), bad.size(), &config, pairs.data(), pairs.size(), &count, &stats),
            LWC_INVALID_ARGUMENT);
  EXPECT_EQ(count, 99u);  // F3
  EXPECT_TRUE(untouched(stats));
  EXPECT_NE(std::string(lwc_last_error()).find("box 1"), std::string::npos) << lwc_last_error();  // F2

  config.oversize = LWC_OVERSIZE_REJECT;
  config.max_cells_per_box = 4;
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), boxes.size(), &config, pairs.data(), pairs.size(), &count, nullptr),
            LWC_RESOURCE_EXHAUSTED);
  config.max_cells_per_box = 0;  // CellBudget::create refuses it (B6)
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), 0, &config, nullptr, 0, &count, nullptr), LWC_INVALID_ARGUMENT);
  config = lwc_grid_config_default();
  config.oversize = 7;
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), 0, &config, nullptr, 0, &count, nullptr), LWC_INVALID_ARGUMENT);
  config.oversize = LWC_OVERSIZE_REJECT;
  config.cell_size = -0.0;
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), 0, &config, nullptr, 0, &count, nullptr), LWC_INVALID_ARGUMENT);
  config.cell_size = 1.0;
  ASSERT_EQ(lwc_find_pairs2(nullptr, 0, &config, nullptr, 0, &count, nullptr), LWC_OK);  // no boxes: no pairs
  EXPECT_EQ(count, 0u);
}

TEST(CApi, F1_SplitAllAndCellsOfAreTheSingleForms) {
  const std::vector<std::int64_t> xs = {kMin, -1001, -1000, -999, -1, 0, 999, 1000, kMax};
  for (const std::int64_t size : {std::int64_t{1000}, std::int64_t{1024}, kMax}) {
    std::vector<lwc_chunk_point> out(xs.size());
    ASSERT_EQ(lwc_split_all(xs.data(), xs.size(), size, out.data()), LWC_OK);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      lwc_chunk_point one;
      ASSERT_EQ(lwc_split(xs[i], size, &one), LWC_OK);
      EXPECT_EQ(out[i].chunk, one.chunk);
      EXPECT_EQ(out[i].local, one.local);
    }
  }
  const std::vector<double> vs = {-0.0, -1e-300, 0.5, 1e15, -std::numeric_limits<double>::denorm_min()};
  std::vector<std::int64_t> cells(vs.size(), 0);
  ASSERT_EQ(lwc_cell_of_all(vs.data(), vs.size(), 0.5, cells.data()), LWC_OK);
  for (std::size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(cells[i], *lwc::cell_of(vs[i], 0.5));
  // F3: a NaN at the end is found before anything is written, although C++ cell_of_all may write a prefix.
  std::vector<double> with_nan = vs;
  with_nan.push_back(kNaN);
  std::vector<std::int64_t> untouched_cells(with_nan.size(), 77);
  EXPECT_EQ(lwc_cell_of_all(with_nan.data(), with_nan.size(), 0.5, untouched_cells.data()), LWC_INVALID_ARGUMENT);
  for (const std::int64_t c : untouched_cells) EXPECT_EQ(c, 77);
  EXPECT_NE(std::string(lwc_last_error()).find("input 5"), std::string::npos) << lwc_last_error();
}

// F3: every entry point refuses a NULL where a pointer is needed, and writes nothing.
TEST(CApi, F3_EveryEntryPointRefusesNull) {
  lwc_grid_config config = lwc_grid_config_default();
  const lwc_view_config view_config = lwc_view_config_default();
  const lwc_box2 box2{{0, 0}, {1, 1}};
  const lwc_box3 box3{{0, 0, 0}, {1, 1, 1}};
  const std::int64_t cell[3] = {0, 0, 0};
  const double offset[3] = {0, 0, 0};
  lwc_persistent_grid2* pg2 = nullptr;
  lwc_persistent_grid3* pg3 = nullptr;
  lwc_origin_coordinator2* v2 = nullptr;
  lwc_origin_coordinator3* v3 = nullptr;
  lwc_committer* committer = nullptr;
  lwc_grid2* g2 = nullptr;
  lwc_grid3* g3 = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &pg2), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_create(&config, nullptr, nullptr, &pg3), LWC_OK);
  ASSERT_EQ(lwc_origin_coordinator2_create(16, &view_config, cell, 0, &v2), LWC_OK);
  ASSERT_EQ(lwc_origin_coordinator3_create(16, &view_config, cell, 0, &v3), LWC_OK);
  ASSERT_EQ(lwc_committer_create(16, &committer), LWC_OK);
  ASSERT_EQ(lwc_grid2_create(&box2, 1, &config, &g2), LWC_OK);
  ASSERT_EQ(lwc_grid3_create(&box3, 1, &config, &g3), LWC_OK);
  lwc_handle h2{};
  lwc_handle h3{};
  ASSERT_EQ(lwc_persistent_grid2_insert(pg2, &box2, 0, lwc_filter_default(), &h2), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_insert(pg3, &box3, 0, lwc_filter_default(), &h3), LWC_OK);
  lwc_world_position2 p2{};
  lwc_world_position3 p3{};
  lwc_rebase_plan2 plan2{};
  lwc_rebase_plan3 plan3{};
  lwc_late_result3 late3{};
  std::size_t count = 0;
  lwc_contact contact;
  auto prepare = [](void*, const lwc_chunk_run*, std::uint64_t* snapshot) -> int {
    *snapshot = 1;
    return LWC_OK;
  };
  lwc_batch_info info;
  const lwc_filter filter = lwc_filter_default();
  const lwc_float_box3 fbox3{{0, 0, 0}, {1, 1, 1}};
  const lwc_segment2 seg2{{0, 0}, {1, 1}};
  const lwc_segment3 seg3{{0, 0, 0}, {1, 1, 1}};
  lwc_query_hit hits[1];
  lwc_ray_hit rays[2];
  const lwc_query_fn visit = [](void*, lwc_handle, uintptr_t) { return 1; };
  const lwc_ray_fn ray = [](void*, lwc_handle, uintptr_t, double) { return 1; };
  lwc_pair_list* list = nullptr;
  ASSERT_EQ(lwc_pair_list_create(&list), LWC_OK);
  const lwc_pair* listed = nullptr;
  const lwc_box_view view{box2.min, box2.max, 1, sizeof box2, LWC_REAL_DOUBLE};
  const lwc_box_view bad_view{box2.min, box2.max, 1, sizeof box2, 2};
  const std::vector<std::pair<const char*, std::function<lwc_status()>>> calls = {
      {"split", [&] { return lwc_split(1, 2, nullptr); }},
      {"split2", [&] { return lwc_split2({1, 2}, 2, nullptr); }},
      {"split3", [&] { return lwc_split3({1, 2, 3}, 2, nullptr); }},
      {"split_all xs", [&] { return lwc_split_all(nullptr, 1, 2, nullptr); }},
      {"cell_of", [&] { return lwc_cell_of(1, 2, nullptr); }},
      {"cell_of_all", [&] { return lwc_cell_of_all(nullptr, 2, 1.0, nullptr); }},
      {"cover", [&] { return lwc_cover(0, 1, 2, nullptr, nullptr); }},
      {"cover nonempty", [&] { lwc_chunk_span s; return lwc_cover(0, 1, 2, &s, nullptr); }},
      {"cover_closed", [&] { return lwc_cover_closed(0, 1, 2, nullptr, nullptr); }},
      {"cover2", [&] { return lwc_cover2({0, 0}, {1, 1}, 2, nullptr, nullptr); }},
      {"cover3", [&] { return lwc_cover3({0, 0, 0}, {1, 1, 1}, 2, nullptr, nullptr); }},
      {"cover_closed2", [&] { return lwc_cover_closed2({0, 0}, {1, 1}, 2, nullptr, nullptr); }},
      {"cover_closed3", [&] { return lwc_cover_closed3({0, 0, 0}, {1, 1, 1}, 2, nullptr, nullptr); }},
      {"count", [&] { return lwc_count({0, 1}, nullptr); }},
      {"count2", [&] { return lwc_count2({{0, 1}, {0, 1}}, nullptr); }},
      {"count3", [&] { return lwc_count3({{0, 1}, {0, 1}, {0, 1}}, nullptr); }},
      {"find_pairs2 boxes", [&] { return lwc_find_pairs2(nullptr, 1, &config, nullptr, 0, &count, nullptr); }},
      {"find_pairs2 config", [&] { return lwc_find_pairs2(&box2, 1, nullptr, nullptr, 0, &count, nullptr); }},
      {"find_pairs2 count", [&] { return lwc_find_pairs2(&box2, 1, &config, nullptr, 0, nullptr, nullptr); }},
      {"find_pairs2 pairs", [&] { return lwc_find_pairs2(&box2, 1, &config, nullptr, 4, &count, nullptr); }},
      {"find_pairs3", [&] { return lwc_find_pairs3(nullptr, 1, &config, nullptr, 0, &count, nullptr); }},
      {"grid2_create", [&] { return lwc_grid2_create(&box2, 1, &config, nullptr); }},
      {"grid3_create", [&] { return lwc_grid3_create(&box3, 1, nullptr, &g3); }},
      {"grid2_query", [&] { return lwc_grid2_query(g2, nullptr, nullptr, 0, &count); }},
      {"grid3_query", [&] { return lwc_grid3_query(g3, &box3, nullptr, 0, nullptr); }},
      {"persistent_grid2_create", [&] { return lwc_persistent_grid2_create(&config, nullptr, nullptr, nullptr); }},
      {"persistent_grid3_create", [&] { return lwc_persistent_grid3_create(nullptr, nullptr, nullptr, &pg3); }},
      {"persistent_grid2_insert", [&] { return lwc_persistent_grid2_insert(pg2, &box2, 0, filter, nullptr); }},
      {"persistent_grid3_insert", [&] { return lwc_persistent_grid3_insert(pg3, nullptr, 0, filter, &h3); }},
      {"persistent_grid2_move", [&] { return lwc_persistent_grid2_move(pg2, h2, nullptr, LWC_MOTION_SWEPT); }},
      {"persistent_grid3_move", [&] { return lwc_persistent_grid3_move(pg3, h3, nullptr, LWC_MOTION_TELEPORT); }},
      {"persistent_grid2_move motion", [&] { return lwc_persistent_grid2_move(pg2, h2, &box2, 2); }},
      {"persistent_grid2_events", [&] { return lwc_persistent_grid2_events(pg2, LWC_EVENTS_BEGAN, nullptr, 0, nullptr); }},
      {"persistent_grid3_events which", [&] { return lwc_persistent_grid3_events(pg3, 3, &contact, 1, &count); }},
      {"persistent_grid2_pairs", [&] { return lwc_persistent_grid2_pairs(pg2, nullptr, 1, &count); }},
      {"persistent_grid3_pairs", [&] { return lwc_persistent_grid3_pairs(pg3, nullptr, 0, nullptr); }},
      {"persistent_grid2_boxes", [&] { return lwc_persistent_grid2_boxes(pg2, nullptr, 0, nullptr); }},
      {"persistent_grid3_boxes", [&] { return lwc_persistent_grid3_boxes(pg3, nullptr, 2, &count); }},
      {"persistent_grid2_box", [&] { return lwc_persistent_grid2_box(pg2, h2, nullptr); }},
      {"persistent_grid3_box", [&] { return lwc_persistent_grid3_box(pg3, h3, nullptr); }},
      {"persistent_grid2_size", [&] { return lwc_persistent_grid2_size(pg2, nullptr); }},
      {"persistent_grid2_insertf", [&] { return lwc_persistent_grid2_insertf(pg2, nullptr, 0, filter, &h2); }},
      {"persistent_grid3_insertf out", [&] { return lwc_persistent_grid3_insertf(pg3, &fbox3, 0, filter, nullptr); }},
      {"persistent_grid2_movef", [&] { return lwc_persistent_grid2_movef(pg2, h2, nullptr, LWC_MOTION_TELEPORT); }},
      {"persistent_grid3_movef motion", [&] { return lwc_persistent_grid3_movef(pg3, h3, &fbox3, -1); }},
      {"persistent_grid2_user_data", [&] { return lwc_persistent_grid2_user_data(pg2, h2, nullptr); }},
      {"persistent_grid3_filter", [&] { return lwc_persistent_grid3_filter(pg3, h3, nullptr); }},
      {"persistent_grid2_query box", [&] { return lwc_persistent_grid2_query(pg2, nullptr, hits, 1, &count); }},
      {"persistent_grid2_query hits", [&] { return lwc_persistent_grid2_query(pg2, &box2, nullptr, 1, &count); }},
      {"persistent_grid3_query count", [&] { return lwc_persistent_grid3_query(pg3, &box3, hits, 1, nullptr); }},
      {"persistent_grid2_queryf", [&] { return lwc_persistent_grid2_queryf(pg2, nullptr, hits, 1, &count); }},
      {"persistent_grid2_query_each fn", [&] { return lwc_persistent_grid2_query_each(pg2, &box2, nullptr, nullptr); }},
      {"persistent_grid3_query_each box",
       [&] { return lwc_persistent_grid3_query_each(pg3, nullptr, visit, nullptr); }},
      {"persistent_grid2_raycast", [&] { return lwc_persistent_grid2_raycast(pg2, nullptr, rays, 1, &count); }},
      {"persistent_grid3_raycast out", [&] { return lwc_persistent_grid3_raycast(pg3, &seg3, nullptr, 2, &count); }},
      {"persistent_grid2_raycast_each",
       [&] { return lwc_persistent_grid2_raycast_each(pg2, &seg2, nullptr, nullptr); }},
      {"persistent_grid3_raycast_each seg",
       [&] { return lwc_persistent_grid3_raycast_each(pg3, nullptr, ray, nullptr); }},
      {"pair_list_create", [&] { return lwc_pair_list_create(nullptr); }},
      {"pair_list_pairs", [&] { return lwc_pair_list_pairs(list, nullptr, &count); }},
      {"pair_list_pairs count", [&] { return lwc_pair_list_pairs(list, &listed, nullptr); }},
      {"find_pairs2_view boxes", [&] { return lwc_find_pairs2_view(nullptr, &config, list, nullptr); }},
      {"find_pairs3_view config", [&] { return lwc_find_pairs3_view(&view, nullptr, list, nullptr); }},
      {"find_pairs2_view real", [&] { return lwc_find_pairs2_view(&bad_view, &config, list, nullptr); }},
      {"persistent_grid3_size", [&] { return lwc_persistent_grid3_size(pg3, nullptr); }},
      {"persistent_grid2_pending", [&] { return lwc_persistent_grid2_pending(pg2, nullptr); }},
      {"persistent_grid3_pending", [&] { return lwc_persistent_grid3_pending(pg3, nullptr); }},
      {"world_grid_normalize2", [&] { return lwc_world_grid_normalize2(16, nullptr, offset, &p2); }},
      {"world_grid_normalize3", [&] { return lwc_world_grid_normalize3(16, cell, nullptr, &p3); }},
      {"world_grid_normalize2 out", [&] { return lwc_world_grid_normalize2(16, cell, offset, nullptr); }},
      {"origin_coordinator2_create", [&] { return lwc_origin_coordinator2_create(16, nullptr, cell, 0, &v2); }},
      {"origin_coordinator3_create", [&] { return lwc_origin_coordinator3_create(16, &view_config, nullptr, 0, &v3); }},
      {"origin_coordinator2_create out", [&] { return lwc_origin_coordinator2_create(16, &view_config, cell, 0, nullptr); }},
      {"origin_coordinator2_load", [&] { return lwc_origin_coordinator2_load(v2, nullptr); }},
      {"origin_coordinator3_unload", [&] { return lwc_origin_coordinator3_unload(v3, nullptr); }},
      {"origin_coordinator2_is_loaded", [&] { return lwc_origin_coordinator2_is_loaded(v2, cell, nullptr); }},
      {"origin_coordinator3_origin", [&] { return lwc_origin_coordinator3_origin(v3, nullptr, nullptr); }},
      {"origin_coordinator2_plan", [&] { return lwc_origin_coordinator2_plan(v2, &p2, &plan2, nullptr); }},
      {"origin_coordinator3_plan", [&] { return lwc_origin_coordinator3_plan(v3, nullptr, &plan3, nullptr); }},
      {"origin_coordinator2_commit", [&] { return lwc_origin_coordinator2_commit(v2, nullptr, nullptr); }},
      {"origin_coordinator3_commit", [&] { return lwc_origin_coordinator3_commit(v3, &plan3, nullptr); }},
      {"origin_coordinator2_to_render", [&] { return lwc_origin_coordinator2_to_render(v2, &p2, nullptr); }},
      {"origin_coordinator3_to_render", [&] { return lwc_origin_coordinator3_to_render(v3, nullptr, nullptr); }},
      {"origin_coordinator2_start_late", [&] { return lwc_origin_coordinator2_start_late(v2, &p2, 0, nullptr); }},
      {"origin_coordinator3_start_late kind", [&] { return lwc_origin_coordinator3_start_late(v3, &p3, 2, &late3); }},
      {"origin_coordinator2_place_late", [&] { return lwc_origin_coordinator2_place_late(v2, nullptr, nullptr); }},
      {"origin_coordinator3_place_late", [&] { return lwc_origin_coordinator3_place_late(v3, &late3, nullptr); }},
      {"committer_create", [&] { return lwc_committer_create(16, nullptr); }},
      {"committer_chunk_of", [&] { return lwc_committer_chunk_of(committer, {1, 1}, nullptr); }},
      {"committer_pending_chunks", [&] { return lwc_committer_pending_chunks(committer, nullptr); }},
      {"committer_pending_runs", [&] { return lwc_committer_pending_runs(committer, nullptr, 3, &count); }},
      {"committer_generation", [&] { return lwc_committer_generation(committer, nullptr); }},
      {"committer_commit", [&] { return lwc_committer_commit(committer, nullptr, nullptr, 1, nullptr); }},
      {"committer_published", [&] { return lwc_committer_published(committer, nullptr, nullptr, 0, &count); }},
      {"committer_published count", [&] { return lwc_committer_published(committer, &info, nullptr, 0, nullptr); }},
  };
  ASSERT_EQ(lwc_committer_mark(committer, {3, 3}), LWC_OK);
  for (const auto& [name, call] : calls) {
    EXPECT_EQ(call(), LWC_INVALID_ARGUMENT) << name;
    EXPECT_NE(std::string(lwc_last_error()).find("(F3)"), std::string::npos) << name << ": " << lwc_last_error();
  }
  // Nothing changed: the grid still has its one pending box, the committer its one chunk (F3).
  std::size_t pending = 0;
  ASSERT_EQ(lwc_persistent_grid2_pending(pg2, &pending), LWC_OK);
  EXPECT_EQ(pending, 1u);
  ASSERT_EQ(lwc_committer_pending_chunks(committer, &pending), LWC_OK);
  EXPECT_EQ(pending, 1u);
  ASSERT_EQ(lwc_committer_published(committer, &info, nullptr, 0, &count), LWC_OK);
  EXPECT_EQ(info.sequence, 0u);
  ASSERT_EQ(lwc_committer_commit(committer, prepare, nullptr, LWC_RUN_BUDGET_UNLIMITED, nullptr), LWC_OK);
  EXPECT_EQ(lwc_grid2_destroy(g2), LWC_OK);
  EXPECT_EQ(lwc_grid3_destroy(g3), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(pg2), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid3_destroy(pg3), LWC_OK);
  EXPECT_EQ(lwc_origin_coordinator2_destroy(v2), LWC_OK);
  EXPECT_EQ(lwc_origin_coordinator3_destroy(v3), LWC_OK);
  EXPECT_EQ(lwc_committer_destroy(committer), LWC_OK);
  EXPECT_EQ(lwc_pair_list_destroy(list), LWC_OK);
}

// F4: a buffer too small gets the count needed and nothing else; exactly that many then succeeds.
TEST(CApi, F4_BufferTooSmallReportsTheCountNeeded) {
  std::vector<lwc_box2> boxes;
  for (int i = 0; i < 6; ++i) boxes.push_back({{0, 0}, {1.0 + i, 1.0}});  // all overlap: 15 pairs
  const lwc_grid_config config = lwc_grid_config_default();
  std::vector<lwc_pair> pairs(14, poisoned<lwc_pair>());
  std::size_t count = 0;
  lwc_stats stats = poisoned<lwc_stats>();
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), boxes.size(), &config, pairs.data(), pairs.size(), &count, &stats),
            LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 15u);
  for (const lwc_pair& p : pairs) EXPECT_TRUE(untouched(p));
  EXPECT_TRUE(untouched(stats));
  EXPECT_NE(std::string(lwc_last_error()).find("(F4)"), std::string::npos);
  count = 0;
  EXPECT_EQ(lwc_find_pairs2(boxes.data(), boxes.size(), &config, nullptr, 0, &count, nullptr), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 15u);
  pairs.resize(15);
  ASSERT_EQ(lwc_find_pairs2(boxes.data(), boxes.size(), &config, pairs.data(), pairs.size(), &count, &stats), LWC_OK);
  EXPECT_EQ(count, 15u);
  EXPECT_EQ(stats.pairs, 15);
  EXPECT_EQ(pairs.front().a, 0u);
  EXPECT_EQ(pairs.back().b, 5u);

  lwc_grid2* grid = nullptr;
  ASSERT_EQ(lwc_grid2_create(boxes.data(), boxes.size(), &config, &grid), LWC_OK);
  std::uint32_t hits[2] = {7, 7};
  const lwc_box2 probe{{0.5, 0.5}, {0.5, 0.5}};
  EXPECT_EQ(lwc_grid2_query(grid, &probe, hits, 2, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(hits[0], 7u);
  std::uint32_t all[6];
  ASSERT_EQ(lwc_grid2_query(grid, &probe, all, 6, &count), LWC_OK);
  EXPECT_EQ(all[5], 5u);
  EXPECT_EQ(lwc_grid2_destroy(grid), LWC_OK);

  lwc_persistent_grid2* pg = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &pg), LWC_OK);
  for (const lwc_box2& b : boxes) {
    lwc_handle h;
    ASSERT_EQ(lwc_persistent_grid2_insert(pg, &b, 0, lwc_filter_default(), &h), LWC_OK);
  }
  lwc_update_stats us;
  ASSERT_EQ(lwc_persistent_grid2_update(pg, &us), LWC_OK);
  EXPECT_EQ(us.began, 15);
  lwc_contact one = poisoned<lwc_contact>();
  EXPECT_EQ(lwc_persistent_grid2_events(pg, LWC_EVENTS_BEGAN, &one, 1, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 15u);
  EXPECT_TRUE(untouched(one));
  EXPECT_EQ(lwc_persistent_grid2_pairs(pg, &one, 1, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 15u);
  lwc_tracked2 tracked = poisoned<lwc_tracked2>();
  EXPECT_EQ(lwc_persistent_grid2_boxes(pg, &tracked, 1, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 6u);
  EXPECT_TRUE(untouched(tracked));
  ASSERT_EQ(lwc_persistent_grid2_events(pg, LWC_EVENTS_ENDED, nullptr, 0, &count), LWC_OK);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(lwc_persistent_grid2_destroy(pg), LWC_OK);

  lwc_committer* c = nullptr;
  ASSERT_EQ(lwc_committer_create(16, &c), LWC_OK);
  for (std::int64_t y = 0; y < 3; ++y) ASSERT_EQ(lwc_committer_mark(c, {0, y * 16}), LWC_OK);
  lwc_chunk_run run = poisoned<lwc_chunk_run>();
  EXPECT_EQ(lwc_committer_pending_runs(c, &run, 1, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 3u);
  EXPECT_TRUE(untouched(run));
  ASSERT_EQ(lwc_committer_commit(
                c, [](void*, const lwc_chunk_run* r, std::uint64_t* s) -> int { *s = static_cast<std::uint64_t>(r->y); return LWC_OK; },
                nullptr, LWC_RUN_BUDGET_UNLIMITED, nullptr),
            LWC_OK);
  lwc_batch_info info = poisoned<lwc_batch_info>();
  lwc_batch_entry entries[3];
  EXPECT_EQ(lwc_committer_published(c, &info, entries, 2, &count), LWC_BUFFER_TOO_SMALL);
  EXPECT_EQ(count, 3u);
  EXPECT_TRUE(untouched(info));
  ASSERT_EQ(lwc_committer_published(c, &info, entries, 3, &count), LWC_OK);
  EXPECT_EQ(info.sequence, 1u);
  EXPECT_EQ(entries[2].snapshot, 2u);
  EXPECT_EQ(lwc_committer_destroy(c), LWC_OK);
}

// F5: handles are ids; a destroyed, foreign, never-issued or wrong-kind handle is refused.
TEST(CApi, F5_StaleForeignAndWrongKindHandlesAreRefused) {
  const lwc_grid_config config = lwc_grid_config_default();
  lwc_persistent_grid2* a = nullptr;
  lwc_persistent_grid2* b = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &a), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &b), LWC_OK);
  EXPECT_NE(a, b);
  EXPECT_EQ(lwc_persistent_grid2_destroy(a), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(a), LWC_INVALID_ARGUMENT);  // destroyed once
  EXPECT_NE(std::string(lwc_last_error()).find("(F5)"), std::string::npos);
  std::int64_t size = 5;
  EXPECT_EQ(lwc_persistent_grid2_size(a, &size), LWC_INVALID_ARGUMENT);
  EXPECT_EQ(size, 5);
  ASSERT_EQ(lwc_persistent_grid2_size(b, &size), LWC_OK);  // the other handle is untouched
  EXPECT_EQ(size, 0);
  lwc_persistent_grid2* c = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &c), LWC_OK);
  EXPECT_NE(c, a);  // never reused
  EXPECT_EQ(lwc_persistent_grid2_update(nullptr, nullptr), LWC_INVALID_ARGUMENT);
  EXPECT_EQ(lwc_persistent_grid2_destroy(nullptr), LWC_INVALID_ARGUMENT);
  int local = 0;
  EXPECT_EQ(lwc_persistent_grid2_update(reinterpret_cast<lwc_persistent_grid2*>(&local), nullptr),
            LWC_INVALID_ARGUMENT);  // a pointer that was never a handle is not dereferenced
  EXPECT_EQ(lwc_persistent_grid3_update(reinterpret_cast<lwc_persistent_grid3*>(b), nullptr),
            LWC_INVALID_ARGUMENT);  // a 2D grid is not a 3D grid
  EXPECT_EQ(lwc_committer_mark(reinterpret_cast<lwc_committer*>(b), {0, 0}), LWC_INVALID_ARGUMENT);
  EXPECT_EQ(lwc_committer_destroy(reinterpret_cast<lwc_committer*>(b)), LWC_INVALID_ARGUMENT);
  ASSERT_EQ(lwc_persistent_grid2_size(b, &size), LWC_OK);  // the wrong-kind destroy did nothing
  EXPECT_EQ(lwc_persistent_grid2_destroy(b), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(c), LWC_OK);
}

// F2: the message is per thread; another thread's failure does not replace it.
TEST(CApi, F2_MessagesArePerThread) {
  lwc_chunk_point p;
  ASSERT_EQ(lwc_split(1, 0, &p), LWC_INVALID_ARGUMENT);
  const std::string mine = lwc_last_error();
  EXPECT_EQ(mine, lwc::ChunkSize::create(0).status().message());  // "chunk size 0 is not positive (D5)"
  std::string theirs;
  std::thread other([&] {
    std::int64_t cell;
    EXPECT_EQ(lwc_cell_of(kNaN, 1.0, &cell), LWC_INVALID_ARGUMENT);
    theirs = lwc_last_error();
  });
  other.join();
  EXPECT_EQ(lwc_last_error(), mine);
  EXPECT_NE(theirs, mine);
  ASSERT_EQ(lwc_split(1, 3, &p), LWC_OK);
  EXPECT_EQ(lwc_last_error(), mine);  // a success keeps the last failure's message
}

// F6: the persistent grid example of lwc.broadphase (wall and prop) through the C handles.
TEST(CApi, F6_PersistentGridWallAndProp) {
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = 2.0;
  lwc_persistent_grid2* grid = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &grid), LWC_OK);
  const lwc_box2 wall{{0, 0}, {10, 2}};
  const lwc_box2 prop_far{{12, 0}, {13, 1}};
  const lwc_box2 prop_near{{9, 0}, {10, 1}};
  lwc_handle w;
  lwc_handle p;
  ASSERT_EQ(lwc_persistent_grid2_insert(grid, &wall, 0, lwc_filter_default(), &w), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_insert(grid, &prop_far, 0, lwc_filter_default(), &p), LWC_OK);
  lwc_update_stats stats;
  ASSERT_EQ(lwc_persistent_grid2_update(grid, &stats), LWC_OK);
  EXPECT_EQ(stats.began, 0);
  ASSERT_EQ(lwc_persistent_grid2_move(grid, p, &prop_near, LWC_MOTION_TELEPORT), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_update(grid, &stats), LWC_OK);
  lwc_contact began[2];
  std::size_t count = 0;
  ASSERT_EQ(lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began, 2, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(began[0].a.slot, w.slot);
  EXPECT_EQ(began[0].b.slot, p.slot);
  ASSERT_EQ(lwc_persistent_grid2_remove(grid, p), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_remove(grid, p), LWC_NOT_FOUND);  // stale at once (E3)
  lwc_box2 got = poisoned<lwc_box2>();
  EXPECT_EQ(lwc_persistent_grid2_box(grid, p, &got), LWC_NOT_FOUND);
  EXPECT_TRUE(untouched(got));  // F3
  ASSERT_EQ(lwc_persistent_grid2_update(grid, nullptr), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_events(grid, LWC_EVENTS_ENDED, began, 2, &count), LWC_OK);
  EXPECT_EQ(count, 1u);
  // A budget refusal changes nothing (E4): the insert stays pending.
  config.max_memberships = 1;
  lwc_persistent_grid2* tight = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &tight), LWC_OK);
  lwc_handle t;
  ASSERT_EQ(lwc_persistent_grid2_insert(tight, &wall, 0, lwc_filter_default(), &t), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_update(tight, &stats), LWC_RESOURCE_EXHAUSTED);
  std::size_t pending = 0;
  ASSERT_EQ(lwc_persistent_grid2_pending(tight, &pending), LWC_OK);
  EXPECT_EQ(pending, 1u);
  EXPECT_EQ(lwc_persistent_grid2_destroy(tight), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(grid), LWC_OK);
}

// F6: the plan/commit and late-chunk floating-origin examples through the C handles (R6-R9).
TEST(CApi, F6_OriginCoordinatorPlanCommitAndLateResults) {
  const lwc_view_config config = lwc_view_config_default();
  const std::int64_t origin[2] = {0, 0};
  lwc_origin_coordinator2* view = nullptr;
  ASSERT_EQ(lwc_origin_coordinator2_create(1024, &config, origin, 0, &view), LWC_OK);
  const std::int64_t cell[2] = {5, 0};
  const double offset[2] = {512.0, -1e-17};
  lwc_world_position2 observer;
  ASSERT_EQ(lwc_world_grid_normalize2(1024, cell, offset, &observer), LWC_OK);
  EXPECT_EQ(observer.cell[1], 0);  // -1e-17 rounds to cell 0's origin (R1)
  EXPECT_EQ(observer.offset[1], 0.0);
  lwc_late_result2 late;
  ASSERT_EQ(lwc_origin_coordinator2_start_late(view, &observer, LWC_LATE_RELOCATABLE, &late), LWC_OK);
  lwc_late_result2 baked;
  ASSERT_EQ(lwc_origin_coordinator2_start_late(view, &observer, LWC_LATE_BAKED_LOCAL, &baked), LWC_OK);
  lwc_rebase_plan2 plan = poisoned<lwc_rebase_plan2>();
  int planned = -1;
  EXPECT_EQ(lwc_origin_coordinator2_plan(view, &observer, &plan, &planned), LWC_FAILED_PRECONDITION);  // R6
  EXPECT_EQ(planned, -1);
  EXPECT_TRUE(untouched(plan));
  for (std::int64_t x = 4; x <= 6; ++x) {
    for (std::int64_t y = -1; y <= 1; ++y) {
      const std::int64_t c[2] = {x, y};
      ASSERT_EQ(lwc_origin_coordinator2_load(view, c), LWC_OK);
    }
  }
  ASSERT_EQ(lwc_origin_coordinator2_plan(view, &observer, &plan, &planned), LWC_OK);
  ASSERT_EQ(planned, 1);
  EXPECT_EQ(plan.target[0], 5);
  const std::int64_t corner[2] = {6, 1};
  ASSERT_EQ(lwc_origin_coordinator2_unload(view, corner), LWC_OK);
  lwc_rebased2 done = poisoned<lwc_rebased2>();
  EXPECT_EQ(lwc_origin_coordinator2_commit(view, &plan, &done), LWC_FAILED_PRECONDITION);  // caught at commit
  EXPECT_TRUE(untouched(done));
  ASSERT_EQ(lwc_origin_coordinator2_load(view, corner), LWC_OK);
  ASSERT_EQ(lwc_origin_coordinator2_commit(view, &plan, &done), LWC_OK);
  EXPECT_EQ(done.version, 1u);
  EXPECT_EQ(lwc_origin_coordinator2_commit(view, &plan, &done), LWC_ABORTED);  // replayed plan (R8)
  std::int64_t now[2];
  std::uint64_t version = 0;
  ASSERT_EQ(lwc_origin_coordinator2_origin(view, now, &version), LWC_OK);
  EXPECT_EQ(now[0], 5);
  EXPECT_EQ(version, 1u);
  lwc_render_point2 r;
  ASSERT_EQ(lwc_origin_coordinator2_to_render(view, &observer, &r), LWC_OK);
  EXPECT_EQ(r.at[0], 512.0f);
  EXPECT_EQ(r.version, 1u);
  lwc_render_point2 placed;
  ASSERT_EQ(lwc_origin_coordinator2_place_late(view, &late, &placed), LWC_OK);  // R9: from the anchor
  EXPECT_EQ(placed.at[0], r.at[0]);
  EXPECT_EQ(lwc_origin_coordinator2_place_late(view, &baked, &placed), LWC_ABORTED);
  lwc_world_position2 far = observer;
  far.cell[0] = kMax;
  EXPECT_EQ(lwc_origin_coordinator2_to_render(view, &far, &r), LWC_OUT_OF_RANGE);  // outside the bubble (R5)
  far.offset[0] = kNaN;
  EXPECT_EQ(lwc_origin_coordinator2_to_render(view, &far, &r), LWC_INVALID_ARGUMENT);
  lwc_view_config bad = config;
  bad.barrier_radius = 65;
  lwc_origin_coordinator2* refused = nullptr;
  EXPECT_EQ(lwc_origin_coordinator2_create(1024, &bad, origin, 0, &refused), LWC_INVALID_ARGUMENT);
  EXPECT_EQ(refused, nullptr);
  EXPECT_EQ(lwc_origin_coordinator2_create(0, &config, origin, 0, &refused), LWC_INVALID_ARGUMENT);  // D5
  EXPECT_EQ(lwc_origin_coordinator2_create((std::int64_t{1} << 53) + 1, &config, origin, 0, &refused),
            LWC_INVALID_ARGUMENT);  // R1
  EXPECT_EQ(lwc_origin_coordinator2_destroy(view), LWC_OK);
}

struct Prepares {
  int calls = 0;
  int fail_at = -1;  // the call that fails, or -1
  int code = LWC_DATA_LOSS;
  lwc_committer* self = nullptr;
};

int prepare(void* user, const lwc_chunk_run* run, std::uint64_t* snapshot) {
  auto* p = static_cast<Prepares*>(user);
  const int call = p->calls++;
  if (p->self != nullptr) {  // a commit from inside prepare is refused, not deadlocked
    EXPECT_EQ(lwc_committer_commit(p->self, prepare, user, 1, nullptr), LWC_FAILED_PRECONDITION);
    EXPECT_EQ(lwc_committer_mark(p->self, {run->x_first * 16, run->y * 16}), LWC_OK);  // the next generation (T6)
  }
  if (call == p->fail_at) return p->code;
  *snapshot = std::uint64_t{1000} + static_cast<std::uint64_t>(call);
  return LWC_OK;
}

// F6: a failing prepare callback publishes nothing and keeps every chunk pending (T4); then a commit
// publishes all (T5); marks from inside prepare stay pending (T6).
TEST(CApi, F6_CommitterFailingPrepareAndRetry) {
  lwc_committer* c = nullptr;
  ASSERT_EQ(lwc_committer_create(16, &c), LWC_OK);
  lwc_int2 chunk;
  ASSERT_EQ(lwc_committer_chunk_of(c, {-1, -1}, &chunk), LWC_OK);  // T1: (-1, -1), not (0, 0)
  EXPECT_EQ(chunk.x, -1);
  EXPECT_EQ(chunk.y, -1);
  for (const lwc_int2 cell : {lwc_int2{0, 0}, lwc_int2{15, 0}, lwc_int2{16, 0}, lwc_int2{0, 32}}) {
    ASSERT_EQ(lwc_committer_mark(c, cell), LWC_OK);
  }
  std::size_t chunks = 0;
  ASSERT_EQ(lwc_committer_pending_chunks(c, &chunks), LWC_OK);
  EXPECT_EQ(chunks, 3u);  // T2
  Prepares failing{.fail_at = 1};
  lwc_commit_report report = poisoned<lwc_commit_report>();
  EXPECT_EQ(lwc_committer_commit(c, prepare, &failing, LWC_RUN_BUDGET_UNLIMITED, &report), LWC_DATA_LOSS);
  EXPECT_TRUE(untouched(report));
  EXPECT_NE(std::string(lwc_last_error()).find("(T4)"), std::string::npos) << lwc_last_error();
  Prepares weird{.fail_at = 0, .code = 12345};
  EXPECT_EQ(lwc_committer_commit(c, prepare, &weird, 1, nullptr), LWC_UNKNOWN);  // not a code: Unknown
  EXPECT_EQ(lwc_committer_commit(c, prepare, &weird, 0, nullptr), LWC_INVALID_ARGUMENT);  // RunBudget >= 1 (T8)
  lwc_batch_info info;
  std::size_t count = 0;
  ASSERT_EQ(lwc_committer_published(c, &info, nullptr, 0, &count), LWC_OK);
  EXPECT_EQ(info.sequence, 0u);  // nothing was published
  ASSERT_EQ(lwc_committer_pending_chunks(c, &chunks), LWC_OK);
  EXPECT_EQ(chunks, 3u);
  Prepares reentrant{};
  reentrant.self = c;
  ASSERT_EQ(lwc_committer_commit(c, prepare, &reentrant, LWC_RUN_BUDGET_UNLIMITED, &report), LWC_OK);
  EXPECT_EQ(report.runs_published, 2u);  // {y 0: x 0..1}, {y 2: x 0}
  EXPECT_EQ(report.chunks_published, 3u);
  lwc_batch_entry entries[2];
  ASSERT_EQ(lwc_committer_published(c, &info, entries, 2, &count), LWC_OK);
  EXPECT_EQ(info.sequence, 1u);
  EXPECT_EQ(entries[0].run.x_last, 1);
  EXPECT_EQ(entries[1].snapshot, 1001u);
  ASSERT_EQ(lwc_committer_pending_chunks(c, &chunks), LWC_OK);
  EXPECT_EQ(chunks, 2u);  // the marks made inside prepare belong to the next generation (T6)
  EXPECT_EQ(lwc_committer_destroy(c), LWC_OK);
}

// F1, F6 through the engine calls of the persistent grid: payloads in the events (E7), filter bits and a
// pair predicate (E8), rays (E9), float boxes (E10), queries of boxes as last given (E11), each the C++
// grid's answer for the same calls.
int odd_payloads_only(void* context, uintptr_t lower, uintptr_t higher) {
  ++*static_cast<int*>(context);
  return (lower % 2 == 1 && higher % 2 == 1) ? 1 : 0;
}

TEST(CApi, F6_PersistentGridPayloadsFiltersRaysAndQueries) {
  lwc_grid_config config = lwc_grid_config_default();
  config.cell_size = 2.0;
  int asked = 0;
  lwc_persistent_grid2* grid = nullptr;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, odd_payloads_only, &asked, &grid), LWC_OK);
  const lwc_box2 wall{{0, 0}, {10, 2}};
  const lwc_float_box2 prop{{9.0F, 0.5F}, {9.5F, 1.5F}};  // overlaps the wall
  const lwc_box2 crate{{9, 1}, {11, 3}};                   // overlaps both
  const lwc_filter ghost{2, ~std::uint64_t{1}};            // group 2, ignores group 1
  lwc_handle w;
  lwc_handle p;
  lwc_handle c;
  ASSERT_EQ(lwc_persistent_grid2_insert(grid, &wall, 1001, lwc_filter_default(), &w), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_insertf(grid, &prop, 7, lwc_filter_default(), &p), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_insert(grid, &crate, 3, ghost, &c), LWC_OK);
  lwc_update_stats stats;
  ASSERT_EQ(lwc_persistent_grid2_update(grid, &stats), LWC_OK);
  // wall-prop passes bits and predicate; wall-crate and prop-crate fail the bits (crate ignores group 1).
  lwc_contact began[4];
  std::size_t count = 0;
  ASSERT_EQ(lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began, 4, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(began[0].a.slot, w.slot);
  EXPECT_EQ(began[0].b.slot, p.slot);
  EXPECT_EQ(began[0].user_a, 1001u);  // E7: the payloads travel with the contact
  EXPECT_EQ(began[0].user_b, 7u);
  EXPECT_GT(asked, 0);
  // The crate joins group 1's mask: wall-crate passes the bits, then the predicate (1001 and 3: both odd).
  ASSERT_EQ(lwc_persistent_grid2_set_filter(grid, c, lwc_filter_default()), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_set_user_data(grid, p, 8), LWC_OK);  // prop even now: its pairs end
  ASSERT_EQ(lwc_persistent_grid2_update(grid, &stats), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began, 4, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(began[0].b.slot, c.slot);
  EXPECT_EQ(began[0].user_b, 3u);
  ASSERT_EQ(lwc_persistent_grid2_events(grid, LWC_EVENTS_ENDED, began, 4, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(began[0].b.slot, p.slot);
  EXPECT_EQ(began[0].user_b, 7u);  // ended: the payload as at the previous update (E7)
  lwc_filter f = poisoned<lwc_filter>();
  uintptr_t user = 0;
  ASSERT_EQ(lwc_persistent_grid2_filter(grid, c, &f), LWC_OK);
  EXPECT_EQ(f.group, 1u);
  ASSERT_EQ(lwc_persistent_grid2_user_data(grid, p, &user), LWC_OK);
  EXPECT_EQ(user, 8u);
  EXPECT_EQ(lwc_persistent_grid2_refilter(grid, p), LWC_OK);

  // A query sees boxes as last given, pending moves included (E11), by slot, filters not applied.
  const lwc_float_box2 moved{{20.0F, 20.0F}, {21.0F, 21.0F}};
  ASSERT_EQ(lwc_persistent_grid2_movef(grid, p, &moved, LWC_MOTION_TELEPORT), LWC_OK);
  const lwc_box2 probe{{9.25, 1.25}, {9.25, 1.25}};
  lwc_query_hit hits[3];
  ASSERT_EQ(lwc_persistent_grid2_query(grid, &probe, hits, 3, &count), LWC_OK);
  ASSERT_EQ(count, 2u);  // the wall and the crate; the prop has moved away
  EXPECT_EQ(hits[0].handle.slot, w.slot);
  EXPECT_EQ(hits[0].user, 1001u);
  EXPECT_EQ(hits[1].handle.slot, c.slot);
  const lwc_float_box2 far{{20.5F, 20.5F}, {20.5F, 20.5F}};
  ASSERT_EQ(lwc_persistent_grid2_queryf(grid, &far, hits, 3, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(hits[0].handle.slot, p.slot);
  EXPECT_EQ(hits[0].user, 8u);
  const lwc_box2 nan_probe{{kNaN, 0}, {1, 1}};
  count = 77;
  EXPECT_EQ(lwc_persistent_grid2_query(grid, &nan_probe, hits, 3, &count), LWC_INVALID_ARGUMENT);  // B6
  EXPECT_EQ(count, 77u);  // F3

  // A ray along y = 1.5 from x = -1: the wall at t = 1/31, the crate at t = 10/31 (E9), as C++ says.
  const lwc_segment2 ray{{-1, 1.5}, {30, 1.5}};
  lwc_ray_hit rays[2] = {poisoned<lwc_ray_hit>(), poisoned<lwc_ray_hit>()};
  EXPECT_EQ(lwc_persistent_grid2_raycast(grid, &ray, rays, 1, &count), LWC_BUFFER_TOO_SMALL);  // F4
  EXPECT_EQ(count, 2u);
  EXPECT_TRUE(untouched(rays[0]));
  ASSERT_EQ(lwc_persistent_grid2_raycast(grid, &ray, rays, 2, &count), LWC_OK);
  EXPECT_EQ(rays[0].handle.slot, w.slot);
  EXPECT_EQ(rays[1].handle.slot, c.slot);
  EXPECT_EQ(rays[1].user, 3u);
  EXPECT_LT(rays[0].t, rays[1].t);
  lwc_float_box2 wall_f{{0, 0}, {10, 2}};
  lwc_float_box2 crate_f{{9, 1}, {11, 3}};
  absl::StatusOr<lwc::PersistentGrid<2>> twin = lwc::PersistentGrid<2>::create({.cell_size = lwc::CellSize::of<2.0>()});
  ASSERT_TRUE(twin.ok());
  ASSERT_TRUE(twin->insert(lwc::FloatBox<2>{{wall_f.min[0], wall_f.min[1]}, {wall_f.max[0], wall_f.max[1]}}).ok());
  ASSERT_TRUE(twin->insert(lwc::FloatBox<2>{{0, 0}, {0, 0}}).ok());
  ASSERT_TRUE(twin->insert(lwc::FloatBox<2>{{crate_f.min[0], crate_f.min[1]}, {crate_f.max[0], crate_f.max[1]}}).ok());
  std::vector<double> want;
  ASSERT_TRUE(twin->raycast({{-1, 1.5}, {30, 1.5}}, [&](lwc::Handle, lwc::UserData, double t) {
    want.push_back(t);
    return true;
  }).ok());
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(rays[0].t, want[0]);  // F1: the C++ entry fractions, bit for bit
  EXPECT_EQ(rays[1].t, want[1]);
  const lwc_segment2 overflowing{{-1e308, 0}, {1e308, 0}};
  EXPECT_EQ(lwc_persistent_grid2_raycast(grid, &overflowing, rays, 2, &count),
            code_of(twin->raycast({{-1e308, 0}, {1e308, 0}}, [](lwc::Handle, lwc::UserData, double) { return true; })));

  // 3-D: the same calls.
  lwc_persistent_grid3* g3 = nullptr;
  ASSERT_EQ(lwc_persistent_grid3_create(&config, nullptr, nullptr, &g3), LWC_OK);
  const lwc_box3 a3{{0, 0, 0}, {1, 1, 1}};
  const lwc_float_box3 b3{{1, 1, 1}, {2, 2, 2}};
  lwc_handle h3a;
  lwc_handle h3b;
  ASSERT_EQ(lwc_persistent_grid3_insert(g3, &a3, 5, lwc_filter_default(), &h3a), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_insertf(g3, &b3, 6, lwc_filter_default(), &h3b), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_update(g3, nullptr), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_events(g3, LWC_EVENTS_BEGAN, began, 4, &count), LWC_OK);
  ASSERT_EQ(count, 1u);  // touching corners count (closed boxes)
  EXPECT_EQ(began[0].user_a, 5u);
  EXPECT_EQ(began[0].user_b, 6u);
  const lwc_segment3 ray3{{-1, -1, -1}, {3, 3, 3}};
  ASSERT_EQ(lwc_persistent_grid3_raycast(g3, &ray3, rays, 2, &count), LWC_OK);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(rays[0].user, 5u);
  const lwc_float_box3 moved3{{5, 5, 5}, {6, 6, 6}};
  ASSERT_EQ(lwc_persistent_grid3_movef(g3, h3b, &moved3, LWC_MOTION_SWEPT), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid3_update(g3, &stats), LWC_OK);
  EXPECT_EQ(stats.ended, 1);
  EXPECT_EQ(lwc_persistent_grid3_destroy(g3), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(grid), LWC_OK);
}

// F7: while a grid's callback runs, the grid refuses every call and changes nothing; other grids work;
// a visitor returning 0 stops the walk.
struct Visitor {
  lwc_persistent_grid2* self = nullptr;
  lwc_persistent_grid2* other = nullptr;
  lwc_handle some{};
  int calls = 0;
  int stop_after = 1000;
  std::vector<lwc_status> inside;
};

int visit_box(void* context, lwc_handle, uintptr_t) {
  auto* v = static_cast<Visitor*>(context);
  const lwc_box2 box{{0, 0}, {1, 1}};
  lwc_handle h;
  std::int64_t size = 0;
  v->inside.push_back(lwc_persistent_grid2_move(v->self, v->some, &box, LWC_MOTION_TELEPORT));
  v->inside.push_back(lwc_persistent_grid2_insert(v->self, &box, 0, lwc_filter_default(), &h));
  v->inside.push_back(lwc_persistent_grid2_size(v->self, &size));
  v->inside.push_back(lwc_persistent_grid2_query_each(v->self, &box, visit_box, v));
  v->inside.push_back(lwc_persistent_grid2_destroy(v->self));
  v->inside.push_back(lwc_persistent_grid2_insert(v->other, &box, 0, lwc_filter_default(), &h));  // allowed
  return ++v->calls < v->stop_after ? 1 : 0;
}

int visit_ray(void* context, lwc_handle handle, uintptr_t user, double) { return visit_box(context, handle, user); }

int reentering_filter(void* context, uintptr_t, uintptr_t) {
  auto* v = static_cast<Visitor*>(context);
  std::size_t pending = 0;
  v->inside.push_back(lwc_persistent_grid2_pending(v->self, &pending));
  v->inside.push_back(lwc_persistent_grid2_update(v->self, nullptr));
  return 1;
}

TEST(CApi, F7_CallbacksCannotReenterTheirGrid) {
  const lwc_grid_config config = lwc_grid_config_default();
  Visitor v;
  ASSERT_EQ(lwc_persistent_grid2_create(&config, reentering_filter, &v, &v.self), LWC_OK);
  ASSERT_EQ(lwc_persistent_grid2_create(&config, nullptr, nullptr, &v.other), LWC_OK);
  for (int i = 0; i < 4; ++i) {
    const lwc_box2 box{{0.5 * i, 0}, {0.5 * i + 1, 1}};
    ASSERT_EQ(lwc_persistent_grid2_insert(v.self, &box, static_cast<uintptr_t>(i), lwc_filter_default(), &v.some),
              LWC_OK);
  }
  ASSERT_EQ(lwc_persistent_grid2_update(v.self, nullptr), LWC_OK);  // the filter is asked; its calls refused
  ASSERT_FALSE(v.inside.empty());
  for (const lwc_status s : v.inside) EXPECT_EQ(s, LWC_FAILED_PRECONDITION);
  EXPECT_NE(std::string(lwc_last_error()).find("(F7)"), std::string::npos) << lwc_last_error();
  v.inside.clear();

  const lwc_box2 all{{-10, -10}, {10, 10}};
  v.stop_after = 2;
  ASSERT_EQ(lwc_persistent_grid2_query_each(v.self, &all, visit_box, &v), LWC_OK);
  EXPECT_EQ(v.calls, 2);  // stopped by the visitor
  ASSERT_EQ(v.inside.size(), 12u);
  for (std::size_t i = 0; i < v.inside.size(); ++i) {
    EXPECT_EQ(v.inside[i], i % 6 == 5 ? LWC_OK : LWC_FAILED_PRECONDITION) << i;
  }
  v.inside.clear();
  v.calls = 0;
  v.stop_after = 1000;
  const lwc_segment2 ray{{-1, 0.5}, {5, 0.5}};
  ASSERT_EQ(lwc_persistent_grid2_raycast_each(v.self, &ray, visit_ray, &v), LWC_OK);
  EXPECT_EQ(v.calls, 4);  // every box, in order of t
  // Nothing changed: four boxes, none pending, the handle alive (F3); the other grid got its inserts.
  std::int64_t size = 0;
  std::size_t pending = 9;
  ASSERT_EQ(lwc_persistent_grid2_size(v.self, &size), LWC_OK);
  EXPECT_EQ(size, 4);
  ASSERT_EQ(lwc_persistent_grid2_pending(v.self, &pending), LWC_OK);
  EXPECT_EQ(pending, 0u);
  ASSERT_EQ(lwc_persistent_grid2_size(v.other, &size), LWC_OK);
  EXPECT_EQ(size, 6);
  EXPECT_EQ(lwc_persistent_grid2_destroy(v.self), LWC_OK);
  EXPECT_EQ(lwc_persistent_grid2_destroy(v.other), LWC_OK);
}

// F8: find_pairs through a view of the caller's boxes (an engine's float AABBs with a tag between the
// corners) into a pair list, whatever the number of pairs; a failure keeps the list's pairs (F3).
TEST(CApi, F8_PairListOfAnEnginesFloatAabbs) {
  struct Aabb {
    float lower[2];
    std::int32_t proxy;
    float upper[2];
  };
  std::vector<Aabb> aabbs;
  for (int i = 0; i < 6; ++i) aabbs.push_back({{0, 0}, i, {1.0F + static_cast<float>(i), 1.0F}});  // 15 pairs
  const lwc_box_view view{aabbs[0].lower, aabbs[0].upper, aabbs.size(), sizeof(Aabb), LWC_REAL_FLOAT};
  const lwc_grid_config config = lwc_grid_config_default();
  lwc_pair_list* list = nullptr;
  ASSERT_EQ(lwc_pair_list_create(&list), LWC_OK);
  const lwc_pair* pairs = reinterpret_cast<const lwc_pair*>(&config);
  std::size_t count = 99;
  ASSERT_EQ(lwc_pair_list_pairs(list, &pairs, &count), LWC_OK);
  EXPECT_EQ(pairs, nullptr);  // empty
  EXPECT_EQ(count, 0u);
  lwc_stats stats;
  ASSERT_EQ(lwc_find_pairs2_view(&view, &config, list, &stats), LWC_OK);
  ASSERT_EQ(lwc_pair_list_pairs(list, &pairs, &count), LWC_OK);
  ASSERT_EQ(count, 15u);
  EXPECT_EQ(stats.pairs, 15);
  EXPECT_EQ(pairs[0].a, 0u);
  EXPECT_EQ(pairs[14].b, 5u);
  std::vector<lwc::FloatBox<2>> cpp_boxes;
  for (const Aabb& a : aabbs) cpp_boxes.push_back({{a.lower[0], a.lower[1]}, {a.upper[0], a.upper[1]}});
  const absl::StatusOr<lwc::PairsResult> cpp =
      lwc::find_pairs(lwc::BoxView<2, float>(cpp_boxes), lwc::GridConfig{});
  ASSERT_TRUE(cpp.ok());
  EXPECT_EQ(stats.memberships, cpp->stats.memberships);  // F1
  // A NaN corner: InvalidArgument naming box 4, and the list keeps its 15 pairs (F3).
  aabbs[4].upper[1] = std::numeric_limits<float>::quiet_NaN();
  lwc_stats poisoned_stats = poisoned<lwc_stats>();
  EXPECT_EQ(lwc_find_pairs2_view(&view, &config, list, &poisoned_stats), LWC_INVALID_ARGUMENT);
  EXPECT_NE(std::string(lwc_last_error()).find("box 4"), std::string::npos) << lwc_last_error();
  EXPECT_TRUE(untouched(poisoned_stats));
  ASSERT_EQ(lwc_pair_list_pairs(list, &pairs, &count), LWC_OK);
  EXPECT_EQ(count, 15u);
  // A misaligned stride and a view of doubles read as 3-D boxes.
  lwc_box_view odd = view;
  odd.stride = 3;
  EXPECT_EQ(lwc_find_pairs2_view(&odd, &config, list, nullptr), LWC_INVALID_ARGUMENT);  // B13
  const std::vector<lwc_box3> cubes = {{{0, 0, 0}, {1, 1, 1}}, {{1, 1, 1}, {2, 2, 2}}, {{3, 3, 3}, {4, 4, 4}}};
  const lwc_box_view cube_view{cubes[0].min, cubes[0].max, cubes.size(), sizeof(lwc_box3), LWC_REAL_DOUBLE};
  ASSERT_EQ(lwc_find_pairs3_view(&cube_view, &config, list, nullptr), LWC_OK);
  ASSERT_EQ(lwc_pair_list_pairs(list, &pairs, &count), LWC_OK);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(pairs[0].b, 1u);
  // A pair list is a handle of its own kind (F5).
  EXPECT_EQ(lwc_find_pairs2_view(&view, &config, reinterpret_cast<lwc_pair_list*>(&count), nullptr),
            LWC_INVALID_ARGUMENT);
  EXPECT_EQ(lwc_pair_list_destroy(list), LWC_OK);
  EXPECT_EQ(lwc_pair_list_destroy(list), LWC_INVALID_ARGUMENT);
  EXPECT_EQ(lwc_pair_list_pairs(list, &pairs, &count), LWC_INVALID_ARGUMENT);
}

}  // namespace
