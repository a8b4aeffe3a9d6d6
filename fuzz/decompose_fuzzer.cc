// SPDX-License-Identifier: MIT
// File: fuzz/decompose_fuzzer.cc
//
// libFuzzer target for lwc.decompose. The input is read as raw little-endian 64-bit words from the front
// (so the dictionary's 8-byte extremes land as whole values): every int64 and every double bit pattern,
// NaN payloads included, is reachable. Each check traps when lwc.contracts.decompose rejects the result.
//
// lwc-clauses: D1 D2 D3 D4 D5 D6 D7 D8 D9 D10 D11
// (D4: the whole tree is built with UBSan + -fsanitize=integer in the fuzz preset, so an overflowing
// intermediate aborts; the other clauses are decided by the checkers named at each call.)
#include <fuzzer/FuzzedDataProvider.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fuzz_support.h"

import lwc.decompose;
import lwc.contracts.decompose;

namespace {

using lwc::fuzzing::word;
using lwc::fuzzing::require;

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto x = std::bit_cast<std::int64_t>(word(in));
  const auto s = std::bit_cast<std::int64_t>(word(in));
  const auto y = std::bit_cast<std::int64_t>(word(in));
  const auto z = std::bit_cast<std::int64_t>(word(in));

  const absl::StatusOr<lwc::ChunkSize> chunk_size = lwc::ChunkSize::create(s);
  require(lwc::contracts::check_size_validation(s, chunk_size.ok()));  // D5
  if (chunk_size.ok()) {
    const lwc::ChunkPoint p = lwc::split(x, *chunk_size);
    require(lwc::contracts::check_split(x, s, p.chunk, p.local));  // D1 D2 D3 D6
    require(lwc::contracts::check_split_axes(lwc::Point3{x, y, z}, s,
                                             lwc::split(lwc::Point3{x, y, z}, *chunk_size)));  // D8
  }
  // D7 at size 2^(s mod 63) (shift path) and at |s| (reciprocal path unless a power of two).
  const int k = static_cast<int>(static_cast<std::uint64_t>(s) % 63);
  for (const std::int64_t fast_size : {std::int64_t{1} << k, s == kMin ? kMax : (s < 0 ? -s : s)}) {
    if (fast_size == 0) continue;
    const lwc::ChunkSize power = *lwc::ChunkSize::create(fast_size);
    require(lwc::contracts::check_fast_path(x, fast_size, lwc::split(x, power),
                                            lwc::split_by_division(x, power)));  // D7
  }

  const auto v = std::bit_cast<double>(word(in));
  const auto h = std::bit_cast<double>(word(in));
  const auto w = std::bit_cast<double>(word(in));
  const absl::StatusOr<std::int64_t> cv = lwc::cell_of(v, h);
  const absl::StatusOr<std::int64_t> cw = lwc::cell_of(w, h);
  require(lwc::contracts::check_cell_of(v, h, cv));  // D9
  require(lwc::contracts::check_cell_of(w, h, cw));  // D9
  if (cv.ok() && cw.ok()) {
    require(lwc::contracts::check_cell_monotone(v, *cv, w, *cw));  // D10
    require(lwc::contracts::check_cell_monotone(w, *cw, v, *cv));  // D10
  }

  // The rest: a batch of words, split by the fuzzed size and quantised by the fuzzed cell size (D11).
  std::vector<std::int64_t> xs;
  std::vector<double> vs;
  while (in.remaining_bytes() > 0 && xs.size() < 64) {
    const std::uint64_t bits = word(in);
    xs.push_back(std::bit_cast<std::int64_t>(bits));
    vs.push_back(std::bit_cast<double>(bits));
  }
  if (chunk_size.ok()) {
    std::vector<lwc::ChunkPoint> out(xs.size());
    require(lwc::split_all(xs, *chunk_size, out));
    require(lwc::contracts::check_split_batch(xs, s, out));  // D11
  }
  if (const absl::StatusOr<lwc::CellSize> cell_size = lwc::CellSize::create(h); cell_size.ok()) {
    std::vector<std::int64_t> cells(vs.size());
    const absl::Status status = lwc::cell_of_all(vs, *cell_size, cells);
    require(lwc::contracts::check_cell_batch(vs, h, status, cells));  // D11
  }
  return 0;
}
