// SPDX-License-Identifier: MIT
// File: bench/bench_main.h
//
// Shared by the benchmark binaries: declare a ratio goal checked by bench_main.cc's reporter.
#ifndef LWC_BENCH_BENCH_MAIN_H_
#define LWC_BENCH_BENCH_MAIN_H_

#include <string>

namespace lwc::bench {

// goal()
//
// After the run, prints whether median(group.impl) / median(group.baseline) <= max_ratio for every
// argument of the group. Call it at static-initialisation time or before main's benchmarks run.
void goal(std::string group, std::string impl, std::string baseline, double max_ratio);

}  // namespace lwc::bench

#endif  // LWC_BENCH_BENCH_MAIN_H_
