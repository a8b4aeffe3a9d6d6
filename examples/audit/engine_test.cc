// SPDX-License-Identifier: MIT
// File: examples/audit/engine_test.cc
//
// How an engine audits its own chunk addressing in-process, from its own GoogleTest suite: a complete,
// compiled example (lwc's build runs it as examples/EngineChunks.*). The "engine" below has two splits: the
// one it shipped first (C's truncating `/` and `%`, the truncating-division example's bug) and the fixed one.
// In the engine's own CMakeLists:
//   find_package(lwc CONFIG REQUIRED)
//   target_link_libraries(engine_tests PRIVATE engine lwc::audit_inprocess GTest::gtest_main)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc.audit.inprocess;

namespace engine {

struct ChunkAddress {
  std::int64_t chunk;
  std::int64_t offset;
};

// What the engine shipped first: truncation toward zero.
ChunkAddress split_v1(std::int64_t x, std::int64_t size) { return {x / size, x % size}; }

// The fix: floor, by correcting a negative remainder (the truncating-division example).
ChunkAddress split_v2(std::int64_t x, std::int64_t size) {
  const std::int64_t q = x / size;
  const std::int64_t r = x % size;
  return r < 0 ? ChunkAddress{q - 1, r + size} : ChunkAddress{q, r};
}

// Its real quantiser: floor(v / h), rounding and all.
absl::StatusOr<std::int64_t> cell_of(double v, double h) {
  if (!std::isfinite(v) || !std::isfinite(h) || !(h > 0)) return absl::InvalidArgumentError("bad input");
  const double q = std::floor(v / h);
  if (!(q >= -0x1p63 && q < 0x1p63)) return absl::OutOfRangeError("cell outside int64");
  return static_cast<std::int64_t>(q);
}

// Its range cover: the chunks a streaming box [min, max) touches on one axis. What it shipped first took the
// last chunk from the exclusive end (the truncating Cover's trap: [-1000, 0) loads chunk 0 for nothing); the
// fix takes it from the last point.
lwc::contracts::CoverAnswer cover(std::int64_t min, std::int64_t max, std::int64_t size, bool v1) {
  if (size <= 0 || min > max) return lwc::contracts::CoverAnswer::error(absl::StatusCode::kInvalidArgument);
  if (min == max) return lwc::contracts::CoverAnswer::none();
  return lwc::contracts::CoverAnswer::chunks(split_v2(min, size).chunk, split_v2(v1 ? max : max - 1, size).chunk);
}

}  // namespace engine

namespace {

// The adapter: the engine's type to lwc's.
lwc::ChunkPoint adapt(engine::ChunkAddress a) { return {a.chunk, a.offset}; }

TEST(EngineChunks, FixedSplitHonoursLwcDecompose) {
  lwc::audit::Decompose functions;
  functions.split = [](std::int64_t x, std::int64_t size) { return adapt(engine::split_v2(x, size)); };
  functions.accepts_size = [](std::int64_t size) { return size > 0; };
  const lwc::audit::Report report = lwc::audit::decompose(functions);
  EXPECT_TRUE(report.ok()) << report;
}

TEST(EngineChunks, TruncatingSplitIsCaughtWithAShrunkCounterexample) {
  lwc::audit::Options options;
  options.seed = 7;  // repeatable
  const lwc::audit::Report report = lwc::audit::decompose(
      [](std::int64_t x, std::int64_t size) { return adapt(engine::split_v1(x, size)); }, options);
  ASSERT_FALSE(report.ok());
  const lwc::audit::PropertyResult& split = report.properties.at(0);
  EXPECT_EQ(split.clause, "D6") << report;
  // Shrunk: whatever extreme found it, RapidCheck walks the failure down to x = -1 by a small size
  // (here {x = -1, size = 3}): the truncating-division example's bug in its smallest form.
  long long x = 0;
  long long size = 0;
  ASSERT_EQ(std::sscanf(split.counterexample.c_str(), "{x = %lld, size = %lld}", &x, &size), 2) << report;
  EXPECT_EQ(x, -1) << report;
  EXPECT_GE(size, 2) << report;
  EXPECT_LE(size, 16) << report;
  EXPECT_NE(split.message.find("D6 truncation"), std::string::npos) << report;
}

TEST(EngineChunks, FloorOfAQuotientIsNotExactQuantisation) {
  // floor(v / h) rounds: the audit finds a v whose cell it gets wrong (D9), e.g. 0.5 / 0.1.
  lwc::audit::Options options;
  options.seed = 20261129;
  lwc::audit::Decompose functions;
  functions.cell_of = &engine::cell_of;
  const lwc::audit::Report report = lwc::audit::decompose(functions, options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.properties.at(0).clause, "D9") << report;
}

TEST(EngineCover, FixedCoverHonoursLwcCover) {
  lwc::audit::Cover functions;
  functions.cover = [](std::int64_t min, std::int64_t max, std::int64_t size) {
    return engine::cover(min, max, size, false);
  };
  functions.cover_closed = [](std::int64_t min, std::int64_t max, std::int64_t size) {
    // [min, max] = [min, max + 1) where max + 1 exists; the engine reaches INT64_MAX with a closed form.
    if (size <= 0 || (max < min && max != min - 1)) {
      return lwc::contracts::CoverAnswer::error(absl::StatusCode::kInvalidArgument);
    }
    if (max < min) return lwc::contracts::CoverAnswer::none();
    return lwc::contracts::CoverAnswer::chunks(engine::split_v2(min, size).chunk, engine::split_v2(max, size).chunk);
  };
  const lwc::audit::Report report = lwc::audit::cover(functions);
  EXPECT_TRUE(report.ok()) << report;
}

TEST(EngineCover, LastChunkFromTheExclusiveEndIsCaughtWithAShrunkCounterexample) {
  lwc::audit::Options options;
  options.seed = 7;  // repeatable
  const lwc::audit::Report report = lwc::audit::cover(
      [](std::int64_t min, std::int64_t max, std::int64_t size) { return engine::cover(min, max, size, true); }, options);
  ASSERT_FALSE(report.ok());
  const lwc::audit::PropertyResult& cover = report.properties.at(0);
  EXPECT_EQ(cover.clause, "C2") << report;
  // Shrunk: the smallest range ending on a multiple of the size, one point long, by the smallest size.
  long long min = 0;
  long long max = 0;
  long long size = 0;
  ASSERT_EQ(std::sscanf(cover.counterexample.c_str(), "{min = %lld, max = %lld, size = %lld}", &min, &max, &size), 3)
      << report;
  EXPECT_EQ(min, 0) << report;
  EXPECT_EQ(max, 1) << report;
  EXPECT_EQ(size, 1) << report;
  EXPECT_NE(cover.message.find("C2 tightness"), std::string::npos) << report;
}

}  // namespace
