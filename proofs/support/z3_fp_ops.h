// SPDX-License-Identifier: MIT
// File: proofs/support/z3_fp_ops.h
//
// The floating-point proof policy for kernels::cell_small (modules/lwc/kernels.h): z3's IEEE 754 theory
// (QF_FPBV) in a chosen format (exponent and significand bits: (5, 11) binary16, (8, 24) binary32,
// (11, 53) binary64), every operation rounding to nearest-even as the machine's does: / and fma are
// z3's fp.div and fp.fma, the comparisons fp.lt / fp.gt / fp.eq (false on NaN, -0 == +0), the cast to int64
// fp.to_sbv toward zero, the cast back to_fp of a signed word. Cells are (p + 2)-bit words, not 64-bit ones:
// the kernel converts only quotients |q| < 2^p, whose truncation n (|n| <= 2^p, and n - 1, n + 1) a
// (p + 2)-bit two's complement word holds exactly, so both conversions have the values of the int64 ones
// (and bit-blasting a 64-bit conversion made the solver several times slower).
#ifndef LWC_PROOFS_Z3_FP_OPS_H_
#define LWC_PROOFS_Z3_FP_OPS_H_

#include <cstdint>
#include <utility>

#include <z3++.h>

namespace lwc::proofs {

class ZFpOps {
 public:
  using Fp = z3::expr;
  using S = z3::expr;
  using Bool = z3::expr;

  ZFpOps(z3::context& c, unsigned ebits, unsigned sbits) : c_(&c), ebits_(ebits), sbits_(sbits) {}

  unsigned cell_bits() const { return sbits_ + 2; }

  z3::context& ctx() const { return *c_; }
  z3::sort sort() const { return c_->fpa_sort(ebits_, sbits_); }
  unsigned sbits() const { return sbits_; }
  z3::expr rne() const { return c_->fpa_rounding_mode(); }  // the default: nearest, ties to even

  Fp div(const Fp& a, const Fp& b) const { return fpop(Z3_mk_fpa_div(ctx(), rm(), a, b)); }
  Fp neg(const Fp& a) const { return fpop(Z3_mk_fpa_neg(ctx(), a)); }
  Fp fabs(const Fp& a) const { return fpop(Z3_mk_fpa_abs(ctx(), a)); }
  Fp fma(const Fp& a, const Fp& b, const Fp& c) const { return fpop(Z3_mk_fpa_fma(ctx(), rm(), a, b, c)); }
  Fp exact_integers() const { return value(static_cast<double>(std::uint64_t{1} << sbits_)); }
  Fp zero() const { return fpop(Z3_mk_fpa_zero(ctx(), sort(), false)); }
  Bool lt(const Fp& a, const Fp& b) const { return fpop(Z3_mk_fpa_lt(ctx(), a, b)); }
  Bool gt(const Fp& a, const Fp& b) const { return fpop(Z3_mk_fpa_gt(ctx(), a, b)); }
  Bool eq(const Fp& a, const Fp& b) const { return fpop(Z3_mk_fpa_eq(ctx(), a, b)); }
  S trunc(const Fp& q) const { return fpop(Z3_mk_fpa_to_sbv(ctx(), rtz(), q, cell_bits())); }
  Fp to_fp(const S& n) const { return fpop(Z3_mk_fpa_to_fp_signed(ctx(), rm(), n, sort())); }
  S decrement_if(const Bool& c, const S& n) const { return z3::ite(c, n - ctx().bv_val(1, cell_bits()), n); }
  Bool yes() const { return ctx().bool_val(true); }
  Bool no() const { return ctx().bool_val(false); }
  template <class G>
  Bool and_then(const Bool& a, G&& b) const { return a && std::forward<G>(b)(); }
  template <class G, class H>
  auto branch(const Bool& c, G&& then_fn, H&& else_fn) const {
    auto a = std::forward<G>(then_fn)();
    auto b = std::forward<H>(else_fn)();
    return z3::ite(c, a, b);
  }

  Fp value(double d) const { return fpop(Z3_mk_fpa_numeral_double(ctx(), d, sort())); }

 private:
  z3::expr fpop(Z3_ast a) const {
    ctx().check_error();
    return z3::expr(ctx(), a);
  }
  z3::expr rm() const { return fpop(Z3_mk_fpa_rne(ctx())); }
  z3::expr rtz() const { return fpop(Z3_mk_fpa_rtz(ctx())); }

  z3::context* c_;
  unsigned ebits_;
  unsigned sbits_;
};

}  // namespace lwc::proofs

#endif  // LWC_PROOFS_Z3_FP_OPS_H_
