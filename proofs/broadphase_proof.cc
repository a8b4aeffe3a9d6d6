// SPDX-License-Identifier: MIT
// File: proofs/broadphase_proof.cc
//
// The reference-cell lemma of lwc.broadphase (docs/broadphase.md B9), proved with z3 for every pair of
// int64 cell ranges in 2-D and 3-D: of the cells two overlapping ranges share, exactly one has, on every
// axis, the start flag of one of the two set, and it is max(lo_a, lo_b). The flags are the code's:
// for_each_cell sets bit k when the cell is the range's first on axis k (`c[k] == r.lo[k]`), and pair_level
// reports a pair from a cell only when `(flags_a | flags_b) == all_flags<D>()`. Run by CTest (label proof).
// lwc-clauses: B9
#include <cstdint>
#include <string>
#include <vector>

#include <z3++.h>

#include "support/prover.h"
#include "support/z3_ops.h"

namespace lwc::proofs {
namespace {

void prove_reference_cell(Prover& p, int dims, bool unique) {
  z3::context c;
  ZOps o(c);
  std::vector<z3::expr> hyps;
  z3::expr fa = c.bv_val(0, 32), fb = c.bv_val(0, 32);
  z3::expr in_both = c.bool_val(true), is_ref = c.bool_val(true);
  std::vector<z3::expr> cell, ref;
  for (int k = 0; k < dims; ++k) {
    const std::string n = std::to_string(k);
    const z3::expr la = c.int_const(("lo_a" + n).c_str()), ha = c.int_const(("hi_a" + n).c_str());
    const z3::expr lb = c.int_const(("lo_b" + n).c_str()), hb = c.int_const(("hi_b" + n).c_str());
    const z3::expr x = c.int_const(("c" + n).c_str());
    for (const z3::expr& v : {la, ha, lb, hb, x}) hyps.push_back(o.in_s(v));
    hyps.push_back(la <= ha && lb <= hb && la <= hb && lb <= ha);  // two ranges that overlap on axis k
    const z3::expr bit = c.bv_val(1u << k, 32);
    fa = fa | z3::ite(x == la, bit, c.bv_val(0, 32));  // for_each_cell's start flag of a in cell x
    fb = fb | z3::ite(x == lb, bit, c.bv_val(0, 32));
    in_both = in_both && la <= x && x <= ha && lb <= x && x <= hb;
    const z3::expr r = z3::ite(la >= lb, la, lb);  // max(lo_a, lo_b)
    is_ref = is_ref && x == r;
    ref.push_back(r);
    cell.push_back(x);
  }
  const z3::expr all = c.bv_val((1u << dims) - 1, 32);
  const z3::expr reported = (fa | fb) == all;  // pair_level's test
  const std::string dom = "two closed cell ranges [lo_a, hi_a], [lo_b, hi_b] of int64 cells that overlap on every "
                          "axis; c: every cell";
  const auto none = [](const z3::model&) { return std::string("(a lemma on integer ranges)"); };
  const std::string d = std::to_string(dims) + "-D";
  if (unique) {
    hyps.push_back(in_both && reported);
    p.prove(c, {"B9", "B9 reference cell is unique " + d,
                "a shared cell in which pair_level reports the pair ((flags_a | flags_b) == all) is max(lo_a, lo_b)",
                dom, hyps, is_ref, none});
  } else {
    hyps.push_back(is_ref);
    p.prove(c, {"B9", "B9 reference cell exists " + d,
                "the cell max(lo_a, lo_b) is shared by both ranges and pair_level reports the pair there", dom, hyps,
                in_both && reported, none});
  }
}

}  // namespace
}  // namespace lwc::proofs

int main(int argc, char** argv) {
  lwc::proofs::Prover p("broadphase", argc, argv);
  for (const int dims : {2, 3}) {
    lwc::proofs::prove_reference_cell(p, dims, false);
    lwc::proofs::prove_reference_cell(p, dims, true);
  }
  return p.finish();
}
