// SPDX-License-Identifier: MIT
// File: modules/lwc/exact_fp.h
//
// IEEE semantics that survive the consumer's compiler flags. lwc ships its module interface units as
// sources, so an engine compiles lwc's arithmetic with its own flags, often -ffast-math. Two things break
// there, and this header answers both:
//
//   Classification. Under -ffinite-math-only (implied by -ffast-math) clang assumes no value is NaN or
//   infinite: std::isnan / std::isfinite fold to constants, and clang 19 marks every floating-point
//   parameter nofpclass(nan inf), so even a test on the bits is folded. lwc::fp classifies on the
//   integer bits (std::bit_cast) passed through an empty asm statement the optimiser cannot see through
//   (see opaque_bits() for why lwc's own builds keep it too).
//
//   Arithmetic. -ffast-math also lets the compiler replace v / h by v * (1 / h), reassociate, drop the
//   sign of zero and fuse a * b + c; each breaks an exact algorithm (cell_of's floor, rebase's rounding,
//   Fast2Sum). LWC_EXACT_FP_BEGIN / LWC_EXACT_FP_END bracket code whose arithmetic must be IEEE as
//   written: precise semantics and no contraction, whatever the command line says. They are pragmas at
//   namespace scope, so they bracket definitions (module purviews), not statements.
//
// A module unit includes this header in its global module fragment (macros cannot be imported); any
// other file includes it first. Installed with the package beside lwc/check.h.
#ifndef LWC_EXACT_FP_H_
#define LWC_EXACT_FP_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

// LWC_EXACT_FP_BEGIN, LWC_EXACT_FP_END
//
// Between them, floating-point operations are evaluated as written, with IEEE semantics: no
// reassociation, no reciprocal for division, signed zeros and NaNs honoured, no fused multiply-add
// unless std::fma is called. In lwc's own builds this is the compiler's default already (contraction
// aside, which x86-64 without FMA cannot do), so it costs nothing there.
// Other compilers (g++ in the header build) get no pragma: they honour IEEE unless told otherwise, and
// the bit-level tests below do not depend on it.
#if defined(__clang__)
#define LWC_EXACT_FP_BEGIN \
  _Pragma("float_control(precise, on, push)") _Pragma("clang fp contract(off)")
#define LWC_EXACT_FP_END _Pragma("float_control(pop)")
#else
#define LWC_EXACT_FP_BEGIN
#define LWC_EXACT_FP_END
#endif

// LWC_DENORMALS_ARE_ZERO
//
// 1 when the program may run with the CPU's flush-to-zero and denormals-are-zero modes on, where
// arithmetic on subnormals is not IEEE (a subnormal operand reads as 0, a subnormal result becomes 0).
// -ffast-math links startup code (crtfastmath.o) that turns both on for the whole process, and lwc's
// own archive code (liblwc.a, the C API) runs in that process too, compiled without the consumer's
// flags: so it defaults to 1 in every build. Then cell_of sends subnormal-sized operands to its integer
// path and the broad phase confirms a pair's overlap on the bits, one well-predicted test each (the cost
// was measured when it landed: CHANGELOG.md, "Measurement history"). A program that never sets the modes may define it to 0 on its command line
// (for every translation unit, lwc's archive included) to drop those tests.
#ifndef LWC_DENORMALS_ARE_ZERO
#define LWC_DENORMALS_ARE_ZERO 1
#endif

namespace lwc::fp {

// Bits<F>: the unsigned integer as wide as F, and the masks of its fields.
template <class F>
struct Layout;
template <>
struct Layout<double> {
  using Bits = std::uint64_t;
  static constexpr Bits kSign = Bits{1} << 63;
  static constexpr Bits kExponent = Bits{0x7ff} << 52;
  static constexpr Bits kFraction = (Bits{1} << 52) - 1;
};
template <>
struct Layout<float> {
  using Bits = std::uint32_t;
  static constexpr Bits kSign = Bits{1} << 31;
  static constexpr Bits kExponent = Bits{0xff} << 23;
  static constexpr Bits kFraction = (Bits{1} << 23) - 1;
};
template <class F>
using Bits = typename Layout<F>::Bits;

// opaque_bits()
//
// `bits` unchanged, but the optimiser no longer knows where they came from: under -ffinite-math-only a
// test on them cannot be folded by the assumption that floats are finite, and in every build it cannot be
// rewritten into a floating-point compare (clang turns `(bits & ~sign) == 0` into `x == 0.0`, which is
// equivalent in IEEE arithmetic but reads a subnormal as 0 once the consumer's -ffast-math startup code
// has set denormals-are-zero, and that mode also governs lwc's own archive code in the consumer's
// process). The empty asm emits no instruction; it only keeps the test on the integer bits.
template <class U>
[[nodiscard]] constexpr U opaque_bits(U bits) noexcept {
  if (!std::is_constant_evaluated()) asm("" : "+r"(bits));
  return bits;
}

// bits_of(), from_bits()
//
// The IEEE encoding of x (through the barrier above), and the float of an encoding.
template <class F>
[[nodiscard]] constexpr Bits<F> bits_of(F x) noexcept {
  return opaque_bits(std::bit_cast<Bits<F>>(x));
}
template <class F>
[[nodiscard]] constexpr F from_bits(Bits<F> bits) noexcept {
  return std::bit_cast<F>(bits);
}

// is_nan(), is_inf(), is_finite(), sign_bit(), is_subnormal()
//
// std::isnan, std::isinf, std::isfinite, std::signbit and "subnormal" (nonzero with a zero exponent
// field), decided on the bits: exact under every flag. sign_bit() is true for -0.0 and negative NaNs.
template <class F>
[[nodiscard]] constexpr bool is_nan(F x) noexcept {
  return (bits_of(x) & ~Layout<F>::kSign) > Layout<F>::kExponent;
}
template <class F>
[[nodiscard]] constexpr bool is_inf(F x) noexcept {
  return (bits_of(x) & ~Layout<F>::kSign) == Layout<F>::kExponent;
}
template <class F>
[[nodiscard]] constexpr bool is_finite(F x) noexcept {
  return (bits_of(x) & Layout<F>::kExponent) != Layout<F>::kExponent;
}
template <class F>
[[nodiscard]] constexpr bool sign_bit(F x) noexcept {
  return (bits_of(x) & Layout<F>::kSign) != 0;
}
template <class F>
[[nodiscard]] constexpr bool is_subnormal(F x) noexcept {
  const Bits<F> b = bits_of(x);
  return (b & Layout<F>::kExponent) == 0 && (b & Layout<F>::kFraction) != 0;
}

// is_zero(), less_equal()
//
// x == 0 (either sign), and a <= b for a, b not NaN (-0.0 <= +0.0 and +0.0 <= -0.0), on the bits. Under
// denormals-are-zero (DAZ, which -ffast-math's startup code sets, and so do many engines) the CPU compares
// every subnormal as 0: `4.9e-324 <= -4.9e-324` is true there. These are exact in every mode.
template <class F>
[[nodiscard]] constexpr bool is_zero(F x) noexcept {
  return (bits_of(x) & ~Layout<F>::kSign) == 0;
}
template <class F>
[[nodiscard]] constexpr bool less_equal(F a, F b) noexcept {
  // Sign-magnitude to a signed key that orders like the reals (both zeros map to 0).
  const auto key = [](Bits<F> x) {
    const auto magnitude = static_cast<std::int64_t>(x & ~Layout<F>::kSign);
    return (x & Layout<F>::kSign) != 0 ? -magnitude : magnitude;
  };
  return key(bits_of(a)) <= key(bits_of(b));
}

// decode()
//
// |x| == significand * 2^exponent exactly, for finite x, read from the fields (significand < 2^p, zero
// only for +-0; subnormals are not normalised). Unlike std::frexp, no arithmetic touches x, so it is exact
// under flush-to-zero and denormals-are-zero too.
template <class F>
constexpr void decode(F x, std::uint64_t& significand, int& exponent) noexcept {
  constexpr int kFractionBits = std::numeric_limits<F>::digits - 1;
  constexpr int kBias = std::numeric_limits<F>::max_exponent - 1;
  const Bits<F> b = bits_of(x);
  const auto biased = static_cast<int>((b & Layout<F>::kExponent) >> kFractionBits);
  significand = b & Layout<F>::kFraction;
  if (biased != 0) significand |= std::uint64_t{Layout<F>::kFraction} + 1;
  exponent = (biased != 0 ? biased : 1) - kBias - kFractionBits;
}

// scale_exact()
//
// out = x * 2^n for finite x and an n that loses no bit of x (n >= 0 always qualifies); false, with out
// untouched, when the product overflows. std::ldexp instead multiplies a subnormal by 2^54 first, which
// denormals-are-zero reads as 0 * 2^54.
template <class F>
[[nodiscard]] constexpr bool scale_exact(F x, int n, F& out) noexcept {
  constexpr int kFractionBits = std::numeric_limits<F>::digits - 1;
  constexpr int kMaxBiased = 2 * (std::numeric_limits<F>::max_exponent - 1);  // 2046 for double
  std::uint64_t m = 0;
  int e = 0;
  decode(x, m, e);
  const Bits<F> sign = bits_of(x) & Layout<F>::kSign;
  if (m == 0) {
    out = x;
    return true;
  }
  while (m < (std::uint64_t{1} << kFractionBits)) {  // normalise: m in [2^(p-1), 2^p)
    m <<= 1;
    --e;
  }
  // |x| * 2^n = m * 2^(e + n), and a normal F with this significand has biased exponent b:
  const long long biased = static_cast<long long>(e) + n + kFractionBits + kMaxBiased / 2;
  if (biased > kMaxBiased) return false;
  if (biased >= 1) {
    out = from_bits<F>(sign | (Bits<F>(biased) << kFractionBits) | (Bits<F>(m) & Layout<F>::kFraction));
  } else {
    out = from_bits<F>(sign | Bits<F>(1 - biased < 64 ? m >> (1 - biased) : 0));  // subnormal (exact by contract)
  }
  return true;
}

// next_up(), next_down()
//
// The least F greater than x (std::nextafter(x, +inf)) and the greatest F less than x
// (std::nextafter(x, -inf)), stepped on the bits: next_up(-0.0) and next_up(+0.0) are the smallest
// subnormal, next_up(max) is +inf, next_up(+inf) is +inf and a NaN stays a NaN (next_down alike).
template <class F>
[[nodiscard]] constexpr F next_up(F x) noexcept {
  const Bits<F> b = bits_of(x);
  const Bits<F> magnitude = b & ~Layout<F>::kSign;
  if (magnitude > Layout<F>::kExponent) return x;                                   // NaN
  if (b == Layout<F>::kExponent) return x;                                          // +inf
  if (magnitude == 0) return from_bits<F>(1);                                       // +-0
  return from_bits<F>((b & Layout<F>::kSign) != 0 ? Bits<F>(b - 1) : Bits<F>(b + 1));  // -inf: to -max
}
template <class F>
[[nodiscard]] constexpr F next_down(F x) noexcept {
  // next_down(x) == -next_up(-x), with the negations on the sign bit.
  return from_bits<F>(Bits<F>(bits_of(next_up(from_bits<F>(Bits<F>(bits_of(x) ^ Layout<F>::kSign)))) ^
                              Layout<F>::kSign));
}

// set_quiet_nan()
//
// Stores the default quiet NaN in `out`, from its bits. Under -ffinite-math-only a NaN that a function
// returns is poison (std::numeric_limits<F>::quiet_NaN() included: clang marks the return
// nofpclass(nan)), so a result that must hold a NaN is written from memory, never from a float value.
template <class F>
void set_quiet_nan(F& out) noexcept {
  const Bits<F> quiet = Layout<F>::kExponent | ((Layout<F>::kFraction >> 1) + 1);
  std::memcpy(&out, &quiet, sizeof out);
}

// widen()
//
// The double equal to x, from the bits: `static_cast<double>(x)` (cvtss2sd) reads a subnormal float as
// 0 under denormals-are-zero; every float is a normal double, so this is exact in every mode.
[[nodiscard]] constexpr double widen(float x) noexcept {
  const Bits<float> b = bits_of(x);
  const std::uint64_t sign = std::uint64_t{b & Layout<float>::kSign} << 32;
  if ((b & Layout<float>::kExponent) == Layout<float>::kExponent) {  // inf, NaN (payload kept)
    return from_bits<double>(sign | Layout<double>::kExponent | (std::uint64_t{b & Layout<float>::kFraction} << 29));
  }
  std::uint64_t m = 0;
  int e = 0;
  decode(x, m, e);
  if (m == 0) return from_bits<double>(sign);
  while (m < (std::uint64_t{1} << 23)) {  // normalise a subnormal's significand
    m <<= 1;
    --e;
  }
  // x = m * 2^e with m in [2^23, 2^24): a double with exponent e + 23, bias 1023.
  return from_bits<double>(sign | (std::uint64_t(e + 23 + 1023) << 52) | ((m << 29) & Layout<double>::kFraction));
}

}  // namespace lwc::fp

// fma(), abs()
//
// a * b + c rounded once, and |x|, as the compiler's builtins called under precise semantics. Not
// std::fma / std::fabs: for float those are inline wrappers in the standard library's <cmath>, compiled
// with the consumer's flags, and under -ffast-math clang then splits a float fma into a multiply and an
// add on a CPU without FMA (the residual of cell_of's fix-up loses its sign).
LWC_EXACT_FP_BEGIN
namespace lwc::fp {
template <class F>
[[nodiscard]] inline F fma(F a, F b, F c) noexcept {
  if constexpr (std::is_same_v<F, float>) {
    return __builtin_fmaf(a, b, c);
  } else {
    return __builtin_fma(a, b, c);
  }
}
template <class F>
[[nodiscard]] constexpr F abs(F x) noexcept {
  if constexpr (std::is_same_v<F, float>) {
    return __builtin_fabsf(x);
  } else {
    return __builtin_fabs(x);
  }
}
}  // namespace lwc::fp
LWC_EXACT_FP_END

#endif  // LWC_EXACT_FP_H_
