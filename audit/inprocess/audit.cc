// SPDX-License-Identifier: MIT
// File: audit/inprocess/audit.cc       Module: lwc.audit.inprocess (implementation unit)
//
// The in-process audit's properties: RapidCheck's checkTestable over the generators of
// arbitrary_decompose.h, each case judged by lwc.contracts.decompose. A checker's failure becomes RC_FAIL,
// so RapidCheck shrinks it; the message kept is the one of the last failing case, which is the shrunk one
// (shrinking moves to a candidate only when it fails, and stops when none does).
module;
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_cover.h"
#include "support/arbitrary_decompose.h"
module lwc.audit.inprocess;

import lwc.contracts.cover;
import lwc.contracts.decompose;

namespace lwc::audit {
namespace {

// `g`'s values, each shrinking like an integer toward `target` however it was generated. The generators
// of arbitrary_decompose.h find failures at landmarks (INT64_MIN, 2^62 + 1, k * size - 1...), where
// RapidCheck's own shrinking of a oneOf or elementOf stays; an engine's developer wants the smallest
// failing input instead, e.g. {x = -1, size = 2} for a truncating split.
// Candidates: the values next to the target and half of v first (RapidCheck's own `towards` only bisects
// the distance, so from an odd -32767 it offers only even values, and a split by 2 would stop there), then
// `towards`. Each candidate is strictly closer to the target, so shrinking terminates; none is below
// `lowest` (a size must stay positive).
rc::Seq<std::int64_t> shrink_toward(std::int64_t v, std::int64_t target, std::int64_t lowest) {
  const auto distance = [target](std::int64_t a) {
    const absl::int128 d = absl::int128(a) - target;
    return d < 0 ? -d : d;
  };
  std::vector<std::int64_t> first;
  for (const std::int64_t c : {target - 1, target + 1, target - 2, target + 2, v / 2, v / 2 + (v < 0 ? -1 : 1)}) {
    if (c >= lowest && distance(c) < distance(v) && std::find(first.begin(), first.end(), c) == first.end()) first.push_back(c);
  }
  return rc::seq::concat(rc::seq::fromContainer(std::move(first)), rc::shrink::towards(v, target));
}

rc::Gen<std::int64_t> shrinking_toward(rc::Gen<std::int64_t> g, std::int64_t target, std::int64_t lowest) {
  return rc::Gen<std::int64_t>([g = std::move(g), target, lowest](const rc::Random& random, int size) {
    return rc::shrinkable::shrinkRecur(g(random, size).value(),
                                       [target, lowest](std::int64_t v) { return shrink_toward(v, target, lowest); });
  });
}

// testing::split_case(), with both values shrinking toward small ones (size toward 1, x toward 0).
rc::Gen<testing::SplitCase> shrinking_split_case() {
  return rc::gen::mapcat(shrinking_toward(testing::positive_size(), 1, 1), [](std::int64_t size) {
    const auto x = rc::gen::weightedOneOf<std::int64_t>(
        {{1, testing::any_int64()}, {1, testing::near_multiple_of(size)}});
    return rc::gen::map(shrinking_toward(x, 0, testing::kInt64Min), [size](std::int64_t v) { return testing::SplitCase{v, size}; });
  });
}

// testing::any_range_case(), with every value shrinking toward a small one: the size toward 1, min and
// max toward 0 (max toward the value next to min, so a failing non-empty range stays non-empty). A size
// <= 0 is drawn one time in 16, for size validation.
rc::Gen<testing::RangeCase> shrinking_range_case() {
  const auto size = rc::gen::weightedOneOf<std::int64_t>(
      {{15, shrinking_toward(testing::positive_size(), 1, 1)},
       {1, rc::gen::element(std::int64_t{0}, std::int64_t{-1}, testing::kInt64Min)}});
  return rc::gen::mapcat(size, [](std::int64_t s) {
    const std::int64_t positive = s > 0 ? s : 1;
    const auto min = rc::gen::weightedOneOf<std::int64_t>(
        {{2, testing::any_int64()}, {1, testing::near_multiple_of(positive)}, {1, rc::gen::inRange<std::int64_t>(-64, 64)}});
    return rc::gen::mapcat(shrinking_toward(min, 0, testing::kInt64Min), [s, positive](std::int64_t m) {
      const std::int64_t next = m == testing::kInt64Max ? m : m + 1;
      return rc::gen::map(shrinking_toward(testing::other_end(m, positive), next, testing::kInt64Min),
                          [s, m](std::int64_t max) { return testing::RangeCase{m, max, s}; });
    });
  });
}

// Runs `property` (a callable returning the checker's status for one generated case) and fills `result`.
template <typename Property>
PropertyResult run(std::string name, const Options& options, Property property) {
  PropertyResult result;
  result.property = std::move(name);
  std::string last_failure;
  rc::detail::TestMetadata metadata;
  metadata.id = "lwc.audit/" + result.property;
  metadata.description = result.property;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = options.cases;
  if (options.seed != 0) params.seed = options.seed;
  const rc::detail::TestResult outcome = rc::detail::checkTestable(
      [&] {
        const absl::Status status = property();
        if (!status.ok()) {
          last_failure = std::string(status.message());
          RC_FAIL(last_failure);
        }
      },
      metadata, params);
  if (outcome.template is<rc::detail::SuccessResult>()) {
    result.passed = true;
    result.cases = outcome.template get<rc::detail::SuccessResult>().numSuccess;
    return result;
  }
  if (outcome.template is<rc::detail::FailureResult>()) {
    const auto& failure = outcome.template get<rc::detail::FailureResult>();
    result.cases = failure.numSuccess;
    for (const auto& [type, value] : failure.counterExample) {
      result.counterexample += (result.counterexample.empty() ? "" : ", ") + value;
    }
    result.message = last_failure.empty() ? failure.description : last_failure;
  } else {
    std::ostringstream os;
    rc::detail::printResultMessage(outcome, os);
    result.message = os.str();
  }
  result.clause = result.message.substr(0, result.message.find(' '));
  return result;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Report& report) {
  os << "lwc." << report.contract << " in-process audit: " << (report.ok() ? "pass" : "FAIL") << "\n";
  for (const PropertyResult& p : report.properties) {
    os << "  " << p.property << ": " << (p.passed ? "pass" : "FAIL") << " (" << p.cases << " cases"
       << (p.passed ? "" : " passed before the failure") << ")\n";
    if (!p.passed) {
      os << "    shrunk counterexample: " << p.counterexample << "\n    " << p.message << "\n";
    }
  }
  return os;
}

Report decompose(const Decompose& engine, const Options& options) {
  Report report;
  report.contract = "decompose";
  if (engine.split) {
    report.properties.push_back(run("split: D1 D2 D3 D6", options, [&] {
      const testing::SplitCase c = *shrinking_split_case();
      const ChunkPoint p = engine.split(c.x, c.size);
      return contracts::check_split(c.x, c.size, p.chunk, p.local);
    }));
  }
  if (engine.accepts_size) {
    report.properties.push_back(run("size validation: D5", options, [&] {
      const std::int64_t size = *testing::any_size();
      return contracts::check_size_validation(size, engine.accepts_size(size));
    }));
  }
  if (engine.cell_of) {
    report.properties.push_back(run("cell_of: D9", options, [&] {
      const testing::CellCase c = *testing::cell_case();
      return contracts::check_cell_of(c.v, c.h, engine.cell_of(c.v, c.h));
    }));
    report.properties.push_back(run("cell_of monotone: D10", options, [&]() -> absl::Status {
      const double h = *testing::positive_cell_size();
      const double a = *testing::any_double();
      double b = a;
      for (int i = *rc::gen::inRange(0, 4); i > 0; --i) b = std::nextafter(b, std::numeric_limits<double>::infinity());
      const absl::StatusOr<std::int64_t> ca = engine.cell_of(a, h);
      const absl::StatusOr<std::int64_t> cb = engine.cell_of(b, h);
      if (!ca.ok() || !cb.ok()) return absl::OkStatus();  // errors are D9's business
      return contracts::check_cell_monotone(a, *ca, b, *cb);
    }));
  }
  return report;
}

Report cover(const Cover& engine, const Options& options) {
  Report report;
  report.contract = "cover";
  if (engine.cover) {
    report.properties.push_back(run("cover: C1 C2 C3 C4 C10", options, [&] {
      const testing::RangeCase c = *shrinking_range_case();
      return contracts::check_cover(c.min, c.max, c.size, engine.cover(c.min, c.max, c.size));
    }));
  }
  if (engine.cover_closed) {
    report.properties.push_back(run("cover_closed: C1-C4 C5", options, [&] {
      const testing::RangeCase c = *shrinking_range_case();
      const contracts::CoverAnswer closed = engine.cover_closed(c.min, c.max, c.size);
      if (!engine.cover || c.max == testing::kInt64Max || c.size <= 0) {
        return contracts::check_cover_closed(c.min, c.max, c.size, closed);
      }
      return contracts::check_closed_form(c.min, c.max, c.size, closed, engine.cover(c.min, c.max + 1, c.size));
    }));
  }
  if (engine.count) {
    report.properties.push_back(run("count: C6", options, [&] {
      const testing::SpanCase c = *testing::any_span_case();
      return contracts::check_count(c.first, c.last, engine.count(c.first, c.last));
    }));
  }
  return report;
}

Report cover(CoverFunction function, const Options& options) {
  Cover engine;
  engine.cover = std::move(function);
  return cover(engine, options);
}

Report decompose(SplitFunction split, const Options& options) {
  Decompose engine;
  engine.split = std::move(split);
  return decompose(engine, options);
}

}  // namespace lwc::audit
