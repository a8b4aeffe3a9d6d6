// SPDX-License-Identifier: MIT
// File: modules/lwc/kernels.h
//
// The integer arithmetic kernels of lwc.decompose (split: the shift and the reciprocal paths) and lwc.cover
// (the span of a range, its extent and count), written once, generic over an "ops" policy that supplies
// the number type and every operation. The library instantiates them with MachineOps<T> (machine integers;
// each op is the one C++ expression it always was, so the machine code is unchanged), and the proofs in
// proofs/ instantiate the very same templates with z3 expressions (proofs/support/z3_ops.h), so what is
// proved is the kernel the library executes, not a transcription of it. Spec: docs/decompose.md (D1-D4,
// D7), docs/cover.md (C1-C4, C6, C10); proofs: proofs/decompose_proof.cc, proofs/cover_proof.cc.
//
// Rules for code in this header, so that both instantiations mean the same thing:
// - every arithmetic step is an `o.op(...)` call (no raw operators on the policy's numbers);
// - a data-dependent branch is `o.branch(cond, then_fn, else_fn)` (or `branch_unlikely`): the machine
//   policy evaluates one of the two callables, exactly like `if`; the proof policy evaluates both under
//   their path conditions and selects;
// - shift amounts are `typename O::Shift` values from the size (or `o.shift(k)` for a constant).
//
// Included in the global module fragment of modules/decompose.cppm and modules/cover.cppm, and installed
// beside lwc/check.h (a module's global fragment is textual).
#ifndef LWC_KERNELS_H_
#define LWC_KERNELS_H_

#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "lwc/check.h"

// Every op, kernel and branch callable is inlined first (the always-inliner runs before the optimiser),
// so the optimiser sees the same straight-line code it saw before the kernels existed and threads the jumps
// of cover's loop the same way.
#define LWC_KERNEL_INLINE [[gnu::always_inline]]
#define LWC_LAMBDA_INLINE __attribute__((always_inline))

namespace lwc::kernels {

// The unsigned type twice as wide as a signed word: holds the product of a dividend and a reciprocal.
template <class T> struct DoubleWidth;
template <> struct DoubleWidth<std::int8_t> { using type = std::uint16_t; };
template <> struct DoubleWidth<std::int16_t> { using type = std::uint32_t; };
template <> struct DoubleWidth<std::int32_t> { using type = std::uint64_t; };
template <> struct DoubleWidth<std::int64_t> { __extension__ using type = unsigned __int128; };

// MachineOps<T>
//
// The policy of the library: T (a SignedWord) and its unsigned twin, with C++'s own operators. C++ computes
// int8 and int16 operands in int, where leaving the word is silent (and the cast back would wrap): every
// result goes through fit<>(), an LWC_CHECK (on in the dev, audit and fuzz builds) that is as loud at every
// width as UBSan's signed-overflow check is at 64 bits; at 64 bits it is trivially true and costs nothing.
template <class T>
struct MachineOps {
  using S = T;
  using U = std::make_unsigned_t<T>;
  using Bool = bool;
  using Shift = int;
  static constexpr int kBits = std::numeric_limits<U>::digits;

  template <class R, class V>
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr R fit(V v) noexcept {
    LWC_CHECK(std::in_range<R>(v), "an intermediate left its word (D4, C10)");
    return static_cast<R>(v);
  }

  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S s(S v) noexcept { return v; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U u(U v) noexcept { return v; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U u_max() noexcept { return std::numeric_limits<U>::max(); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Shift shift(int k) noexcept { return k; }

  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S add(S a, S b) noexcept { return fit<S>(a + b); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S sub(S a, S b) noexcept { return fit<S>(a - b); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S neg(S a) noexcept { return fit<S>(-a); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U add(U a, U b) noexcept { return fit<U>(a + b); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U sub(U a, U b) noexcept { return fit<U>(a - b); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U mul(U a, U b) noexcept { return fit<U>(a * b); }
  // The high word of the double-width product a * b (exact: the product never wraps the wide type).
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U mul_high(U a, U b) noexcept {
    using Wide = typename DoubleWidth<T>::type;
    return static_cast<U>((static_cast<Wide>(a) * b) >> kBits);
  }
  // C++20: >> of a negative value is arithmetic, floor(x / 2^k).
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S sar(S x, Shift k) noexcept { return static_cast<S>(x >> k); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U shr(U x, Shift k) noexcept { return static_cast<U>(x >> k); }
  // x & (2^k - 1): the low k bits of the two's complement, x - floor(x / 2^k) * 2^k.
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S low_bits(S x, S mask) noexcept { return static_cast<S>(x & mask); }
  // For sign in {0, -1}: a, or ~a == -a - 1.
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S flip(S a, S sign) noexcept { return static_cast<S>(a ^ sign); }
  // For sign in {0, -1}: 0, or a.
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S keep(S a, S sign) noexcept { return static_cast<S>(a & sign); }
  // Value-preserving conversions (the kernels convert only values the other type holds).
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr U to_u(S a) noexcept { return static_cast<U>(a); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr S to_s(U a) noexcept { return static_cast<S>(a); }

  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool lt(S a, S b) noexcept { return a < b; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool le(S a, S b) noexcept { return a <= b; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool eq(S a, S b) noexcept { return a == b; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool eq(U a, U b) noexcept { return a == b; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool either(Bool a, Bool b) noexcept { return a || b; }

  // if / else, not ?: -- the statement form lets the optimiser thread the jumps exactly as it did before the
  // kernels existed (with ?: it kept dead tests of folded constants in cover's loop).
  template <class F, class G>
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr auto branch(Bool c, F&& then_fn, G&& else_fn) {
    if (c) {
      return std::forward<F>(then_fn)();
    }
    return std::forward<G>(else_fn)();
  }
  template <class F, class G>
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr auto branch_unlikely(Bool c, F&& then_fn, G&& else_fn) {
    if (c) [[unlikely]] {
      return std::forward<F>(then_fn)();
    }
    return std::forward<G>(else_fn)();
  }
};

// The result of a split kernel: x == chunk * size + local, 0 <= local < size.
template <class W>
struct Split {
  W chunk;
  W local;
};

// split_shift()
//
// The path of split for size == 2^k: (x >> k, x & (2^k - 1)). D1-D4, D7.
template <class O, class Size>
[[nodiscard]] LWC_KERNEL_INLINE constexpr Split<typename O::S> split_shift(const O& o, typename O::S x, const Size& size) {
  return {o.sar(x, size.log2()), o.low_bits(x, o.sub(size.value(), o.s(1)))};
}

// split_reciprocal()
//
// The path of split for other sizes, without a hardware division (docs/decompose.md D7). Floor division of a
// signed x reduces to unsigned division of u = x ^ (x >> (N - 1)) (x for x >= 0, -x - 1 otherwise, always in
// [0, 2^(N - 1))): floor(x / s) = q if x >= 0 and ~q = -q - 1 otherwise, with q = u / s computed as
// (u * m) >> (N + post_shift) from the size's reciprocal m, and local = r or s - 1 - r with r = u - q * s.
template <class O, class Size>
[[nodiscard]] LWC_KERNEL_INLINE constexpr Split<typename O::S> split_reciprocal(const O& o, typename O::S x, const Size& size) {
  using S = typename O::S;
  using U = typename O::U;
  const S sign = o.sar(x, o.shift(O::kBits - 1));  // 0 or -1
  const U u = o.to_u(o.flip(x, sign));
  const U q = o.shr(o.mul_high(u, size.multiplier()), size.post_shift());
  const S r = o.to_s(o.sub(u, o.mul(q, o.to_u(size.value()))));
  // ~q == -q - 1 and (~r) + s == s - 1 - r: the complement maps the mirrored quotient back.
  return {o.flip(o.to_s(q), sign), o.add(o.flip(r, sign), o.keep(size.value(), sign))};
}

// split()
//
// The floor decomposition of x by size: the shift path for powers of two, the reciprocal path otherwise.
template <class O, class Size>
[[nodiscard]] LWC_KERNEL_INLINE constexpr Split<typename O::S> split(const O& o, typename O::S x, const Size& size) {
  return o.branch(
      size.is_power_of_two(), [&]() LWC_LAMBDA_INLINE { return split_shift(o, x, size); },
      [&]() LWC_LAMBDA_INLINE { return split_reciprocal(o, x, size); });
}

// cover_half_open()
//
// The chunks of [min, max_exclusive) (docs/cover.md C1-C4): reversed() when max_exclusive < min, empty()
// when they are equal (decided before any arithmetic, so [MIN, MIN) is fine), otherwise
// span(chunk(min), chunk(max_exclusive - 1)). `chunk` is the floor quotient (split(...).chunk).
template <class O, class Chunk, class Reversed, class Empty, class Span>
[[nodiscard]] LWC_KERNEL_INLINE constexpr auto cover_half_open(const O& o, typename O::S min, typename O::S max_exclusive,
                                             Chunk&& chunk, Reversed&& reversed, Empty&& empty, Span&& span) {
  return o.branch_unlikely(o.lt(max_exclusive, min), reversed, [&]() LWC_LAMBDA_INLINE {
    // Invariant: max_exclusive > min >= the least S, so max_exclusive - 1 exists and is in the range.
    return o.branch(o.eq(max_exclusive, min), empty,
                    [&]() LWC_LAMBDA_INLINE { return span(chunk(min), chunk(o.sub(max_exclusive, o.s(1)))); });
  });
}

// cover_closed()
//
// The chunks of [min, max_inclusive] (C1-C5): when max_inclusive < min, empty() for the range of zero
// points (max_inclusive == min - 1) and reversed() below that; otherwise span(chunk(min),
// chunk(max_inclusive)). Reaches the greatest S.
template <class O, class Chunk, class Reversed, class Empty, class Span>
[[nodiscard]] LWC_KERNEL_INLINE constexpr auto cover_closed(const O& o, typename O::S min, typename O::S max_inclusive, Chunk&& chunk,
                                          Reversed&& reversed, Empty&& empty, Span&& span) {
  return o.branch_unlikely(
      o.lt(max_inclusive, min),
      [&]() LWC_LAMBDA_INLINE {
        // Invariant: min > max_inclusive >= the least S, so min - 1 exists.
        return o.branch(o.eq(max_inclusive, o.sub(min, o.s(1))), empty, reversed);
      },
      [&]() LWC_LAMBDA_INLINE { return span(chunk(min), chunk(max_inclusive)); });
}

// extent()
//
// last - first of a span (first <= last) as an unsigned N-bit word, exactly (C6, C10): the difference lies in
// [0, 2^N - 1] but not always in S, and a wrapping unsigned subtraction is what -fsanitize=integer rightly
// reports, so the straddling case is summed from two non-negative halves: last + (-first - 1) + 1.
template <class O>
[[nodiscard]] LWC_KERNEL_INLINE constexpr typename O::U extent(const O& o, typename O::S first, typename O::S last) {
  return o.branch(
      o.either(o.le(o.s(0), first), o.lt(last, o.s(0))), [&]() LWC_LAMBDA_INLINE { return o.to_u(o.sub(last, first)); },
      [&]() LWC_LAMBDA_INLINE { return o.add(o.add(o.to_u(last), o.to_u(o.neg(o.add(first, o.s(1))))), o.u(1)); });
}

// count_or_zero()
//
// last - first + 1, or 0 when that exceeds the largest unsigned N-bit word (the one span of 2^N chunks).
template <class O>
[[nodiscard]] LWC_KERNEL_INLINE constexpr typename O::U count_or_zero(const O& o, typename O::S first, typename O::S last) {
  const typename O::U e = extent(o, first, last);
  return o.branch(o.eq(e, o.u_max()), [&]() LWC_LAMBDA_INLINE { return o.u(0); }, [&]() LWC_LAMBDA_INLINE { return o.add(e, o.u(1)); });
}

}  // namespace lwc::kernels

#endif  // LWC_KERNELS_H_
