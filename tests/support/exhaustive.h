// SPDX-License-Identifier: MIT
// File: tests/support/exhaustive.h
//
// What every tests/<contract>_exhaustive.cc shares: the per-clause case counts `./lwc audit` reads from
// GoogleTest's JSON output for its "exhaustive" column, and a split of a case range across the cores.
#ifndef LWC_TESTS_SUPPORT_EXHAUSTIVE_H_
#define LWC_TESTS_SUPPORT_EXHAUSTIVE_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace lwc::exhaustive {

// report()
//
// Records the test property "exhaustive.<contract>.<clause>" = n (a string: n can pass INT_MAX), once per
// clause a test covered, and prints the same as "[lwc-exhaustive] <contract> <clause> cases=<n>" for people.
inline void report(const char* contract, const char* clause, std::uint64_t cases) {
  ::testing::Test::RecordProperty(std::string("exhaustive.") + contract + "." + clause, std::to_string(cases));
  std::printf("[lwc-exhaustive] %s %s cases=%llu\n", contract, clause, static_cast<unsigned long long>(cases));
}

// parallel()
//
// Runs body(begin, end) over [0, count) split across the machine's cores; returns the sum of what the
// bodies return (their failures).
template <typename Body>
std::uint64_t parallel(std::uint64_t count, const Body& body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::uint64_t> failures{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { failures += body(count * t / threads, count * (t + 1) / threads); });
  }
  for (std::thread& th : pool) th.join();
  return failures;
}

}  // namespace lwc::exhaustive

#endif  // LWC_TESTS_SUPPORT_EXHAUSTIVE_H_
