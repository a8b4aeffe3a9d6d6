// SPDX-License-Identifier: MIT
// File: proofs/broadphase_proof.cc
//
// The reference-cell lemma of lwc.broadphase (docs/broadphase.md B9), proved with z3 for every pair of
// int64 cell ranges in 2-D and 3-D: of the cells two overlapping ranges share, exactly one has, on every
// axis, the start flag of one of the two set, and it is max(lo_a, lo_b). The flags are the code's:
// for_each_cell sets bit k when the cell is the range's first on axis k (`c[k] == r.lo[k]`), and pair_level
// reports a pair from a cell only when `(flags_a | flags_b) == all_flags<D>()`.
// And B8 for the kernel cell_range_of of modules/lwc/kernels.h (the body of cell_range), instantiated with
// the proof policy: for every closed box and every quantised bound pair on every axis (quantise = the
// floor, which cell_of is by docs/decompose.md D9), the range [lo, hi] is exactly the set of cells the
// box touches, in 2-D and 3-D. Run by CTest (label proof).
// lwc-clauses: B8 B9
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <z3++.h>

#include "lwc/kernels.h"
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

// The quantised bound of one coordinate: always ok (the claim is about bounds that quantise).
struct ZQuantised {
  ZS value;
  bool ok() const { return true; }
  const ZS& operator*() const { return value; }
};
struct ZBox {  // lwc::Box<D>
  std::vector<z3::expr> min, max;
};
struct ZRange {  // lwc::CellRange<D>
  std::vector<ZS> lo, hi;
};

// Every box and bound, but only given that the quantiser is the exact floor (D9, not proved for double).
const char* const kScope = "every box and every quantised bound pair, given cell_of is the exact floor (D9)";

// B8: cell_range_of's [lo, hi] is exactly the cells the closed box touches. Coordinates are in units of
// the cell size (v / h, exact: h > 0 scales every comparison alike), so cell c spans [c, c + 1).
template <std::size_t D>
void prove_cell_range(Prover& p, int which) {
  z3::context c;
  ZOps o(c);
  std::vector<z3::expr> hyps;
  std::vector<z3::expr> qs;  // the quantised bounds, in call order
  std::vector<z3::expr> coords;
  const auto quantise = [&](const z3::expr& v) {
    const z3::expr q = c.int_const(("q" + std::to_string(qs.size())).c_str());
    hyps.push_back(o.in_s(q));
    hyps.push_back(z3::to_real(q) <= v && v < z3::to_real(q) + 1);  // q = floor(v / h) (D9)
    qs.push_back(q);
    coords.push_back(v);
    return ZQuantised{{q}};
  };
  ZBox box;
  for (std::size_t k = 0; k < D; ++k) {
    box.min.push_back(c.real_const(("min" + std::to_string(k)).c_str()));
    box.max.push_back(c.real_const(("max" + std::to_string(k)).c_str()));
    hyps.push_back(box.min[k] <= box.max[k]);  // a valid box (B6)
  }
  ZRange r{std::vector<ZS>(D, o.s(0)), std::vector<ZS>(D, o.s(0))};
  (void)kernels::cell_range_of<D>(o, box, r, quantise, [](const ZQuantised&) { return 0; }, [] { return 0; });
  z3::expr in_range = c.bool_val(true), touches = c.bool_val(true);
  for (std::size_t k = 0; k < D; ++k) {
    const z3::expr x = c.int_const(("c" + std::to_string(k)).c_str());
    hyps.push_back(o.in_s(x));
    in_range = in_range && r.lo[k].v <= x && x <= r.hi[k].v;
    // cell x, the half-open [x, x + 1), meets the closed [min, max]
    touches = touches && z3::to_real(x) <= box.max[k] && box.min[k] < z3::to_real(x) + 1;
  }
  const std::string d = std::to_string(D) + "-D";
  const std::string dom = "every closed box [min, max] with min <= max on every axis (real coordinates in units of "
                          "the cell size); every quantised bound q = floor(v) of its bounds that is an int64; "
                          "c: every int64 cell";
  const auto regression = [box, qs](const z3::model& m) {
    const auto num = [&](const z3::expr& e) {
      std::string v = m.eval(e, true).get_decimal_string(17);
      if (!v.empty() && v.back() == '?') v.pop_back();  // z3 marks a rounded decimal
      return v.find('.') == std::string::npos ? v + ".0" : v;
    };
    const std::string dd = std::to_string(D);
    std::string lo, hi, mn, mx;
    for (std::size_t k = 0; k < D; ++k) {
      mn += (k ? ", " : "") + num(box.min[k]);
      mx += (k ? ", " : "") + num(box.max[k]);
      lo += (k ? ", " : "") + int_literal(m, qs[2 * k]);
      hi += (k ? ", " : "") + int_literal(m, qs[2 * k + 1]);
    }
    return "// Counterexample found by proofs/broadphase_proof.cc (B8), at cell size 1 (the floors of the bounds).\n"
           "TEST(BroadPhase, ProofCounterexample) {\n  const lwc::Box<" + dd + "> box{{" + mn + "}, {" + mx + "}};\n"
           "  const absl::StatusOr<lwc::CellRange<" + dd + ">> r = lwc::cell_range(box, lwc::CellSize::of<1.0>());\n"
           "  ASSERT_TRUE(r.ok());\n  EXPECT_EQ(r->lo, (std::array<std::int64_t, " + dd + ">{" + lo + "}));\n"
           "  EXPECT_EQ(r->hi, (std::array<std::int64_t, " + dd + ">{" + hi + "}));\n}";
  };
  if (which == 0) {
    p.prove(c, {"B8", "B8 range is the touched cells " + d,
                "cell_range_of: a cell is in [lo, hi] on every axis iff the closed box touches it (meets [c, c + 1) "
                "on every axis)",
                dom, hyps, in_range == touches, regression, kScope});
  } else {
    z3::expr all = c.bool_val(true);
    for (std::size_t k = 0; k < D; ++k) all = all && r.lo[k].v == qs[2 * k] && r.hi[k].v == qs[2 * k + 1];
    p.prove(c, {"B8", "B8 range is the quantised bounds " + d,
                "cell_range_of: lo[k] = cell_of(min[k]) and hi[k] = cell_of(max[k]) on every axis (each bound "
                "quantised once, min before max), so lo <= hi",
                dom, hyps, all && [&] {
                  z3::expr le = c.bool_val(true);
                  for (std::size_t k = 0; k < D; ++k) le = le && r.lo[k].v <= r.hi[k].v;
                  return le;
                }(), regression, kScope});
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
  for (const int which : {0, 1}) {
    lwc::proofs::prove_cell_range<2>(p, which);
    lwc::proofs::prove_cell_range<3>(p, which);
  }
  return p.finish();
}
