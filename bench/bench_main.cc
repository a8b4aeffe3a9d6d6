// SPDX-License-Identifier: MIT
// File: bench/bench_main.cc
//
// main() for every lwc benchmark binary: Google Benchmark with interleaved repetitions on by default, and a reporter
// that prints, after the usual table, the ratio of each implementation's median to each baseline's median
// measured in the same run. Machines here are shared and noisy: medians and ratios, never one absolute time.
//
// Naming: register benchmarks as "<group>.<impl>" (arguments follow as usual, "/1024"). An impl whose
// name starts with "baseline" is a baseline; every other impl of the group is compared with each of
// them, argument by argument. Goals, e.g. `lwc::bench::goal("split_batch", "lwc", "baseline_trunc",
// 1.15)`, are checked and printed as met or missed.
#include "bench_main.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace lwc::bench {
namespace {

struct Goal {
  std::string group, impl, baseline;
  double max_ratio;
};

std::vector<Goal>& goals() {
  static std::vector<Goal> g;
  return g;
}

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      const std::string& family = run.run_name.function_name;
      const auto dot = family.find('.');
      if (dot == std::string::npos) continue;
      medians_[{family.substr(0, dot), run.run_name.args}][family.substr(dot + 1)] = run.GetAdjustedRealTime();
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nratios of medians (same run; < 1 is faster than the baseline)\n");
    for (const auto& [key, impls] : medians_) {
      const auto& [group, args] = key;
      for (const auto& [base, base_time] : impls) {
        if (base.rfind("baseline", 0) != 0) continue;
        for (const auto& [impl, time] : impls) {
          if (impl.rfind("baseline", 0) == 0) continue;
          const double ratio = time / base_time;
          std::string verdict;
          for (const Goal& g : goals()) {
            if (g.group == group && g.impl == impl && g.baseline == base) {
              char text[64];
              std::snprintf(text, sizeof text, "  goal <= %.2fx: %s", g.max_ratio,
                            ratio <= g.max_ratio ? "met" : "MISSED");
              verdict = text;
            }
          }
          std::printf("  %-28s %-14s %-12s / %-22s = %6.3fx%s\n", group.c_str(), args.c_str(), impl.c_str(),
                      base.c_str(), ratio, verdict.c_str());
        }
      }
    }
  }

 private:
  std::map<std::tuple<std::string, std::string>, std::map<std::string, double>> medians_;
};

}  // namespace

void goal(std::string group, std::string impl, std::string baseline, double max_ratio) {
  goals().push_back({std::move(group), std::move(impl), std::move(baseline), max_ratio});
}

}  // namespace lwc::bench

int main(int argc, char** argv) {
  // Defaults that a command-line flag overrides: 9 repetitions, aggregates only, and repetitions of all
  // benchmarks interleaved in random order, so that a slow phase of a shared machine hits an
  // implementation and its baseline alike instead of skewing their ratio.
  std::vector<char*> args(argv, argv + argc);
  bool has_repetitions = false;
  for (int i = 1; i < argc; ++i) has_repetitions |= std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0;
  char repetitions[] = "--benchmark_repetitions=9";
  char aggregates[] = "--benchmark_report_aggregates_only=true";
  char interleave[] = "--benchmark_enable_random_interleaving=true";
  if (!has_repetitions) {
    args.insert(args.begin() + 1, {repetitions, aggregates, interleave});
  }
  int count = static_cast<int>(args.size());
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  lwc::bench::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
