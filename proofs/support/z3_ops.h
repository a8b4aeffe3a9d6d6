// SPDX-License-Identifier: MIT
// File: proofs/support/z3_ops.h
//
// The proof policy for the kernels of modules/lwc/kernels.h: the same templates the library runs with
// MachineOps<int64_t>, instantiated with z3 terms over the mathematical integers. Each op returns the exact
// integer its machine op computes whenever the machine op stays in its word, and records that condition as
// an obligation (under the path condition of the branches it sits in): proving every obligation proves
// that no intermediate leaves its type (D4, C10), and then the exact integers are the machine's values.
// The ops that are not plain arithmetic (>>, & with a mask, ^ and & with a sign word, the high word of a
// product) are given their integer meaning here, and that meaning is proved for every 64-bit input on the
// bit-vectors of the machine by proofs/support/op_lemmas.h, so each step from the C++ expression to the
// integer is machine-checked.
#ifndef LWC_PROOFS_Z3_OPS_H_
#define LWC_PROOFS_Z3_OPS_H_

#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <z3++.h>

#include "lwc/kernels.h"

namespace lwc::proofs {

struct ZS {  // a value of int64_t
  z3::expr v;
};
struct ZU {  // a value of uint64_t
  z3::expr v;
};
struct ZShift {  // a shift amount k, known by its power 2^k
  z3::expr pow;
};

struct Obligation {
  std::string what;  // "int64 add (kernels.h:123)"
  z3::expr holds;    // path => condition
};

// 2^k as an exact z3 integer, for any k >= 0.
inline z3::expr pow2(z3::context& c, int k) {
  std::string digits = "1";
  for (int i = 0; i < k; ++i) {  // decimal doubling
    int carry = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
      const int d = (*it - '0') * 2 + carry;
      *it = static_cast<char>('0' + d % 10);
      carry = d / 10;
    }
    if (carry != 0) digits.insert(digits.begin(), static_cast<char>('0' + carry));
  }
  return c.int_val(digits.c_str());
}

class ZOps {
 public:
  using S = ZS;
  using U = ZU;
  using Bool = z3::expr;
  using Shift = ZShift;
  static constexpr int kBits = 64;
  using Loc = std::source_location;

  explicit ZOps(z3::context& c)
      : c_(&c), two63_(pow2(c, 63)), two64_(pow2(c, 64)) {}

  z3::context& ctx() const { return *c_; }
  z3::expr in_s(const z3::expr& v) const { return -two63_ <= v && v < two63_; }
  z3::expr in_u(const z3::expr& v) const { return 0 <= v && v < two64_; }
  const z3::expr& two63() const { return two63_; }
  const z3::expr& two64() const { return two64_; }
  const std::vector<Obligation>& obligations() const { return obligations_; }
  void clear_obligations() const { obligations_.clear(); }

  S s(std::int64_t v) const { return {ctx().int_val(v)}; }
  U u(std::uint64_t v) const { return {ctx().int_val(v)}; }
  U u_max() const { return {two64_ - 1}; }
  Shift shift(int k) const { return {pow2(ctx(), k)}; }

  S add(S a, S b, Loc l = Loc::current()) const { return signed_result(a.v + b.v, "int64 add", l); }
  S sub(S a, S b, Loc l = Loc::current()) const { return signed_result(a.v - b.v, "int64 sub", l); }
  S neg(S a, Loc l = Loc::current()) const { return signed_result(-a.v, "int64 negate", l); }
  U add(U a, U b, Loc l = Loc::current()) const { return unsigned_result(a.v + b.v, "uint64 add", l); }
  U sub(U a, U b, Loc l = Loc::current()) const { return unsigned_result(a.v - b.v, "uint64 sub", l); }
  U mul(U a, U b, Loc l = Loc::current()) const { return unsigned_result(a.v * b.v, "uint64 mul", l); }
  // Lemma mul_high: the 128-bit product of two uint64 never wraps, its high word is floor(a * b / 2^64).
  U mul_high(U a, U b) const { return {opaque_or("mul_high", (a.v * b.v) / two64_, a.v, b.v)}; }
  // Lemmas sar, shr: x >> k == floor(x / 2^k) (z3's div is Euclidean: the floor for a positive divisor).
  S sar(S x, Shift k) const { return {x.v / k.pow}; }
  U shr(U x, Shift k) const {
    return {k.pow.is_numeral() ? x.v / k.pow : opaque_or("shr", x.v / k.pow, x.v, k.pow)};
  }

  // Opaque mode: the results of mul_high and of shifts by a symbolic amount become fresh constants, listed
  // in opaque() with their operands. A proof then states what it knows of them by instantiating a lemma
  // proved separately for every operand (a claim true for any value of an opaque constant that satisfies
  // the lemma is true for the kernel's value); this keeps nonlinear division out of the kernel's claims.
  struct Opaque {
    std::string op;
    z3::expr result, a, b;  // result == a * b / 2^64 (mul_high) or a / b (shr, b = 2^k)
  };
  void set_opaque(bool on) { opaque_mode_ = on; }
  const std::vector<Opaque>& opaque() const { return opaque_; }
  // Lemma low_bits: x & (2^k - 1) == x - floor(x / 2^k) * 2^k, i.e. x mod 2^k; the mask must be 2^k - 1.
  S low_bits(S x, S mask) const { return {z3::mod(x.v, mask.v + 1)}; }
  // Lemmas flip, keep: for sign in {0, -1}.
  S flip(S a, S sign, Loc l = Loc::current()) const {
    need(sign.v == 0 || sign.v == -1, "sign word in {0, -1} for ^", l);
    return {z3::ite(sign.v == 0, a.v, -a.v - 1)};
  }
  S keep(S a, S sign, Loc l = Loc::current()) const {
    need(sign.v == 0 || sign.v == -1, "sign word in {0, -1} for &", l);
    return {z3::ite(sign.v == 0, ctx().int_val(0), a.v)};
  }
  U to_u(S a, Loc l = Loc::current()) const {
    need(a.v >= 0, "int64 -> uint64 keeps the value (non-negative)", l);
    return {a.v};
  }
  S to_s(U a, Loc l = Loc::current()) const {
    need(a.v < two63_, "uint64 -> int64 keeps the value (below 2^63)", l);
    return {a.v};
  }

  Bool lt(S a, S b) const { return a.v < b.v; }
  Bool le(S a, S b) const { return a.v <= b.v; }
  Bool eq(S a, S b) const { return a.v == b.v; }
  Bool eq(U a, U b) const { return a.v == b.v; }
  Bool either(Bool a, Bool b) const { return a || b; }
  Bool negate(Bool a) const { return !a; }
  // a && b(), b under the path condition a (its obligations need hold only where a does).
  template <class F>
  Bool and_then(const Bool& a, F&& b) const {
    path_.push_back(a);
    const z3::expr r = std::forward<F>(b)();
    path_.pop_back();
    return a && r;
  }
  // A condition known at compile time of the proof (a loop index): b is not built when a is false.
  template <class F>
  Bool and_then(bool a, F&& b) const {
    return a ? std::forward<F>(b)() : ctx().bool_val(false);
  }

  // Both callables run, each under its path condition; their values are merged by a select. Callables that
  // return nothing act on an output (proofs/support/z3_runs.h) whose every update is guarded by path().
  template <class F, class G>
  auto branch(const Bool& c, F&& then_fn, G&& else_fn) const {
    if constexpr (std::is_void_v<decltype(then_fn())>) {
      path_.push_back(c);
      std::forward<F>(then_fn)();
      path_.pop_back();
      path_.push_back(!c);
      std::forward<G>(else_fn)();
      path_.pop_back();
    } else {
      path_.push_back(c);
      auto a = std::forward<F>(then_fn)();
      path_.pop_back();
      path_.push_back(!c);
      auto b = std::forward<G>(else_fn)();
      path_.pop_back();
      return zmerge(c, a, b);
    }
  }
  template <class F, class G>
  auto branch_unlikely(const Bool& c, F&& then_fn, G&& else_fn) const {
    return branch(c, std::forward<F>(then_fn), std::forward<G>(else_fn));
  }

  // The conjunction of the current path conditions.
  z3::expr path() const {
    z3::expr p = ctx().bool_val(true);
    for (const z3::expr& e : path_) p = p && e;
    return p;
  }
  void need(const z3::expr& cond, const std::string& what, Loc l) const {
    obligations_.push_back({what + " (" + short_file(l.file_name()) + ":" + std::to_string(l.line()) + ")",
                            z3::implies(path(), cond)});
  }

 private:
  z3::expr opaque_or(const char* op, const z3::expr& exact, const z3::expr& a, const z3::expr& b) const {
    if (!opaque_mode_) return exact;
    const z3::expr r = ctx().int_const((std::string(op) + "_" + std::to_string(opaque_.size())).c_str());
    opaque_.push_back({op, r, a, b});
    return r;
  }
  static std::string short_file(const char* f) {
    std::string s(f);
    const auto at = s.rfind("/modules/");
    return at == std::string::npos ? s : s.substr(at + 1);
  }
  S signed_result(const z3::expr& v, const char* what, Loc l) const {
    need(in_s(v), std::string(what) + " stays in int64", l);
    return {v};
  }
  U unsigned_result(const z3::expr& v, const char* what, Loc l) const {
    need(in_u(v), std::string(what) + " stays in uint64 (no wrap)", l);
    return {v};
  }

  z3::context* c_;
  z3::expr two63_;
  z3::expr two64_;
  mutable std::vector<z3::expr> path_;
  mutable std::vector<Obligation> obligations_;
  bool opaque_mode_ = false;
  mutable std::vector<Opaque> opaque_;
};

inline ZS zmerge(const z3::expr& c, const ZS& a, const ZS& b) { return {z3::ite(c, a.v, b.v)}; }
inline ZU zmerge(const z3::expr& c, const ZU& a, const ZU& b) { return {z3::ite(c, a.v, b.v)}; }
inline z3::expr zmerge(const z3::expr& c, const z3::expr& a, const z3::expr& b) { return z3::ite(c, a, b); }
inline kernels::Split<ZS> zmerge(const z3::expr& c, const kernels::Split<ZS>& a, const kernels::Split<ZS>& b) {
  return {zmerge(c, a.chunk, b.chunk), zmerge(c, a.local, b.local)};
}

}  // namespace lwc::proofs

#endif  // LWC_PROOFS_Z3_OPS_H_
