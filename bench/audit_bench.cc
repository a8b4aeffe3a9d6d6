// SPDX-License-Identifier: MIT
// File: bench/audit_bench.cc
//
// The trace audit's throughput on decompose records, against the cost of parsing alone: the same lines
// copied into a padded buffer and parsed by simdjson's DOM parser, nothing judged (the floor of any audit
// that reads JSON with this parser). Goals from issue 8: at least 1 M records/s on this machine (see
// items_per_second), and judging a record costs at most one and a half times parsing it (<= 2.5x the
// baseline; measured about 2.3x, docs/audit.md).
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench_main.h"

import lwc.decompose;
import lwc.contracts.decompose;
import lwc.audit.trace;

namespace {

constexpr std::size_t kRecords = 1 << 16;

// A trace as an engine writes one: split records of positions near the origin and anywhere, by the
// truncating-division example's sizes, 1 in 64 with the truncating answer (so the report's violation path is
// measured too).
const std::string& trace() {
  static const std::string text = [] {
    std::mt19937_64 rng(8);
    const std::int64_t sizes[] = {1000, 3, 16, 1024};
    std::string t;
    for (std::size_t i = 0; i < kRecords; ++i) {
      const auto bits = static_cast<std::int64_t>(rng());
      const std::int64_t x = i % 2 == 0 ? bits % 1'000'000 : bits;
      const std::int64_t size = sizes[i % 4];
      lwc::ChunkPoint p = lwc::contracts::oracle_split(x, size);
      if (i % 64 == 0) p = {x / size, x % size};
      absl::StrAppend(&t, R"({"schema":1,"contract":"decompose","op":"split","in":{"x":)", x, R"(,"size":)", size,
                      R"(},"out":{"chunk":)", p.chunk, R"(,"local":)", p.local, "}}\n");
    }
    return t;
  }();
  return text;
}

void audit_lwc(benchmark::State& state) {
  for (auto _ : state) {
    lwc::audit::TraceAuditor auditor;
    auditor.text(trace());
    benchmark::DoNotOptimize(auditor.report().violating);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kRecords));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(trace().size()));
}

void audit_parse_only(benchmark::State& state) {
  simdjson::dom::parser parser;
  std::vector<char> padded;
  for (auto _ : state) {
    std::size_t objects = 0;
    std::string_view rest = trace();
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      const std::string_view line = rest.substr(0, end);
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
      std::memcpy(padded.data(), line.data(), line.size());
      simdjson::dom::element root;
      if (parser.parse(padded.data(), line.size(), false).get(root) == simdjson::SUCCESS && root.is_object()) {
        ++objects;
      }
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
    benchmark::DoNotOptimize(objects);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kRecords));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(trace().size()));
}

const bool registered = [] {
  benchmark::RegisterBenchmark("trace_decompose.lwc", audit_lwc)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("trace_decompose.baseline_parse", audit_parse_only)->Unit(benchmark::kMillisecond);
  lwc::bench::goal("trace_decompose", "lwc", "baseline_parse", 2.5);
  return true;
}();

}  // namespace
