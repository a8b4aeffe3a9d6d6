// SPDX-License-Identifier: MIT
// File: proofs/support/op_lemmas.h
//
// The integer meaning ZOps (z3_ops.h) gives to the ops of MachineOps that are not plain arithmetic, proved on
// 64-bit bit-vectors (z3's model of the machine words) for every input. Read in 128-bit two's complement,
// so that no comparison itself can wrap. Together with the two's complement definition of +, -, * and of
// the conversions (exact whenever the result fits the word, which ZOps records as an obligation), these
// make each step of a kernel from its C++ expression to an exact integer machine-checked.
#ifndef LWC_PROOFS_OP_LEMMAS_H_
#define LWC_PROOFS_OP_LEMMAS_H_

#include <z3++.h>

#include "prover.h"

namespace lwc::proofs {

inline void prove_op_lemmas(Prover& p) {
  // Each lemma in a context of its own.
#define LWC_LEMMA_SETUP \
  z3::context c;                                                      \
  const z3::expr x = c.bv_const("x", 64);                             \
  const z3::expr a = c.bv_const("a", 64);                             \
  const z3::expr sign = c.bv_const("sign", 64);                       \
  const z3::expr k = c.bv_const("k", 64);                             \
  const z3::expr k128 = z3::zext(k, 64);
  const auto s128 = [](const z3::expr& e) { return z3::sext(e, 64); };
  const auto u128 = [](const z3::expr& e) { return z3::zext(e, 64); };
  const auto none = [](const z3::model&) { return std::string("(a lemma about machine words; no regression)"); };
  {
    LWC_LEMMA_SETUP
    const z3::expr r = z3::ashr(x, k);  // MachineOps::sar: x >> k on int64
    p.prove(c, {"lemma", "lemma sar", "x >> k (arithmetic) is floor(x / 2^k): (x >> k) * 2^k <= x < ((x >> k) + 1) * 2^k",
             "x: every int64; k in [0, 63]",
             {z3::ule(k, c.bv_val(63, 64))},
             z3::shl(s128(r), k128) <= s128(x) && s128(x) < z3::shl(s128(r) + 1, k128),
             none});
  }
  {
    LWC_LEMMA_SETUP
    const z3::expr r = z3::lshr(a, k);  // MachineOps::shr: a >> k on uint64
    p.prove(c, {"lemma", "lemma shr", "a >> k (logical) is floor(a / 2^k): (a >> k) * 2^k <= a < ((a >> k) + 1) * 2^k",
             "a: every uint64; k in [0, 63]",
             {z3::ule(k, c.bv_val(63, 64))},
             z3::ule(z3::shl(u128(r), k128), u128(a)) && z3::ult(u128(a), z3::shl(u128(r) + 1, k128)),
             none});
  }
  {
    LWC_LEMMA_SETUP
    const z3::expr mask = z3::shl(c.bv_val(1, 64), k) - 1;  // size.value() - 1 for size 2^k
    p.prove(c, {"lemma", "lemma low_bits",
             "x & (2^k - 1) is x - floor(x / 2^k) * 2^k, i.e. x mod 2^k in [0, 2^k) (with lemma sar)",
             "x: every int64; k in [0, 62] (the powers of two that are int64 chunk sizes)",
             {z3::ule(k, c.bv_val(62, 64))},
             u128(x & mask) == s128(x) - z3::shl(s128(z3::ashr(x, k)), k128),
             none});
  }
  {
    LWC_LEMMA_SETUP
    p.prove(c, {"lemma", "lemma flip", "a ^ sign is a for sign = 0 and -a - 1 for sign = -1",
             "a: every int64; sign in {0, -1}",
             {sign == 0 || sign == -1},
             s128(a ^ sign) == z3::ite(sign == 0, s128(a), -s128(a) - 1),
             none});
  }
  {
    LWC_LEMMA_SETUP
    p.prove(c, {"lemma", "lemma keep", "a & sign is 0 for sign = 0 and a for sign = -1",
             "a: every int64; sign in {0, -1}",
             {sign == 0 || sign == -1},
             s128(a & sign) == z3::ite(sign == 0, c.bv_val(0, 128), s128(a)),
             none});
  }
#undef LWC_LEMMA_SETUP
}

}  // namespace lwc::proofs

#endif  // LWC_PROOFS_OP_LEMMAS_H_
