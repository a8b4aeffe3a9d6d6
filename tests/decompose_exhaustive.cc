// SPDX-License-Identifier: MIT
// File: tests/decompose_exhaustive.cc
//
// Exhaustive evidence for lwc.decompose in the small scope: the width-generic arithmetic of `split`
// (one template for int8 ... int64, no width-specific branch) checked for EVERY input at int8 and int16,
// and `cell_of<float>` checked on ALL 2^32 float bit patterns for several cell sizes, each judged in a
// wider type than the code under test. docs/decompose.md ("Exhaustive evidence") explains why this,
// with the int64 properties, is strong evidence for int64.
//
// Every test prints "[lwc-exhaustive] decompose <clause> cases=<n>" per clause it covers; `./lwc audit`
// shows the sums in its "exhaustive" column. CTest runs only ExhaustiveInt8 (the int16 and float sweeps
// take tens of seconds optimised, far longer under ASan): the audit runs them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/exhaustive.h"

import lwc.decompose;
import lwc.contracts.decompose;

namespace {

void report(const char* clause, std::uint64_t cases) { lwc::exhaustive::report("decompose", clause, cases); }

using lwc::exhaustive::parallel;

// Every x of T by every positive size: D1, D2 (hence D3) in int64, D6 against C++ truncation, and D7
// (each fast path equals the division path). Returns the number of failures; prints the first few.
template <typename T>
std::uint64_t check_every_split(std::int64_t first_size, std::int64_t last_size) {
  constexpr std::int64_t kMinX = std::numeric_limits<T>::min();
  constexpr std::int64_t kMaxX = std::numeric_limits<T>::max();
  std::uint64_t failures = 0;
  for (std::int64_t s = first_size; s <= last_size; ++s) {
    const auto size = *lwc::BasicChunkSize<T>::create(static_cast<T>(s));
    for (std::int64_t x = kMinX; x <= kMaxX; ++x) {
      const auto tx = static_cast<T>(x);
      const lwc::BasicChunkPoint<T> p = lwc::split<T>(tx, size);
      const lwc::BasicChunkPoint<T> slow = lwc::split_by_division<T>(tx, size);
      const std::int64_t chunk = p.chunk;
      const std::int64_t local = p.local;
      const std::int64_t truncated = x / s;
      const bool ok = chunk * s + local == x && local >= 0 && local < s &&           // D1 D2
                      chunk == (x < 0 && x % s != 0 ? truncated - 1 : truncated) &&  // D6
                      p == slow &&                                                   // D7
                      (size.is_power_of_two() || lwc::split_by_reciprocal<T>(tx, size) == slow);
      if (!ok && ++failures <= 5) {
        std::fprintf(stderr, "split<%d bits>(%lld, %lld) = (%lld, %lld), division path (%lld, %lld)\n",
                     std::numeric_limits<T>::digits + 1, static_cast<long long>(x), static_cast<long long>(s),
                     static_cast<long long>(chunk), static_cast<long long>(local),
                     static_cast<long long>(slow.chunk), static_cast<long long>(slow.local));
      }
    }
  }
  return failures;
}

TEST(ExhaustiveInt8, D1_D2_D3_D6_D7_EveryXEverySize) {
  // 256 x by 127 sizes; the int64 checker of lwc.contracts judges them too.
  EXPECT_EQ(check_every_split<std::int8_t>(1, 127), 0u);
  std::uint64_t checked = 0;
  for (int s = 1; s <= 127; ++s) {
    const auto size = *lwc::BasicChunkSize<std::int8_t>::create(static_cast<std::int8_t>(s));
    for (int x = -128; x <= 127; ++x, ++checked) {
      const auto p = lwc::split<std::int8_t>(static_cast<std::int8_t>(x), size);
      ASSERT_TRUE(lwc::contracts::check_split(x, s, p.chunk, p.local).ok()) << x << " " << s;
    }
  }
  EXPECT_EQ(checked, 256u * 127u);
  for (const char* clause : {"D1", "D2", "D3", "D6", "D7"}) report(clause, checked);
}

TEST(ExhaustiveInt8, D5_EverySize) {
  std::uint64_t checked = 0;
  for (int s = -128; s <= 127; ++s, ++checked) {
    const auto size = lwc::BasicChunkSize<std::int8_t>::create(static_cast<std::int8_t>(s));
    EXPECT_EQ(size.ok(), s > 0) << s;
    if (size.ok()) EXPECT_EQ(size->is_power_of_two(), std::has_single_bit(static_cast<unsigned>(s)));
  }
  report("D5", checked);
}

TEST(ExhaustiveInt16, D1_D2_D3_D6_D7_EveryXEverySize) {
  // 65,536 x by 32,767 sizes = 2,147,418,112 cases, split across the cores by size.
  constexpr std::uint64_t kSizes = 32767;
  const std::uint64_t failures = parallel(kSizes, [](std::uint64_t begin, std::uint64_t end) {
    if (begin == end) return std::uint64_t{0};
    return check_every_split<std::int16_t>(static_cast<std::int64_t>(begin) + 1, static_cast<std::int64_t>(end));
  });
  EXPECT_EQ(failures, 0u);
  for (const char* clause : {"D1", "D2", "D3", "D6", "D7"}) report(clause, kSizes * 65536);
}

// The float whose rank in value order is k: ranks 0 .. 2^31 - 1 are the negative patterns from -NaN
// through -inf down to -0.0, then +0.0 up through +inf to +NaN. Visiting ranks in order visits values in
// non-decreasing order (NaNs at both ends).
float float_of_rank(std::uint32_t k) {
  const std::uint32_t bits = (k & 0x80000000u) != 0 ? (k & 0x7fffffffu) : ~k;
  return std::bit_cast<float>(bits);
}

struct SweepResult {
  std::uint64_t failures = 0;
  std::uint64_t cells = 0;
  bool any = false;
  std::int64_t first = 0;  // first and last cell of the chunk, to join chunks for monotonicity
  std::int64_t last = 0;
};

// cell_of<float> on every float of ranks [begin, end): D9 (exact bracket, checked through doubles or
// int128; error codes), D10 (non-decreasing along the ranks).
SweepResult sweep_floats(float h, std::uint64_t begin, std::uint64_t end) {
  const auto size = *lwc::BasicCellSize<float>::create(h);
  const double hd = h;
  const double far = 0x1p64 * hd;  // exact: scaling by a power of two
  SweepResult r;
  const auto fail = [&](float v, const std::string& why) {
    if (++r.failures <= 5) std::fprintf(stderr, "cell_of<float>(%a, %a): %s\n", v, h, why.c_str());
  };
  for (std::uint64_t k = begin; k < end; ++k) {
    const float v = float_of_rank(static_cast<std::uint32_t>(k));
    std::int64_t n = 0;
    const absl::StatusCode code = lwc::cell_of_code<float>(v, size, n);
    // cell_of() is cell_of_code() plus a message; check that wrapper too, on a spread-out sample.
    if ((k & 0xfffff) == 0) {
      const absl::StatusOr<std::int64_t> wrapped = lwc::cell_of<float>(v, size);
      if (wrapped.status().code() != code || (wrapped.ok() && *wrapped != n)) fail(v, "cell_of != cell_of_code");
    }
    if (!std::isfinite(v)) {
      if (code != absl::StatusCode::kInvalidArgument) fail(v, "non-finite accepted");
      continue;
    }
    const double vd = v;
    if (code != absl::StatusCode::kOk) {
      const bool out = code == absl::StatusCode::kOutOfRange &&
                       (std::fabs(vd) >= far ||
                        lwc::contracts::sign_of_multiple_minus(std::numeric_limits<std::int64_t>::min(), hd, vd) > 0 ||
                        lwc::contracts::sign_of_multiple_minus(absl::int128(1) << 63, hd, vd) <= 0);
      if (!out) fail(v, "rejected with code " + std::to_string(static_cast<int>(code)));
      continue;
    }
    ++r.cells;
    // |n| < 2^29: n * h and (n + 1) * h have at most 53 significant bits, so double products are exact.
    const bool bracket = (n > -(std::int64_t{1} << 29) && n < (std::int64_t{1} << 29))
                             ? static_cast<double>(n) * hd <= vd && vd < static_cast<double>(n + 1) * hd
                             : lwc::contracts::check_cell_bracket(vd, hd, n).ok();
    if (!bracket) fail(v, "cell " + std::to_string(n) + " does not hold v");
    if (r.any && n < r.last) fail(v, "cell " + std::to_string(n) + " after cell " + std::to_string(r.last));
    if (!r.any) r.first = n;
    r.any = true;
    r.last = n;
  }
  return r;
}

TEST(ExhaustiveFloat, D9_D10_AllBitPatterns) {
  constexpr std::uint64_t kPatterns = std::uint64_t{1} << 32;
  std::uint64_t total = 0;
  for (const float h : {0.1f, 3.0f, 1.0f}) {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<SweepResult> parts(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { parts[t] = sweep_floats(h, kPatterns * t / threads, kPatterns * (t + 1) / threads); });
    }
    for (std::thread& th : pool) th.join();
    std::uint64_t failures = 0;
    std::uint64_t cells = 0;
    const SweepResult* previous = nullptr;
    for (const SweepResult& part : parts) {
      failures += part.failures;
      cells += part.cells;
      if (part.any) {
        EXPECT_TRUE(previous == nullptr || previous->last <= part.first) << "D10 across chunks, h = " << h;
        previous = &part;
      }
    }
    EXPECT_EQ(failures, 0u) << "h = " << h;
    std::printf("cell_of<float>, h = %a: %llu patterns, %llu finite cells\n", h,
                static_cast<unsigned long long>(kPatterns), static_cast<unsigned long long>(cells));
    total += kPatterns;
  }
  report("D9", total);
  report("D10", total);
}

}  // namespace
