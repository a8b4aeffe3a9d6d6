// SPDX-License-Identifier: MIT
// File: properties/support/property.h
//
// LWC_PROP: a RapidCheck property registered as a GoogleTest, like RC_GTEST_PROP, that also reports how
// many cases it ran. GoogleTest's XML/JSON output carries the figure as the `rc_cases` property, which
// `./lwc audit` reads (scripts/evidence.py) for the per-clause case column; "[lwc-prop]" is for people.
//
// Name every property after the clause it verifies, clause id first: LWC_PROP(Decompose, D1_Reconstructs,
// (...)). A failure's message ends with the RC_PARAMS="reproduce=..." that replays its counterexample,
// and the JSON output carries the same string as the `rc_reproduce` property.
//
// LWC_PROP_SCALED(Suite, Name, divisor, ArgList) runs max_success / divisor cases (at least 1): for a
// property whose single case is expensive (an O(n^2) oracle, a long rc::state sequence), so that one
// RC_PARAMS case count suits every suite. The reported figure is the number actually run.
//
// A time budget: with LWC_PROP_SECONDS=S in the environment (`./lwc audit` sets it), each property runs
// for about S seconds instead of to its case count, which is then the most it runs. It runs in rounds,
// each a RapidCheck run of its own with a seed of its own derived from RC_PARAMS's (round 0 is RC_PARAMS's
// seed itself), each spreading its cases over every size from 0 to max_size as one run does; the first
// round has one case, each next one as many as half the time left holds at the rate measured so far but
// at most three times the cases run so far, until a twentieth of the budget is left. A failure in any
// round stops the property with that round's reproduce= string, which replays it alone.
#ifndef LWC_PROPERTIES_SUPPORT_PROPERTY_H_
#define LWC_PROPERTIES_SUPPORT_PROPERTY_H_

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/numeric/int128.h"

namespace lwc::testing {

// The per-property time budget in seconds, from LWC_PROP_SECONDS; 0 (none) when unset or not positive.
inline double property_seconds() {
  const char* text = std::getenv("LWC_PROP_SECONDS");
  if (text == nullptr) return 0;
  const double seconds = std::strtod(text, nullptr);
  return seconds > 0 ? seconds : 0;
}

// The seed of round `round`: RC_PARAMS's for round 0, then splitmix64's output for the round from it, so
// that no round repeats another's cases and a run with the same seed and budget draws the same rounds.
// The wrapping products are taken modulo 2^64 from 128 bits (the integer sanitizer flags a wrapping
// uint64 product, deliberate or not).
inline std::uint64_t round_seed(std::uint64_t seed, int round) {
  if (round == 0) return seed;
  const auto low = [](absl::uint128 v) { return absl::Uint128Low64(v); };
  std::uint64_t z = low(absl::uint128(seed) + absl::uint128(static_cast<std::uint64_t>(round)) * 0x9e3779b97f4a7c15u);
  z = low(absl::uint128(z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u);
  z = low(absl::uint128(z ^ (z >> 27)) * 0x94d049bb133111ebu);
  return z ^ (z >> 31);
}

// Runs the property to its case count, or, with a time budget, in rounds until the budget is spent or the
// count reached (the file banner). Returns the last round's result, with numSuccess the total run.
template <typename Testable>
rc::detail::TestResult run_property(Testable& testable, const rc::detail::TestMetadata& metadata,
                                    rc::detail::TestParams params) {
  const double seconds = property_seconds();
  if (seconds == 0) return rc::detail::checkTestable(testable, metadata, params);
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const int most = params.maxSuccess;
  const std::uint64_t seed = params.seed;
  int total = 0;
  int cases = 1;
  for (int round = 0;; ++round) {
    params.maxSuccess = cases;
    params.seed = round_seed(seed, round);
    rc::detail::TestResult result = rc::detail::checkTestable(testable, metadata, params);
    if (!result.template is<rc::detail::SuccessResult>()) return result;
    total += result.template get<rc::detail::SuccessResult>().numSuccess;
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    const double left = seconds - spent;
    if (total >= most || left <= seconds / 20) {
      result.template get<rc::detail::SuccessResult>().numSuccess = total;
      return result;
    }
    // As many cases as half the time left holds at the rate so far, and at most three times as many as
    // ran so far (a generator's rare large cases can cost most of the time: a few cases under-estimate
    // the rate), at least one, at most what the count leaves. The rounds close in on the budget, and one
    // that the rate misjudged (or a loaded machine slowed) overruns it by a bounded share.
    const double per_case = spent / total;
    const double by_time = 0.5 * left / per_case;
    cases = static_cast<int>(std::clamp(std::min(by_time, 3.0 * total), 1.0, static_cast<double>(most - total)));
  }
}

template <typename Testable>
void check_property(Testable&& testable, int divisor = 1) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(1, params.maxSuccess / divisor);
  const rc::detail::TestResult result = run_property(testable, metadata, params);
  if (result.template is<rc::detail::SuccessResult>()) {
    const auto& success = result.template get<rc::detail::SuccessResult>();
    ::testing::Test::RecordProperty("rc_cases", success.numSuccess);
    std::cout << "[lwc-prop] " << info->test_suite_name() << "." << info->name()
              << " cases=" << success.numSuccess << std::endl;
    if (!success.distribution.empty()) {
      rc::detail::printResultMessage(result, std::cout);
      std::cout << std::endl;
    }
  } else {
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    if (result.template is<rc::detail::FailureResult>()) {
      // The same string RapidCheck prints at exit, for this property alone, so that the failure text
      // and the JSON report name it (the exit message does not reach GoogleTest's output files).
      rc::detail::Configuration config = rc::detail::configuration();
      config.reproduce = {{metadata.id, result.template get<rc::detail::FailureResult>().reproduce}};
      const std::string reproduce = rc::detail::configToMinimalString(config);
      ::testing::Test::RecordProperty("rc_reproduce", reproduce);
      message << "\nReproduce: RC_PARAMS=\"" << reproduce << "\" " << ::testing::internal::GetArgvs()[0]
              << " --gtest_filter=" << info->test_suite_name() << "." << info->name();
    }
    FAIL() << message.str() << std::endl;
  }
}

}  // namespace lwc::testing

#define LWC_PROP(Suite, Name, ArgList)                                     \
  void lwc_property_##Suite##_##Name ArgList;                              \
  TEST(Suite, Name) { ::lwc::testing::check_property(&lwc_property_##Suite##_##Name); } \
  void lwc_property_##Suite##_##Name ArgList

#define LWC_PROP_SCALED(Suite, Name, divisor, ArgList)                          \
  void lwc_property_##Suite##_##Name ArgList;                                   \
  TEST(Suite, Name) {                                                           \
    ::lwc::testing::check_property(&lwc_property_##Suite##_##Name, (divisor)); \
  }                                                                             \
  void lwc_property_##Suite##_##Name ArgList

#endif  // LWC_PROPERTIES_SUPPORT_PROPERTY_H_
