// SPDX-License-Identifier: MIT
// File: audit/lwc/audit/inprocess.h
//
// The in-process audit: an engine links its own functions and runs lwc's properties against them — the
// same extreme-biased generators (support/arbitrary_decompose.h) and the same clause checkers
// (lwc.contracts.<c>) that prove lwc itself — from its own GoogleTest, in its own CI. A failure comes back
// as a report with RapidCheck's shrunk counterexample and the checker's message. Spec: docs/audit.md.
//
// Built with the properties only: RapidCheck needs exceptions (without them a failing case has no
// counterexample), so this module is absent from the -fno-exceptions `engine` preset. The interface itself
// includes no RapidCheck header; an engine needs only this module and lwc::audit_inprocess.
//
// Example (examples/audit/engine_test.cc has the complete file):
//   TEST(EngineChunks, HonourLwcDecompose) {
//     const lwc::audit::Report report = lwc::audit::decompose([](std::int64_t x, std::int64_t size) {
//       const engine::ChunkAddress a = engine::split(x, size);
//       return lwc::ChunkPoint{a.chunk, a.offset};
//     });
//     EXPECT_TRUE(report.ok()) << report;
//   }
//
// The declarations of the module lwc.audit.inprocess (audit/inprocess.cppm exports them; one source, two
// modes: modules/lwc/config.h). Its functions are defined in the module's implementation unit
// (audit/inprocess/audit.cc), so the in-process audit exists only as that module: this header is its source,
// not a header build.
#ifndef LWC_AUDIT_INPROCESS_H_
#define LWC_AUDIT_INPROCESS_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // audit/inprocess.cppm includes these in its global module fragment
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/contracts/cover.h"
#endif

LWC_EXPORT namespace lwc::audit {

// Options
struct Options {
  // Cases per property. RapidCheck stops at the first failure and shrinks it.
  int cases = 10000;
  // 0: the seed of RC_PARAMS if set, else RapidCheck's own; any other value makes runs repeat.
  std::uint64_t seed = 0;
};

// PropertyResult
//
// One property over the engine's function: passed, or the shrunk counterexample and the clause it breaks.
struct PropertyResult {
  std::string property;        // e.g. "split: D1 D2 D3 D6"
  bool passed = false;
  int cases = 0;               // cases that passed (all of them, when `passed`)
  std::string clause;          // the clause the counterexample violates, e.g. "D6"
  std::string counterexample;  // the shrunk inputs, e.g. "{x = -1, size = 2}"
  std::string message;         // the checker's message for them
};

// Report
//
// The audit of one contract: every property run, in order.
struct Report {
  std::string contract;
  std::vector<PropertyResult> properties;

  [[nodiscard]] bool ok() const {
    for (const PropertyResult& p : properties) {
      if (!p.passed) return false;
    }
    return !properties.empty();
  }
};

// operator<<()
//
// One line per property, with the counterexample and message of each failure (for EXPECT_TRUE(...) << r).
std::ostream& operator<<(std::ostream& os, const Report& report);

// An engine's split: (x, size) -> (chunk, local), called only with size > 0.
using SplitFunction = std::function<ChunkPoint(std::int64_t x, std::int64_t size)>;
// An engine's real quantiser: (v, h) -> the cell of v, or an error (InvalidArgument, OutOfRange).
using CellFunction = std::function<absl::StatusOr<std::int64_t>(double v, double h)>;
// An engine's chunk-size validation: whether it accepts `size`.
using SizeCheck = std::function<bool(std::int64_t size)>;

// Decompose
//
// The adapter for lwc.decompose: whichever of the engine's functions exist (unset ones are not audited).
struct Decompose {
  SplitFunction split;      // D1 D2 D3 D6 (and D8 per axis: an N-D split is this, axis by axis)
  SizeCheck accepts_size;   // D5
  CellFunction cell_of;     // D9 D10
};

// decompose()
//
// Runs the D-properties against the engine's functions: split over every int64 (extremes and values
// around multiples of the size favoured) and sizes from 1 to INT64_MAX; sizes over all of int64; cell_of
// over every double (NaN payloads, infinities, -0.0, subnormals, 2^53, 2^63 and k·h ± a few ulps), for
// exactness (D9) and on adjacent doubles for monotonicity (D10). Returns the report; never aborts.
[[nodiscard]] Report decompose(const Decompose& engine, const Options& options = {});
[[nodiscard]] Report decompose(SplitFunction split, const Options& options = {});

// An engine's 1-D cover: the chunks of [min, max_exclusive) at `size`, as a CoverAnswer (a span, no
// chunks, or an error code). Called with any int64 min, max and size, so that C4 and size validation are
// audited too.
using CoverFunction =
    std::function<contracts::CoverAnswer(std::int64_t min, std::int64_t max_exclusive, std::int64_t size)>;
// An engine's closed cover: the chunks of [min, max_inclusive] at `size`.
using ClosedCoverFunction =
    std::function<contracts::CoverAnswer(std::int64_t min, std::int64_t max_inclusive, std::int64_t size)>;
// An engine's count of a span [first, last] (first <= last): the number of chunks, or an error (OutOfRange
// for 2^64 of them).
using CountFunction = std::function<absl::StatusOr<std::uint64_t>(std::int64_t first, std::int64_t last)>;

// Cover
//
// The adapter for lwc.cover: whichever of the engine's functions exist (unset ones are not audited).
struct Cover {
  CoverFunction cover;                // C1 C2 C3 C4 C10 (and D5 for sizes <= 0)
  ClosedCoverFunction cover_closed;   // C1-C4 for closed ranges; C5 against `cover` when both are set
  CountFunction count;                // C6
};

// cover()
//
// Runs the C-properties against the engine's functions: ranges whose ends sit on the int64 extremes, on
// or next to multiples of the size, a few points apart, empty and reversed, at sizes from 1 to INT64_MAX
// (and <= 0, which must be refused); spans up to the whole int64 domain for the count. Each failing case
// shrinks toward small values: min and max toward 0, the size toward 1, so an off-by-one at the
// exclusive end comes back as {min = 0, max = 1, size = 1}. Returns the report; never aborts.
[[nodiscard]] Report cover(const Cover& engine, const Options& options = {});
[[nodiscard]] Report cover(CoverFunction cover, const Options& options = {});

}  // namespace lwc::audit

#endif  // LWC_AUDIT_INPROCESS_H_
