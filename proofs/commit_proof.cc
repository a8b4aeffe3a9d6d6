// SPDX-License-Identifier: MIT
// File: proofs/commit_proof.cc
//
// Proof of lwc.commit's merge (docs/commit.md T3): the sweep of merge_runs, the kernel merge_sorted_runs of
// modules/lwc/kernels.h instantiated with the proof policy ZOps (support/z3_ops.h), yields the maximal
// canonical runs of its chunks -- every run non-empty, runs in strictly increasing (row, first column)
// order, no two on one row touching or overlapping, every chunk in a run and every cell of a run a chunk --
// and no intermediate leaves int64 (x - 1 of extends_run) nor reads the last run of an empty vector, for
// every sequence of n int64 chunks in row-major order (duplicates allowed), for each n up to the bound
// kMaxChunks. The sort before the sweep is std::sort with internal::RowMajor, not proved here (it is the
// standard library's). Run by CTest (label `proof`).
// lwc-clauses: T3
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <z3++.h>

#include "lwc/kernels.h"
#include "support/prover.h"
#include "support/z3_ops.h"

namespace lwc::proofs {
namespace {

// The bound: every sorted sequence of 1 to kMaxChunks chunks (--max-chunks N overrides).
int max_chunks = 8;

struct ZPoint2 {  // lwc::Point2
  ZS x;
  ZS y;
};
struct ZRun {  // lwc::ChunkRun
  ZS y;
  ZS x_first;
  ZS x_last;
};

// The output vector of runs, as terms: `capacity` slots and a count. Every update is guarded by the path
// condition of the branches around it (ZOps::path()), so that running both sides of a branch, as the proof
// policy does, changes the vector only on the side that is taken.
class ZRuns {
 public:
  ZRuns(const ZOps& o, std::size_t capacity) : o_(o), count_(o.ctx().int_val(0)) {
    for (std::size_t j = 0; j < capacity; ++j) {
      slots_.push_back({o.s(0), o.s(0), o.s(0)});
    }
  }
  z3::expr empty() const { return count_ == 0; }
  // runs.back(): the slot count - 1 (an obligation: the vector is not empty where it is read).
  ZRun back(std::source_location l = std::source_location::current()) const {
    o_.need(count_ > 0, "back() of a non-empty vector of runs", l);
    ZRun r = slots_.front();
    for (std::size_t j = 1; j < slots_.size(); ++j) {
      const z3::expr here = count_ == static_cast<int>(j + 1);
      r = {{z3::ite(here, slots_[j].y.v, r.y.v)}, {z3::ite(here, slots_[j].x_first.v, r.x_first.v)},
           {z3::ite(here, slots_[j].x_last.v, r.x_last.v)}};
    }
    return r;
  }
  void extend_last(const ZS& x, std::source_location l = std::source_location::current()) {
    o_.need(count_ > 0, "back() of a non-empty vector of runs", l);
    const z3::expr p = o_.path();
    for (std::size_t j = 0; j < slots_.size(); ++j) {
      slots_[j].x_last = {z3::ite(p && count_ == static_cast<int>(j + 1), x.v, slots_[j].x_last.v)};
    }
  }
  void start(const ZS& y, const ZS& x, std::source_location l = std::source_location::current()) {
    o_.need(count_ < static_cast<int>(slots_.size()), "a slot for the new run (proof bookkeeping)", l);
    const z3::expr p = o_.path();
    for (std::size_t j = 0; j < slots_.size(); ++j) {
      const z3::expr here = p && count_ == static_cast<int>(j);
      slots_[j] = {{z3::ite(here, y.v, slots_[j].y.v)}, {z3::ite(here, x.v, slots_[j].x_first.v)},
                   {z3::ite(here, x.v, slots_[j].x_last.v)}};
    }
    count_ = z3::ite(p, count_ + 1, count_);
  }
  const z3::expr& count() const { return count_; }
  const ZRun& slot(std::size_t j) const { return slots_[j]; }
  std::size_t capacity() const { return slots_.size(); }

 private:
  const ZOps& o_;
  std::vector<ZRun> slots_;
  z3::expr count_;
};

std::string runs_regression(const z3::model& m, const std::vector<ZPoint2>& chunks, const std::string& name) {
  std::string list;
  for (const ZPoint2& c : chunks) {
    list += (list.empty() ? "" : ", ") + std::string("{") + int_literal(m, c.x.v) + ", " + int_literal(m, c.y.v) + "}";
  }
  return "// Counterexample found by proofs/commit_proof.cc (" + name + ").\n" + "TEST(Commit, ProofCounterexample) {\n" +
         "  const std::vector<lwc::Point2> chunks = {" + list + "};\n" +
         "  const std::vector<lwc::ChunkRun> runs = lwc::merge_runs(chunks);\n" +
         "  EXPECT_TRUE(lwc::contracts::check_runs(chunks, runs).ok());\n" + "}";
}

// which: 0 canonical and maximal, 1 every chunk in a run, 2 every cell of a run a chunk, 3 the obligations.
void prove_merge(Prover& p, int n, int which) {
  z3::context c;
  ZOps o(c);
  std::vector<ZPoint2> chunks;
  std::vector<z3::expr> hyps;
  for (int i = 0; i < n; ++i) {
    const std::string k = std::to_string(i);
    chunks.push_back({{c.int_const(("x" + k).c_str())}, {c.int_const(("y" + k).c_str())}});
    hyps.push_back(o.in_s(chunks.back().x.v));
    hyps.push_back(o.in_s(chunks.back().y.v));
    if (i > 0) {  // row-major, non-decreasing: !RowMajor{}(chunk i, chunk i - 1)
      const ZPoint2& a = chunks[chunks.size() - 2];
      const ZPoint2& b = chunks.back();
      hyps.push_back(a.y.v < b.y.v || (a.y.v == b.y.v && a.x.v <= b.x.v));
    }
  }
  ZRuns runs(o, static_cast<std::size_t>(n));
  kernels::merge_sorted_runs(o, chunks, runs);

  const z3::expr k = runs.count();
  const auto in_run = [&](std::size_t j, const z3::expr& x, const z3::expr& y) {
    const ZRun& r = runs.slot(j);
    return static_cast<int>(j) < k && y == r.y.v && r.x_first.v <= x && x <= r.x_last.v;
  };
  z3::expr goal = c.bool_val(true);
  std::string name, words;
  const std::string dom = "chunks 0.." + std::to_string(n - 1) + ": every sequence of " + std::to_string(n) +
                          " int64 pairs (x, y) in row-major order (by y, then x), duplicates allowed";
  if (which == 0) {
    name = "T3 canonical and maximal, " + std::to_string(n) + " chunks";
    words = "1 <= #runs <= n; every run has x_first <= x_last; consecutive runs are on increasing rows or, on "
            "one row, separated by at least one clean column (x_last + 1 < next x_first): disjoint, in "
            "canonical order, none touching";
    goal = 1 <= k && k <= n;
    for (std::size_t j = 0; j < runs.capacity(); ++j) {
      const ZRun& r = runs.slot(j);
      goal = goal && z3::implies(static_cast<int>(j) < k, r.x_first.v <= r.x_last.v);
      if (j + 1 < runs.capacity()) {
        const ZRun& s = runs.slot(j + 1);
        goal = goal && z3::implies(static_cast<int>(j + 1) < k,
                                   r.y.v < s.y.v || (r.y.v == s.y.v && r.x_last.v + 1 < s.x_first.v));
      }
    }
  } else if (which == 1) {
    name = "T3 every chunk in a run, " + std::to_string(n) + " chunks";
    words = "every chunk of the input lies in one of the runs";
    for (const ZPoint2& ch : chunks) {
      z3::expr some = c.bool_val(false);
      for (std::size_t j = 0; j < runs.capacity(); ++j) some = some || in_run(j, ch.x.v, ch.y.v);
      goal = goal && some;
    }
  } else if (which == 2) {
    name = "T3 every cell of a run a chunk, " + std::to_string(n) + " chunks";
    words = "every (x, y) that lies in one of the runs is one of the input chunks";
    const z3::expr px = c.int_const("px"), py = c.int_const("py");
    z3::expr covered = c.bool_val(false), listed = c.bool_val(false);
    for (std::size_t j = 0; j < runs.capacity(); ++j) covered = covered || in_run(j, px, py);
    for (const ZPoint2& ch : chunks) listed = listed || (px == ch.x.v && py == ch.y.v);
    goal = z3::implies(covered, listed);
  } else {
    name = "T3 no overflow, " + std::to_string(n) + " chunks";
    std::string listed;
    for (const Obligation& ob : o.obligations()) {
      goal = goal && ob.holds;
      listed += (listed.empty() ? "" : "; ") + ob.what;
    }
    words = "no intermediate leaves int64 and no empty vector's back() is read: " + listed;
  }
  p.prove(c, {"T3", name, "merge_sorted_runs (the sweep of merge_runs): " + words, dom, hyps, goal,
              [chunks, name](const z3::model& m) { return runs_regression(m, chunks, name); },
              "every sorted sequence of " + std::to_string(n) + " chunks (bounded: 1 to " +
                  std::to_string(max_chunks) + " chunks)"});
}

}  // namespace
}  // namespace lwc::proofs

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--max-chunks") == 0) lwc::proofs::max_chunks = std::atoi(argv[i + 1]);
  }
  lwc::proofs::Prover p("commit", argc, argv);
  for (int n = 1; n <= lwc::proofs::max_chunks; ++n) {
    for (int which = 0; which < 4; ++which) lwc::proofs::prove_merge(p, n, which);
  }
  return p.finish();
}
