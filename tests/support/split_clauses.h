// SPDX-License-Identifier: MIT
// File: tests/support/split_clauses.h
//
// The clauses of docs/decompose.md a split answer violates, decided from the clauses' statements alone
// (no lwc code): the expected verdicts of the trace audit's tests and properties, which count a record
// under every clause it breaks.
#ifndef LWC_TESTS_SUPPORT_SPLIT_CLAUSES_H_
#define LWC_TESTS_SUPPORT_SPLIT_CLAUSES_H_

#include <cstdint>
#include <limits>
#include <string>

#include "absl/numeric/int128.h"

namespace lwc::testing {

// split_clauses()
//
// The ids of D1 D2 D3 D6 that (chunk, local) breaks for x by size > 0, in report order, space-separated
// ("D2 D3 D6"); empty for the floor decomposition. D1: chunk * size + local != x; D2: local outside
// [0, size); D3: chunk != floor(x / size); D6: the wrong branch of D6's rule, the truncating quotient
// x / size where a carry is due (x < 0, size does not divide x), or x / size - 1 where none is.
inline std::string split_clauses(std::int64_t x, std::int64_t size, std::int64_t chunk, std::int64_t local) {
  const bool carry = x < 0 && x % size != 0;
  const std::int64_t floor = x / size - (carry ? 1 : 0);
  std::string out;
  const auto add = [&](const char* id) { out += (out.empty() ? "" : " ") + std::string(id); };
  if (absl::int128(chunk) * size + local != x) add("D1");
  if (local < 0 || local >= size) add("D2");
  if (chunk != floor) add("D3");
  if ((carry && chunk == x / size) ||
      (!carry && x / size > std::numeric_limits<std::int64_t>::min() && chunk == x / size - 1)) {
    add("D6");
  }
  return out;
}

}  // namespace lwc::testing

#endif  // LWC_TESTS_SUPPORT_SPLIT_CLAUSES_H_
