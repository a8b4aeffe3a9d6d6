// SPDX-License-Identifier: MIT
// File: fuzz/fuzz_support.h
//
// What every lwc fuzz target needs: raw 64-bit words from the front of the input (so a dictionary's
// 8-byte extremes land as whole values, and every int64 and double bit pattern is reachable), and a
// check that traps with the checker's message when a contract clause fails.
#ifndef LWC_FUZZ_FUZZ_SUPPORT_H_
#define LWC_FUZZ_FUZZ_SUPPORT_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace lwc::fuzzing {

// word()
//
// The next 8 bytes as a little-endian word; missing bytes (end of input) are zero.
// (ConsumeData copies straight into the word: ConsumeBytes would allocate a vector per word, and under
// ASan an allocation with its stack trace cost more than the rest of reading a coordinate.)
inline std::uint64_t word(FuzzedDataProvider& in) {
  std::uint64_t w = 0;
  in.ConsumeData(&w, sizeof w);
  return w;
}

// require()
//
// Traps (the fuzzer's crash) after printing the message, which names the violated clause.
inline void require(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "contract violated: %s\n", std::string(status.message()).c_str());
  __builtin_trap();
}

}  // namespace lwc::fuzzing

#endif  // LWC_FUZZ_FUZZ_SUPPORT_H_
