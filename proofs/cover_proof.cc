// SPDX-License-Identifier: MIT
// File: proofs/cover_proof.cc
//
// Proofs of lwc.cover's span arithmetic (docs/cover.md C1-C6, C10) for every int64 range and size, half-open
// and closed: the kernels cover_half_open, cover_closed, extent and count_or_zero of modules/lwc/kernels.h,
// instantiated with the proof policy ZOps (support/z3_ops.h). The chunk of a point is split's, which
// proofs/decompose_proof.cc proves is floor(x / s) (D1-D3); here the kernels are proved for any chunk
// function (an uninterpreted one), and C1-C3 then for the floor. Run by CTest (label `proof`).
// lwc-clauses: C1 C2 C3 C4 C5 C6 C10
#include <cstdint>
#include <string>
#include <vector>

#include <z3++.h>

#include "lwc/kernels.h"
#include "support/prover.h"
#include "support/z3_ops.h"

namespace lwc::proofs {

// What cover returns, as terms: kind 0 a span [first, last], 1 nullopt (empty), 2 InvalidArgument.
struct ZOutcome {
  z3::expr kind;
  z3::expr first;
  z3::expr last;
};
inline ZOutcome zmerge(const z3::expr& c, const ZOutcome& a, const ZOutcome& b) {
  return {z3::ite(c, a.kind, b.kind), z3::ite(c, a.first, b.first), z3::ite(c, a.last, b.last)};
}

namespace {

constexpr int kSpan = 0;
constexpr int kEmpty = 1;
constexpr int kReversed = 2;

std::string cover_regression(const z3::model& m, const z3::expr& a, const z3::expr& b, const z3::expr& s, bool closed,
                             const std::string& name) {
  const std::string as = int_literal(m, a);
  const std::string bs = int_literal(m, b);
  const std::string ss = int_literal(m, s);
  const std::string f = closed ? "cover_closed" : "cover";
  return "// Counterexample found by proofs/cover_proof.cc (" + name + ").\n" + "TEST(Cover, ProofCounterexample) {\n" +
         "  const lwc::ChunkSize size = *lwc::ChunkSize::create(" + ss + ");\n" +
         "  const absl::StatusOr<std::optional<lwc::ChunkSpan>> got = lwc::" + f + "(" + as + ", " + bs + ", size);\n" +
         "  EXPECT_TRUE(lwc::contracts::check_" + (closed ? std::string("cover_closed") : std::string("cover")) + "(" +
         as + ", " + bs + ", " + ss + ", lwc::contracts::answer_of(got)).ok());\n" + "}";
}

std::string all_obligations(const ZOps& o, z3::expr& all) {
  std::string listed;
  for (const Obligation& ob : o.obligations()) {
    all = all && ob.holds;
    listed += (listed.empty() ? "" : "; ") + ob.what;
  }
  return listed;
}

// The cover kernels with an uninterpreted chunk function: which outcome, which span, and C10.
void prove_cover_kernel(Prover& p, bool closed, int which) {
  z3::context c;
  ZOps o(c);
  const z3::expr a = c.int_const("a");
  const z3::expr b = c.int_const("b");
  const z3::expr s = c.int_const("s");
  const z3::func_decl chunk = c.function("chunk", c.int_sort(), c.int_sort());
  const auto chunk_fn = [&](ZS x) { return ZS{chunk(x.v)}; };
  const auto reversed = [&] { return ZOutcome{c.int_val(kReversed), c.int_val(0), c.int_val(0)}; };
  const auto empty = [&] { return ZOutcome{c.int_val(kEmpty), c.int_val(0), c.int_val(0)}; };
  const auto span = [&](ZS f, ZS l) { return ZOutcome{c.int_val(kSpan), f.v, l.v}; };
  const ZOutcome r = closed ? kernels::cover_closed(o, ZS{a}, ZS{b}, chunk_fn, reversed, empty, span)
                            : kernels::cover_half_open(o, ZS{a}, ZS{b}, chunk_fn, reversed, empty, span);
  const std::vector<z3::expr> domain = {o.in_s(a), o.in_s(b), s >= 1, s < o.two63()};
  const std::string form = closed ? "closed" : "half-open";
  const std::string range = closed ? "[a, b]" : "[a, b)";
  const std::string dom = "a, b: every int64; s in [1, 2^63 - 1]; chunk: any function of int64 (split's chunk in the library)";
  const auto claim = [&](const std::string& clause, const std::string& words, const z3::expr& goal) {
    const std::string name = clause + " " + form;
    p.prove(c, {clause, name, std::string(closed ? "cover_closed" : "cover_half_open") + ": " + words, dom, domain, goal,
                [a, b, s, closed, name](const z3::model& m) { return cover_regression(m, a, b, s, closed, name); }});
  };
  if (which == 0) {
    if (closed) {
      claim("C4", "b == a - 1 (zero points) gives nullopt, b < a - 1 InvalidArgument, a <= b a span",
            z3::implies(b == a - 1, r.kind == kEmpty) && z3::implies(b < a - 1, r.kind == kReversed) &&
                z3::implies(a <= b, r.kind == kSpan));
    } else {
      claim("C4", "a == b (empty, any a including INT64_MIN) gives nullopt, b < a InvalidArgument, a < b a span",
            z3::implies(a == b, r.kind == kEmpty) && z3::implies(b < a, r.kind == kReversed) &&
                z3::implies(a < b, r.kind == kSpan));
    }
  } else if (which == 1) {
    const z3::expr last_point = closed ? b : b - 1;
    claim("C1 C2 C3", "a non-empty range " + range + " gives the span [chunk(a), chunk(" + (closed ? "b" : "b - 1") +
                          ")], the chunks of its first and last points",
          z3::implies(closed ? a <= b : a < b, r.first == chunk(a) && r.last == chunk(last_point)));
  } else {
    z3::expr all = c.bool_val(true);
    const std::string listed = all_obligations(o, all);
    claim("C10", "no intermediate leaves int64 (the chunk function aside, D4): " + listed, all);
  }
}

// C5: cover_closed(a, b) == cover(a, b + 1) wherever b + 1 exists, both kernels with the same chunk function.
void prove_closed_form(Prover& p) {
  z3::context c;
  ZOps o(c);
  const z3::expr a = c.int_const("a");
  const z3::expr b = c.int_const("b");
  const z3::expr s = c.int_const("s");
  const z3::func_decl chunk = c.function("chunk", c.int_sort(), c.int_sort());
  const auto chunk_fn = [&](ZS x) { return ZS{chunk(x.v)}; };
  const auto reversed = [&] { return ZOutcome{c.int_val(kReversed), c.int_val(0), c.int_val(0)}; };
  const auto empty = [&] { return ZOutcome{c.int_val(kEmpty), c.int_val(0), c.int_val(0)}; };
  const auto span = [&](ZS f, ZS l) { return ZOutcome{c.int_val(kSpan), f.v, l.v}; };
  const ZOutcome closed = kernels::cover_closed(o, ZS{a}, ZS{b}, chunk_fn, reversed, empty, span);
  const ZOutcome open = kernels::cover_half_open(o, ZS{a}, ZS{b + 1}, chunk_fn, reversed, empty, span);
  const z3::expr same = closed.kind == open.kind && z3::implies(closed.kind == kSpan, closed.first == open.first &&
                                                                                         closed.last == open.last);
  p.prove(c, {"C5", "C5 closed form", "cover_closed(a, b) == cover(a, b + 1): the same span, both nullopt or both InvalidArgument",
              "a: every int64; b: every int64 below INT64_MAX; s in [1, 2^63 - 1]; chunk: any function",
              {o.in_s(a), o.in_s(b), b < o.two63() - 1, s >= 1}, same,
              [a, b, s](const z3::model& m) { return cover_regression(m, a, b, s, true, "C5"); }});
}

// C1-C3 for the floor: the span [floor(a / s), floor(B / s)] of a non-empty closed integer range [a, B]
// (B = b - 1 for the half-open form) is exactly the set of chunks its points lie in.
void prove_floor_span(Prover& p, int which) {
  z3::context c;
  ZOps o(c);
  const z3::expr a = c.int_const("a"), B = c.int_const("B"), s = c.int_const("s"), f = c.int_const("f"),
                 l = c.int_const("l"), x = c.int_const("x"), cx = c.int_const("cx"), k = c.int_const("k");
  std::vector<z3::expr> hyps = {o.in_s(a), o.in_s(B), a <= B, s >= 1, s < o.two63(),
                                f * s <= a, a < f * s + s,  // f = floor(a / s)
                                l * s <= B, B < l * s + s};  // l = floor(B / s)
  const std::string dom = "a <= B: every int64 pair (B = b - 1 for [a, b), b for [a, b]); s in [1, 2^63 - 1]; "
                          "f = floor(a / s), l = floor(B / s) (split's chunks, D3)";
  const auto none = [](const z3::model&) { return std::string("(a lemma on integers; the kernel claims give regressions)"); };
  if (which == 0) {
    hyps.push_back(a <= x && x <= B && cx * s <= x && x < cx * s + s);
    p.prove(c, {"C1", "C1 completeness", "every point x of the range lies in a chunk of the span: f <= floor(x / s) <= l",
                dom + "; x: every point of [a, B]", hyps, f <= cx && cx <= l, none});
  } else if (which == 1) {
    p.prove(c, {"C2", "C2 tightness", "chunks f and l both intersect the range: f * s <= B, (f + 1) * s > a, l * s <= B, (l + 1) * s > a",
                dom, hyps, f * s <= B && (f + 1) * s > a && l * s <= B && (l + 1) * s > a, none});
  } else {
    hyps.push_back(f <= k && k <= l);
    p.prove(c, {"C3", "C3 contiguity", "every chunk k in [f, l] intersects the range: k * s <= B and (k + 1) * s > a",
                dom + "; k: every chunk of the span", hyps, k * s <= B && (k + 1) * s > a, none});
  }
}

// C6: the count kernel is l - f + 1 exactly, 0 (OutOfRange) only for [INT64_MIN, INT64_MAX], never wraps.
void prove_count(Prover& p, int which) {
  z3::context c;
  ZOps o(c);
  const z3::expr f = c.int_const("f");
  const z3::expr l = c.int_const("l");
  const ZU n = kernels::count_or_zero(o, ZS{f}, ZS{l});
  const std::vector<z3::expr> hyps = {o.in_s(f), o.in_s(l), f <= l};
  const std::string dom = "f <= l: every int64 span";
  const auto regression = [f, l](const z3::model& m) {
    return "// Counterexample found by proofs/cover_proof.cc (C6).\nTEST(Count, ProofCounterexample) {\n"
           "  const lwc::ChunkSpan span = *lwc::ChunkSpan::create(" +
           int_literal(m, f) + ", " + int_literal(m, l) +
           ");\n  EXPECT_TRUE(lwc::contracts::check_count(span.first(), span.last(), lwc::count(span)).ok());\n}";
  };
  if (which == 0) {
    const z3::expr exact = l - f + 1;
    p.prove(c, {"C6", "C6 exact count",
                "count_or_zero([f, l]) == l - f + 1 when that is at most 2^64 - 1, else 0 (OutOfRange), which happens "
                "exactly for [INT64_MIN, INT64_MAX]",
                dom, hyps,
                z3::ite(exact <= o.two64() - 1, n.v == exact, n.v == 0) &&
                    ((n.v == 0) == (f == -o.two63() && l == o.two63() - 1)),
                regression});
  } else {
    z3::expr all = c.bool_val(true);
    const std::string listed = all_obligations(o, all);
    p.prove(c, {"C10", "C10 count", "extent and count_or_zero leave no word (signed or unsigned): " + listed, dom, hyps,
                all, regression});
  }
}

// C6's second half: the span of a half-open cover never has 2^64 chunks, so its count is OK.
void prove_half_open_count(Prover& p) {
  z3::context c;
  ZOps o(c);
  const z3::expr a = c.int_const("a"), b = c.int_const("b"), s = c.int_const("s"), f = c.int_const("f"),
                 l = c.int_const("l");
  p.prove(c, {"C6", "C6 half-open count is OK",
              "for a < b, the span [floor(a / s), floor((b - 1) / s)] is not [INT64_MIN, INT64_MAX]",
              "a < b: every int64 pair; s in [1, 2^63 - 1]; f, l: the floors",
              {o.in_s(a), o.in_s(b), a < b, s >= 1, s < o.two63(), f * s <= a, a < f * s + s, l * s <= b - 1,
               b - 1 < l * s + s},
              !(f == -o.two63() && l == o.two63() - 1),
              [](const z3::model&) { return std::string("(a lemma on integers)"); }});
}

}  // namespace
}  // namespace lwc::proofs

int main(int argc, char** argv) {
  lwc::proofs::Prover p("cover", argc, argv);
  for (const bool closed : {false, true}) {
    for (int which = 0; which < 3; ++which) lwc::proofs::prove_cover_kernel(p, closed, which);
  }
  lwc::proofs::prove_closed_form(p);
  for (int which = 0; which < 3; ++which) lwc::proofs::prove_floor_span(p, which);
  for (int which = 0; which < 2; ++which) lwc::proofs::prove_count(p, which);
  lwc::proofs::prove_half_open_count(p);
  return p.finish();
}
