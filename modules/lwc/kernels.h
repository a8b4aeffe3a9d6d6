// SPDX-License-Identifier: MIT
// File: modules/lwc/kernels.h
//
// The integer arithmetic kernels of lwc.decompose (split: the shift and the reciprocal paths), lwc.cover
// (the span of a range, its extent and count) and lwc.commit (merge_runs' sweep), written once, generic over an "ops" policy that supplies
// the number type and every operation. The library instantiates them with MachineOps<T> (machine integers;
// each op is the one C++ expression it always was, so the machine code is unchanged), and the proofs in
// proofs/ instantiate the very same templates with z3 expressions (proofs/support/z3_ops.h), so what is
// proved is the kernel the library executes, not a transcription of it. Spec: docs/decompose.md (D1-D4,
// D7), docs/cover.md (C1-C4, C6, C10), docs/commit.md (T3); proofs: proofs/<contract>_proof.cc.
//
// Rules for code in this header, so that both instantiations mean the same thing:
// - every arithmetic step is an `o.op(...)` call (no raw operators on the policy's numbers);
// - a data-dependent branch is `o.branch(cond, then_fn, else_fn)` (or `branch_unlikely`): the machine
//   policy evaluates one of the two callables, exactly like `if`; the proof policy evaluates both under
//   their path conditions and selects;
// - shift amounts are `typename O::Shift` values from the size (or `o.shift(k)` for a constant).
//
// Included in the global module fragment of modules/decompose.cppm, cover.cppm and commit.cppm, and installed
// beside lwc/check.h (a module's global fragment is textual).
#ifndef LWC_KERNELS_H_
#define LWC_KERNELS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "lwc/check.h"
#include "lwc/exact_fp.h"

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
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool negate(Bool a) noexcept { return !a; }
  // a && b(): b is evaluated only when a holds (it may read what a guards, like a predecessor that exists).
  template <class F>
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool and_then(Bool a, F&& b) {
    return a && std::forward<F>(b)();
  }

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

// same_chunk()
//
// a == b for two chunks ({.x, .y}): x first, then y (Point2's defaulted ==).
template <class O, class C>
[[nodiscard]] LWC_KERNEL_INLINE constexpr typename O::Bool same_chunk(const O& o, const C& a, const C& b) {
  return o.and_then(o.eq(a.x, b.x), [&]() LWC_LAMBDA_INLINE { return o.eq(a.y, b.y); });
}

// extends_run()
//
// True when `chunk`, which comes after every chunk of `run` ({.y, .x_first, .x_last}) in row-major order,
// extends it by one (docs/commit.md T3). chunk.x - 1 is computed only when the rows agree, and then
// chunk.x > run.x_last, so it cannot overflow; a run that ends at the greatest S is never extended.
template <class O, class R, class C>
[[nodiscard]] LWC_KERNEL_INLINE constexpr typename O::Bool extends_run(const O& o, const R& run, C chunk) {
  return o.and_then(o.eq(chunk.y, run.y), [&]() LWC_LAMBDA_INLINE { return o.eq(o.sub(chunk.x, o.s(1)), run.x_last); });
}

// merge_sorted_runs()
//
// The sweep of merge_runs (docs/commit.md T3) over `sorted`, chunks in row-major order (by y, then x;
// duplicates allowed): a chunk equal to its predecessor is skipped, one that extends the last run grows it,
// any other starts a run. `runs` is the output: empty(), back() (the last run), extend_last(x) and
// start(y, x) (a run of one chunk). Proved by proofs/commit_proof.cc: the result is the maximal canonical
// runs of the chunks, for every sorted sequence up to the bound stated there.
template <class O, class Chunks, class Runs>
LWC_KERNEL_INLINE constexpr void merge_sorted_runs(const O& o, const Chunks& sorted, Runs& runs) {
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    o.branch(
        o.and_then(i > 0, [&]() LWC_LAMBDA_INLINE { return same_chunk(o, sorted[i], sorted[i - 1]); }),
        []() LWC_LAMBDA_INLINE {},  // a repeat: its chunk is in the last run already
        [&]() LWC_LAMBDA_INLINE {
          o.branch(
              o.and_then(o.negate(runs.empty()), [&]() LWC_LAMBDA_INLINE { return extends_run(o, runs.back(), sorted[i]); }),
              [&]() LWC_LAMBDA_INLINE { runs.extend_last(sorted[i].x); },
              [&]() LWC_LAMBDA_INLINE { runs.start(sorted[i].y, sorted[i].x); });
        });
  }
}

// cell_range_of()
//
// The cells of a closed box (docs/broadphase.md B8), from its quantised bounds: on every axis k < D,
// r.lo[k] = quantise(box.min[k]) and r.hi[k] = quantise(box.max[k]), both inclusive. `quantise` is
// cell_of at the level's cell size (the floor of v / h, docs/decompose.md D9); it returns a StatusOr-like
// value (ok(), *), and the first bound it refuses stops the computation with fail(that value); otherwise
// the result is done() (r filled). Proved by proofs/broadphase_proof.cc: for every quantised bound pair,
// [lo, hi] is exactly the set of cells the closed box touches.
template <std::size_t D, class O, class Box, class Range, class Quantise, class Fail, class Done>
[[nodiscard]] LWC_KERNEL_INLINE constexpr auto cell_range_of(const O& o, const Box& box, Range& r, Quantise&& quantise,
                                                             Fail&& fail, Done&& done) {
  (void)o;  // the range is the quantised bounds themselves: no arithmetic of its own
  for (std::size_t k = 0; k < D; ++k) {
    auto lo = quantise(box.min[k]);
    if (!lo.ok()) return fail(lo);
    auto hi = quantise(box.max[k]);
    if (!hi.ok()) return fail(hi);
    r.lo[k] = *lo;
    r.hi[k] = *hi;
  }
  return done();
}

}  // namespace lwc::kernels

// The floating-point kernel: IEEE semantics whatever the consumer's flags (lwc/exact_fp.h), as in the
// modules that include it.
LWC_EXACT_FP_BEGIN
namespace lwc::kernels {

// MachineFpOps<F>
//
// The floating-point policy of the library: F (float or double) with C++'s operators, fp::fma and fp::abs
// (the builtins under precise semantics, lwc/exact_fp.h), and int64 cells.
template <class F>
struct MachineFpOps {
  using Fp = F;
  using S = std::int64_t;
  using Bool = bool;

  [[nodiscard]] LWC_KERNEL_INLINE static F div(F a, F b) noexcept { return a / b; }
  [[nodiscard]] LWC_KERNEL_INLINE static F neg(F a) noexcept { return -a; }
  [[nodiscard]] LWC_KERNEL_INLINE static F fabs(F a) noexcept { return fp::abs(a); }
  [[nodiscard]] LWC_KERNEL_INLINE static F fma(F a, F b, F c) noexcept { return fp::fma(a, b, c); }
  // 2^p, p the precision of F: below it every integer is an F.
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr F exact_integers() noexcept {
    return F(std::uint64_t{1} << std::numeric_limits<F>::digits);
  }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr F zero() noexcept { return F(0); }
  [[nodiscard]] LWC_KERNEL_INLINE static Bool lt(F a, F b) noexcept { return a < b; }
  [[nodiscard]] LWC_KERNEL_INLINE static Bool gt(F a, F b) noexcept { return a > b; }
  [[nodiscard]] LWC_KERNEL_INLINE static Bool eq(F a, F b) noexcept { return a == b; }
  // The conversions of a value |q| < 2^p: truncation toward zero, and back (exact).
  [[nodiscard]] LWC_KERNEL_INLINE static S trunc(F q) noexcept { return static_cast<std::int64_t>(q); }
  [[nodiscard]] LWC_KERNEL_INLINE static F to_fp(S n) noexcept { return static_cast<F>(n); }
  // n - 1 when c holds, else n: a subtraction of the flag, not a branch.
  [[nodiscard]] LWC_KERNEL_INLINE static S decrement_if(Bool c, S n) noexcept { return n - static_cast<S>(c); }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool yes() noexcept { return true; }
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr Bool no() noexcept { return false; }
  template <class G, class H>
  [[nodiscard]] LWC_KERNEL_INLINE static constexpr auto branch(Bool c, G&& then_fn, H&& else_fn) {
    if (c) {
      return std::forward<G>(then_fn)();
    }
    return std::forward<H>(else_fn)();
  }
  template <class G>
  [[nodiscard]] LWC_KERNEL_INLINE static Bool and_then(Bool a, G&& b) {
    return a && std::forward<G>(b)();
  }
};

// cell_small()
//
// The exact floor of v / h when |fl(v / h)| < 2^p (docs/decompose.md D9), for finite v and a valid h under
// IEEE arithmetic (the callers keep NaN, the flags' subnormal cases and larger quotients out, or get false
// for them): stores it in `cell` and returns true; false (nothing stored) when |fl(v / h)| >= 2^p or is NaN.
// Below 2^p every integer is an F and rounding is monotone: when q = fl(v / h) is not an integer the exact
// quotient lies strictly between the same two integers as q; when q is an integer n, the exact quotient is
// below n only if the division rounded up onto n, and fma(-n, h, v) has the sign of v - n * h exactly.
// Proved by proofs/decompose_proof.cc with z3's floating-point theory (formats and bounds stated there).
//
// `refuse_exact()` is asked only when q is an integer (the one branch a flushed operand can reach, see
// decompose.cppm's LWC_DENORMALS_ARE_ZERO): when it says yes the kernel returns false and `cell` holds no
// answer. The library passes its test for operands the CPU may flush; the proofs pass "never" (IEEE).
template <class O, class Refuse>
// (`inline` as well as always_inline: g++ warns that an always_inline template taking a callable "might not
// be inlinable" without it.)
[[nodiscard]] LWC_KERNEL_INLINE inline typename O::Bool cell_small(const O& o, typename O::Fp v, typename O::Fp h,
                                                                   typename O::S& cell, Refuse&& refuse_exact) {
  const auto q = o.div(v, h);  // correctly rounded, so monotone in v; NaN or +-inf for non-finite v
  return o.branch(
      o.lt(o.fabs(q), o.exact_integers()),
      [&]() LWC_LAMBDA_INLINE {
        const auto n = o.trunc(q);  // truncates; |q| < 2^p fits
        const auto nf = o.to_fp(n);
        // The one data-dependent branch is on an integer quotient, which random inputs rarely give; the
        // sign of a non-integer one (truncation is a ceiling below zero) is taken without a branch.
        const auto exact = o.eq(nf, q);
        cell = o.branch(
            exact, [&]() LWC_LAMBDA_INLINE { return o.decrement_if(o.lt(o.fma(o.neg(nf), h, v), o.zero()), n); },
            [&]() LWC_LAMBDA_INLINE { return o.decrement_if(o.gt(nf, q), n); });
        return o.branch(
            o.and_then(exact, refuse_exact), [&]() LWC_LAMBDA_INLINE { return o.no(); },
            [&]() LWC_LAMBDA_INLINE { return o.yes(); });
      },
      [&]() LWC_LAMBDA_INLINE { return o.no(); });
}

}  // namespace lwc::kernels
LWC_EXACT_FP_END

#endif  // LWC_KERNELS_H_
