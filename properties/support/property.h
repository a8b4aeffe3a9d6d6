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
#ifndef LWC_PROPERTIES_SUPPORT_PROPERTY_H_
#define LWC_PROPERTIES_SUPPORT_PROPERTY_H_

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

namespace lwc::testing {

template <typename Testable>
void check_property(Testable&& testable, int divisor = 1) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(1, params.maxSuccess / divisor);
  const rc::detail::TestResult result =
      rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
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
