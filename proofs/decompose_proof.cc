// SPDX-License-Identifier: MIT
// File: proofs/decompose_proof.cc
//
// Proofs of lwc.decompose's split (docs/decompose.md D1-D4, D7) for every int64 x and every valid chunk
// size, on both fast paths: the kernels of modules/lwc/kernels.h, instantiated with the proof policy ZOps
// (support/z3_ops.h), whose ops' integer meaning support/op_lemmas.h proves on 64-bit words. Run by CTest
// (label `proof`); `--json PATH` writes the results for the audit. And D9's small-quotient fix-up
// (kernels::cell_small) with z3's IEEE floating-point theory, in a small format (see prove_cell_small).
// lwc-clauses: D1 D2 D3 D4 D7 D9
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include <z3++.h>

#include "lwc/kernels.h"
#include "support/op_lemmas.h"
#include "support/prover.h"
#include "support/z3_fp_ops.h"
#include "support/z3_ops.h"

namespace lwc::proofs {
namespace {

// A symbolic ChunkSize: the members split's kernels read, with the values ChunkSize's constructor stores
// (modules/lwc/decompose.h), as constraints on z3 integers.
struct ZSize {
  ZS value_;
  z3::expr pow2_;
  ZShift log2_;
  ZU multiplier_;
  ZShift post_;
  std::vector<z3::expr> domain;
  std::vector<Obligation> construction;  // what the constructor's arithmetic must satisfy

  ZS value() const { return value_; }
  z3::expr is_power_of_two() const { return pow2_; }
  ZShift log2() const { return log2_; }
  ZU multiplier() const { return multiplier_; }
  ZShift post_shift() const { return post_; }
};

// One of 2^lo, ..., 2^hi.
z3::expr one_of_powers(z3::context& c, const z3::expr& v, int lo, int hi) {
  z3::expr any = c.bool_val(false);
  for (int k = lo; k <= hi; ++k) any = any || v == pow2(c, k);
  return any;
}

// Sizes 2^k, k in [0, 62]: log2() = k, so the shift is by k (its power 2^k is the value itself).
ZSize power_of_two_size(const ZOps& o) {
  z3::context& c = o.ctx();
  const z3::expr s = c.int_const("s");
  return {{s}, c.bool_val(true), {s}, {c.int_val(0)}, {c.int_val(1)}, {one_of_powers(c, s, 0, 62)}, {}};
}

// Sizes s in [3, 2^63 - 1] that are not powers of two: with l = bit_width(s) and P = 2^(l - 1) (so
// P < s < 2P), the constructor stores m = floor(2^(63 + l) / s) + 1 = floor(2^64 * P / s) + 1 (cast to
// uint64) and post_shift = l - 1, i.e. a shift whose power is P.
ZSize reciprocal_size(const ZOps& o) {
  z3::context& c = o.ctx();
  const z3::expr s = c.int_const("s");
  const z3::expr pw = c.int_const("P");
  const z3::expr m = (o.two64() * pw) / s + 1;
  return {{s},
          c.bool_val(false),
          {c.int_val(1)},
          {m},
          {pw},
          {one_of_powers(c, pw, 1, 62), pw < s, s < 2 * pw, s < o.two63()},
          {{"the reciprocal fits uint64 (the constructor's cast keeps it)", m < o.two64()}}};
}

// The reciprocal lemma behind split_reciprocal (Granlund and Montgomery), in three steps, for every
// u in [0, 2^63) and every size s that is not a power of two (P = 2^(bit_width(s) - 1), P < s < 2P):
// with m = floor(2^64 * P / s) + 1, q = floor(floor(u * m / 2^64) / P) is floor(u / s):
// q * s <= u < q * s + s. Stated on fresh integers, so it holds wherever it is instantiated.
void prove_reciprocal_lemma(Prover& p) {
#define LWC_SETUP \
  z3::context c; \
  ZOps o(c); \
  const z3::expr u = c.int_const("u"), s = c.int_const("s"), pw = c.int_const("P"), m = c.int_const("m"), \
                 e = c.int_const("e"), h = c.int_const("h"), q = c.int_const("q"), q0 = c.int_const("q0"), \
                 r = c.int_const("r"); \
  const z3::expr T = o.two64(); \
  const std::vector<z3::expr> size = {pw >= 2, pw < s, s < 2 * pw, s < o.two63()};
  const std::string dom = "s in [3, 2^63 - 1], P with P < s < 2P (P = 2^(l - 1) for l = bit_width(s) is one)";
  const auto none = [](const z3::model&) { return std::string("(a lemma on integers; the kernel claims below give regressions)"); };
  // Steps on the reals (nlsat decides them completely): a claim true for all reals satisfying its
  // hypotheses is true for the integers among them. The integer facts they need are hypotheses stated
  // outright (s >= P + 1 for P < s, r <= s - 1 for r < s).
  const auto real_step = [&](const char* name, const char* words, const std::string& domain, auto&& build) {
    z3::context c;
    ZOps o(c);
    const z3::expr u = c.real_const("u"), s = c.real_const("s"), pw = c.real_const("P"), m = c.real_const("m"),
                   e = c.real_const("e"), q = c.real_const("q"), q0 = c.real_const("q0"), r = c.real_const("r"),
                   d = c.real_const("d"), w = c.real_const("W");
    const z3::expr T = c.real_val("18446744073709551616");
    std::vector<z3::expr> hyps = {pw >= 2, pw + 1 <= s, s < 2 * pw, s < T / 2};
    const auto [extra, goal] = build(T, u, s, pw, m, e, q, q0, r, d, w);
    for (const z3::expr& x : extra) hyps.push_back(x);
    Claim claim{"lemma", name, words, domain, hyps, goal, none};
    claim.tactic = "qfnra-nlsat";
    p.prove(c, claim);
  };
  using Exprs = std::vector<z3::expr>;
  real_step("lemma reciprocal 1 (the multiplier)",
            "m = floor(2^64 * P / s) + 1 satisfies m * s = 2^64 * P + e with 0 < e <= s, and m < 2^64",
            dom + "; d = floor(2^64 * P / s): 2^64 * P = d * s + rem, 0 <= rem <= s - 1",
            [](const z3::expr& T, const z3::expr&, const z3::expr& s, const z3::expr& pw, const z3::expr& m,
               const z3::expr&, const z3::expr&, const z3::expr&, const z3::expr& r, const z3::expr& d, const z3::expr&) {
              return std::pair{Exprs{T * pw == d * s + r, 0 <= r, r <= s - 1, m == d + 1},
                               m * s - T * pw > 0 && m * s - T * pw <= s && m < T};
            });
  // The error term, in steps z3 decides quickly (u = q0 * s + r, W = q0 * e + r * m, so u * m = q0 * 2^64 * P + W):
  const auto error_step = [&](const char* name, const char* words, auto&& build) {
    LWC_SETUP
    std::vector<z3::expr> hyps = size;
    hyps.push_back(u >= 0 && u < o.two63());
    hyps.push_back(m * s == T * pw + e && e > 0 && e <= s);
    hyps.push_back(q0 * s + r == u && r >= 0 && r < s);
    const z3::expr w = q0 * e + r * m;
    const auto [extra, goal] = build(c, T, u, s, pw, m, e, q0, r, q, w);
    for (const z3::expr& x : extra) hyps.push_back(x);
    p.prove(c, {"lemma", name, words, dom + "; u in [0, 2^63), m * s = 2^64 * P + e with 0 < e <= s, u = q0 * s + r, 0 <= r < s",
                hyps, goal, none});
  };
  error_step("lemma reciprocal 2a (identity)", "W * s == e * u + r * 2^64 * P and u * m == q0 * 2^64 * P + W",
             [](z3::context&, const z3::expr& T, const z3::expr& u, const z3::expr& s, const z3::expr& pw, const z3::expr& m,
                const z3::expr& e, const z3::expr& q0, const z3::expr& r, const z3::expr&, const z3::expr& w) {
               return std::pair{Exprs{}, w * s == e * u + r * T * pw && u * m == q0 * T * pw + w};
             });
  real_step("lemma reciprocal 2b (the error is small)", "e * u < 2^64 * P, so e * u + r * 2^64 * P < s * 2^64 * P",
            dom + "; u in [0, 2^63), 0 < e <= s, 0 <= r <= s - 1",
            [](const z3::expr& T, const z3::expr& u, const z3::expr& s, const z3::expr& pw, const z3::expr&,
               const z3::expr& e, const z3::expr&, const z3::expr&, const z3::expr& r, const z3::expr&, const z3::expr&) {
              return std::pair{Exprs{u >= 0, u < T / 2, e > 0, e <= s, r >= 0, r <= s - 1},
                               e * u < T * pw && e * u + r * T * pw < s * T * pw};
            });
  error_step("lemma reciprocal 2c (divide by s)", "0 <= W < 2^64 * P (from 2a and 2b)",
             [](z3::context&, const z3::expr& T, const z3::expr& u, const z3::expr& s, const z3::expr& pw, const z3::expr&,
                const z3::expr& e, const z3::expr&, const z3::expr& r, const z3::expr&, const z3::expr& w) {
               return std::pair{Exprs{w * s == e * u + r * T * pw, e * u + r * T * pw < s * T * pw}, 0 <= w && w < T * pw};
             });
  error_step("lemma reciprocal 2e (u / s)", "q0 >= 0 (u >= 0), so q0 = floor(u / s) is in [0, 2^63)",
             [](z3::context&, const z3::expr&, const z3::expr&, const z3::expr&, const z3::expr&, const z3::expr&,
                const z3::expr&, const z3::expr& q0, const z3::expr&, const z3::expr&, const z3::expr&) {
               return std::pair{Exprs{}, q0 >= 0};
             });
  real_step("lemma reciprocal 2d (the floor)",
            "q with q * 2^64 * P <= u * m < (q + 1) * 2^64 * P is within 1 of q0 (from 2a and 2c): |q - q0| < 1, "
            "so the integer q == q0 == floor(u / s)",
            dom + "; u * m == q0 * 2^64 * P + W with 0 <= W < 2^64 * P",
            [](const z3::expr& T, const z3::expr& u, const z3::expr&, const z3::expr& pw, const z3::expr& m,
               const z3::expr&, const z3::expr& q, const z3::expr& q0, const z3::expr&, const z3::expr&, const z3::expr& w) {
              return std::pair{Exprs{u * m == q0 * T * pw + w, 0 <= w, w < T * pw, q * T * pw <= u * m,
                                     u * m < (q + 1) * T * pw},
                               q - q0 < 1 && q0 - q < 1};
            });
  {
    LWC_SETUP
    std::vector<z3::expr> hyps = size;
    hyps.push_back(u >= 0 && u < o.two63() && m >= 0 && m < T);
    hyps.push_back(h * T <= u * m && u * m < (h + 1) * T);
    hyps.push_back(q * pw <= h && h < (q + 1) * pw);
    p.prove(c, {"lemma", "lemma reciprocal 3 (two shifts are one)",
             "floor(floor(u * m / 2^64) / P) == floor(u * m / (2^64 * P))", dom + "; u in [0, 2^63), m in [0, 2^64)", hyps,
             q * T * pw <= u * m && u * m < (q + 1) * T * pw, none});
  }
#undef LWC_SETUP
}

// D3 and D7 without the kernel: the pair of D1 and D2 is unique, hence floor(x / s) (D3); and
// split_by_division's pair (C++'s truncating / and %, then one correction) satisfies D1 and D2, so every
// path that satisfies them (the kernels above) is the division path (D7).
void prove_floor_lemmas(Prover& p) {
#define LWC_SETUP \
  z3::context c; \
  ZOps o(c); \
  const z3::expr x = c.int_const("x"), s = c.int_const("s"), ch = c.int_const("c"), l = c.int_const("l"), \
                 ch2 = c.int_const("c2"), l2 = c.int_const("l2"), tq = c.int_const("tq"), tr = c.int_const("tr"); \
  const std::string dom = "x: every int64; s in [1, 2^63 - 1]; c, l, c2, l2: any integers"; \
  const std::vector<z3::expr> base = {o.in_s(x), s >= 1, s < o.two63()};
  const auto none = [](const z3::model&) { return std::string("(a lemma on integers)"); };
  {
    LWC_SETUP
    std::vector<z3::expr> hyps = base;
    hyps.push_back(ch * s + l == x && 0 <= l && l < s);
    hyps.push_back(ch2 * s + l2 == x && 0 <= l2 && l2 < s);
    p.prove(c, {"D3", "D3 uniqueness",
             "any two pairs (c, l), (c2, l2) with c * s + l == x and 0 <= l < s are equal, so split's pair (D1, D2 for "
             "both paths) is (floor(x / s), x - floor(x / s) * s)",
             dom, hyps, ch == ch2 && l == l2, none});
  }
  {
    LWC_SETUP
    std::vector<z3::expr> hyps = base;
    // C++'s x / s and x % s for s > 0: x == tq * s + tr, |tr| < s, tr == 0 or of the sign of x.
    hyps.push_back(tq * s + tr == x && -s < tr && tr < s && (tr == 0 || (x < 0) == (tr < 0)));
    const z3::expr dq = z3::ite(tr < 0, tq - 1, tq);
    const z3::expr dr = z3::ite(tr < 0, tr + s, tr);
    p.prove(c, {"D7", "D7 division path",
             "split_by_division's pair (x / s, x % s), corrected to (q - 1, r + s) when r < 0, satisfies D1 and D2 "
             "without leaving int64; with D3 uniqueness and D1, D2 for both fast paths, split == split_by_division",
             dom + "; tq, tr: C++'s truncating quotient and remainder", hyps,
             dq * s + dr == x && 0 <= dr && dr < s && o.in_s(dq) && o.in_s(dr), none});
  }
#undef LWC_SETUP
}

std::string split_regression(const z3::model& m, const z3::expr& x, const z3::expr& s, const std::string& name) {
  const std::string xs = int_literal(m, x);
  const std::string ss = int_literal(m, s);
  return "// Counterexample found by proofs/decompose_proof.cc (" + name +
         ").\n"
         "TEST(Split, ProofCounterexample) {\n"
         "  const lwc::ChunkSize size = *lwc::ChunkSize::create(" +
         ss +
         ");\n"
         "  const lwc::ChunkPoint p = lwc::split(" +
         xs +
         ", size);\n"
         "  EXPECT_TRUE(lwc::contracts::check_split(" +
         xs + ", " + ss +
         ", p.chunk, p.local).ok()) << p;\n"
         "}";
}

void prove_path(Prover& p, const std::string& path, bool shift, int which) {
  z3::context c;
  ZOps o(c);
  const ZSize size = shift ? power_of_two_size(o) : reciprocal_size(o);
  const z3::expr x = c.int_const("x");
  const z3::expr s = size.value_.v;
  std::vector<z3::expr> domain = size.domain;
  domain.push_back(o.in_s(x));
  const std::string dom = "x: every int64 [-2^63, 2^63 - 1]; " +
                          std::string(shift ? "s: every power of two 2^k, k in [0, 62]"
                                            : "s: every int64 in [3, 2^63 - 1] that is not a power of two "
                                              "(with its reciprocal m and post_shift as ChunkSize stores them)");
  if (!shift) o.set_opaque(true);
  const kernels::Split<ZS> r = shift ? kernels::split_shift(o, ZS{x}, size) : kernels::split_reciprocal(o, ZS{x}, size);
  if (!shift) {
    // The reciprocal lemma (prove_reciprocal_lemma: for every u in [0, 2^63) and size), instantiated at the
    // kernel's own opaque h = mul_high(u, m) and q = h >> post_shift: q == floor(u / s) >= 0.
    const auto& ops = o.opaque();
    if (ops.size() != 2 || ops[0].op != "mul_high" || ops[1].op != "shr" || !z3::eq(ops[0].b, size.multiplier_.v) ||
        !z3::eq(ops[1].a, ops[0].result) || !z3::eq(ops[1].b, size.post_.pow)) {
      std::cerr << "split_reciprocal no longer computes q = mul_high(u, m) >> post_shift: update the proof\n";
      std::exit(2);
    }
    const z3::expr& u = ops[0].a;
    const z3::expr& q = ops[1].result;
    domain.push_back(z3::implies(u >= 0 && u < o.two63(), q >= 0 && q * s <= u && u < q * s + s));
    domain.push_back(size.multiplier_.v < o.two64());  // lemma reciprocal 1
  }
  const std::string where = shift ? "split_shift" : "split_reciprocal";
  const auto claim = [&](const std::string& clause, const std::string& words, const z3::expr& goal) {
    const std::string name = clause + " " + path;
    if (clause != std::string(which == 0 ? "D1" : which == 1 ? "D2" : "D4")) return;
    p.prove(c, {clause, name, where + ": " + words, dom, domain, goal,
             [x, s, name](const z3::model& m) { return split_regression(m, x, s, name); }});
  };
  const z3::expr chunk = r.chunk.v;
  const z3::expr local = r.local.v;
  claim("D1", "chunk * s + local == x, exactly (in the integers)", chunk * s + local == x);
  claim("D2", "0 <= local < s", 0 <= local && local < s);
  // D4: every obligation ZOps recorded while building the kernel's terms, and the constructor's.
  z3::expr all = c.bool_val(true);
  std::string listed;
  for (const Obligation& ob : o.obligations()) {
    all = all && ob.holds;
    listed += (listed.empty() ? "" : "; ") + ob.what;
  }
  for (const Obligation& ob : size.construction) {
    all = all && ob.holds;
    listed += (listed.empty() ? "" : "; ") + ob.what;
  }
  claim("D4", "no intermediate leaves its type: " + listed, all);
  // D3 and D7 for this path follow from D1 and D2 here with the two lemmas of prove_floor_lemmas: the
  // pair is unique (D3), and split_by_division's pair is that pair too (D7).
}

// D9: cell_small (the body of cell_of_small past the flags' early exits) in the IEEE format (ebits, sbits):
// for every pair of finite v and positive finite h of that format (subnormals included), when it accepts
// (|fl(v / h)| < 2^p) the cell n it stores is the exact floor: n * h <= v < (n + 1) * h. The products are
// taken in a format of 2p + 2 significand bits and two more exponent bits, where a (p + 1)-bit integer
// times a p-bit significand is exact, and the comparisons there are exact.
void prove_cell_small(Prover& p, const char* format, unsigned ebits, unsigned sbits, const std::string& scope) {
  z3::context c;
  const ZFpOps o(c, ebits, sbits);
  const ZFpOps wide(c, ebits + 2, 2 * sbits + 2);
  const z3::expr v = c.constant("v", o.sort());
  const z3::expr h = c.constant("h", o.sort());
  const auto finite = [&](const z3::expr& x) {
    return !z3::expr(c, Z3_mk_fpa_is_nan(c, x)) && !z3::expr(c, Z3_mk_fpa_is_infinite(c, x));
  };
  const z3::expr positive = z3::expr(c, Z3_mk_fpa_is_positive(c, h)) && !z3::expr(c, Z3_mk_fpa_is_zero(c, h));
  z3::expr cell = c.bv_val(0, o.cell_bits());
  const z3::expr ok = kernels::cell_small(o, v, h, cell, [&] { return o.no(); });  // IEEE: no operand is flushed
  const auto to_wide = [&](const z3::expr& x) {
    return z3::expr(c, Z3_mk_fpa_to_fp_float(c, Z3_mk_fpa_rne(c), x, wide.sort()));
  };
  const auto int_wide = [&](const z3::expr& n) { return wide.to_fp(n); };
  const z3::expr wv = to_wide(v), wh = to_wide(h);
  const z3::expr lo = z3::expr(c, Z3_mk_fpa_mul(c, Z3_mk_fpa_rne(c), int_wide(cell), wh));
  const z3::expr hi = z3::expr(c, Z3_mk_fpa_mul(c, Z3_mk_fpa_rne(c), int_wide(cell + c.bv_val(1, o.cell_bits())), wh));
  const z3::expr goal = z3::implies(ok, z3::expr(c, Z3_mk_fpa_leq(c, lo, wv)) && z3::expr(c, Z3_mk_fpa_lt(c, wv, hi)));
  const unsigned p_bits = sbits;
  const auto regression = [v, h, format](const z3::model& m) {
    // The format's values are doubles too (exactly): the regression runs them through cell_of<double>.
    const auto lit = [&](const z3::expr& e) {
      const z3::expr r = m.eval(z3::expr(e.ctx(), Z3_mk_fpa_to_real(e.ctx(), m.eval(e, true))), true);
      std::string d = r.get_decimal_string(80);
      if (!d.empty() && d.back() == '?') d.pop_back();
      return d.find('.') == std::string::npos ? d + ".0" : d;
    };
    return std::string("// Counterexample found by proofs/decompose_proof.cc (D9, in the ") + format +
           " format; its values are exact doubles).\n" + "TEST(CellOf, ProofCounterexample) {\n" +
           "  const double v = " + lit(v) + ";\n" + "  const double h = " + lit(h) + ";\n" +
           "  EXPECT_TRUE(lwc::contracts::check_cell_of(v, h, lwc::cell_of(v, h)).ok());\n}";
  };
  Claim claim{"D9", std::string("D9 cell_of fix-up, ") + format,
              "cell_small (cell_of's small-quotient path: q = fl(v / h), n = trunc(q), minus one when n > q or "
              "n == q and fma(-n, h, v) < 0): whenever |q| < 2^" + std::to_string(p_bits) +
                  " it stores the exact floor, n * h <= v < (n + 1) * h (products exact in a " +
                  std::to_string(2 * sbits + 2) + "-bit format)",
              std::string("v: every finite ") + format + "; h: every positive finite " + format +
                  " (subnormals included); IEEE arithmetic, round to nearest even",
              {finite(v), finite(h), positive},
              goal,
              regression,
              scope,
              "qffp"};
  p.prove(c, claim);
}

}  // namespace
}  // namespace lwc::proofs

int main(int argc, char** argv) {
  lwc::proofs::Prover p("decompose", argc, argv);
  // --d9 EBITS SBITS: only D9, in that IEEE format (to measure what z3 decides; not run by CTest).
  for (int i = 1; i + 2 < argc; ++i) {
    if (std::string(argv[i]) != "--d9") continue;
    const unsigned e = static_cast<unsigned>(std::atoi(argv[i + 1])), m = static_cast<unsigned>(std::atoi(argv[i + 2]));
    const std::string f = "(" + std::to_string(e) + ", " + std::to_string(m) + ")";
    lwc::proofs::prove_cell_small(p, f.c_str(), e, m, "every pair of finite " + f + " floats");
    return p.finish();
  }
  lwc::proofs::prove_op_lemmas(p);
  lwc::proofs::prove_floor_lemmas(p);
  for (int which = 0; which < 3; ++which) lwc::proofs::prove_path(p, "shift path", true, which);
  lwc::proofs::prove_reciprocal_lemma(p);
  for (int which = 0; which < 3; ++which) lwc::proofs::prove_path(p, "reciprocal path", false, which);
  // D9 in the IEEE formats z3 decides within the time limit on a loaded machine (docs/decompose.md, "D9 in
  // z3's floating-point theory"); --d9 EBITS SBITS runs a wider one alone.
  lwc::proofs::prove_cell_small(p, "(4, 4)", 4, 4, "bounded: every pair of finite (4, 4) floats (4 exponent bits, 4 "
                                "significand bits); not binary32 or binary64 (docs/decompose.md)");
  return p.finish();
}
