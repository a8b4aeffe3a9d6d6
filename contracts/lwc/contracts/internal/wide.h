// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/internal/wide.h
//
// Internal to the checkers (not part of the contracts' API): a fixed-width two's complement integer
// wide enough for the rebase oracle (contracts/rebase.cppm), which scales every double by 2^1200 so that
// it is an integer and then compares exactly. Written for that oracle only: no division but by a
// uint64, no multiplication but by a uint64.
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/internal/wide.h>` (through
// <lwc/contracts/rebase.h>) brings it without module support; the module unit contracts/internal/wide.cppm
// exports the same declarations as `import lwc.contracts.internal.wide;`.
#ifndef LWC_CONTRACTS_INTERNAL_WIDE_H_
#define LWC_CONTRACTS_INTERNAL_WIDE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/internal/wide.cppm includes these in its global module fragment
#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>

#include "absl/numeric/int128.h"
#endif

LWC_EXPORT namespace lwc::internal {

#ifdef __clang__
#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#endif
// Wide: a 2560-bit two's complement integer, enough for any finite double scaled by 2^1200 (below
// 2^2225) times a cell size (2^53) plus any int128 cell difference times the same scale.
class Wide {
 public:
  static constexpr int kLimbs = 80;
  static constexpr int kScale = 1200;  // every double is an integer multiple of 2^-1074

  static Wide of(absl::int128 v) {
    Wide w;
    const absl::uint128 bits = static_cast<absl::uint128>(v);
    const std::uint64_t lo = absl::Uint128Low64(bits);
    const std::uint64_t hi = absl::Uint128High64(bits);
    w.limb_[0] = static_cast<std::uint32_t>(lo);
    w.limb_[1] = static_cast<std::uint32_t>(lo >> 32);
    w.limb_[2] = static_cast<std::uint32_t>(hi);
    w.limb_[3] = static_cast<std::uint32_t>(hi >> 32);
    const std::uint32_t fill = v < 0 ? 0xffffffffu : 0;
    for (int i = 4; i < kLimbs; ++i) w.limb_[i] = fill;
    return w;
  }

  // v * 2^1200.
  static Wide scaled(absl::int128 v) { return of(v).shl(kScale); }

  // d * 2^1200, exactly, for finite d (read from the IEEE fields, not frexp).
  static Wide scaled(double d) {
    const auto bits = std::bit_cast<std::uint64_t>(d);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    int exponent = -1074;
    if (biased != 0) {
      mantissa |= std::uint64_t{1} << 52;
      exponent = biased - 1075;
    }
    // The mantissa (53 bits) shifted by exponent + kScale in [126, 2171] spans at most three limbs: placed
    // there directly rather than through of() and a shift of all 80 limbs (the oracle's hottest path).
    const int n = exponent + kScale;
    const absl::uint128 placed = absl::uint128(mantissa) << (n % 32);
    Wide m;
    for (int i = 0, at = n / 32; i < 3 && at + i < kLimbs; ++i) {
      m.limb_[at + i] = static_cast<std::uint32_t>(absl::Uint128Low64(placed >> (32 * i)));
    }
    return (bits >> 63) != 0 ? -m : m;
  }

  // this * 2^n (modulo 2^2560) for n >= 0. The limbs below n / 32 stay zero; each limb above is read from
  // a 64-bit window of two source limbs, without a branch per limb.
  Wide shl(int n) const {
    Wide r;
    const int words = n / 32;
    const int bits = n % 32;
    if (words >= kLimbs) return r;
    r.limb_[words] = static_cast<std::uint32_t>(std::uint64_t{limb_[0]} << bits);
    for (int i = words + 1; i < kLimbs; ++i) {
      const std::uint64_t window = (std::uint64_t{limb_[i - words]} << 32) | limb_[i - words - 1];
      r.limb_[i] = static_cast<std::uint32_t>(window >> (32 - bits));
    }
    return r;
  }

  // floor(this / 2^n): an arithmetic shift.
  Wide sar(int n) const {
    Wide r;
    const std::uint32_t fill = negative() ? 0xffffffffu : 0;
    const int words = n / 32;
    const int bits = n % 32;
    for (int i = 0; i < kLimbs; ++i) {
      const int src = i + words;
      const std::uint64_t lo = src < kLimbs ? limb_[src] : fill;
      const std::uint64_t hi = src + 1 < kLimbs ? limb_[src + 1] : fill;
      r.limb_[i] = static_cast<std::uint32_t>(((hi << 32) | lo) >> bits);
    }
    return r;
  }

  Wide operator+(const Wide& o) const {
    Wide r;
    std::uint64_t carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t s = std::uint64_t{limb_[i]} + o.limb_[i] + carry;
      r.limb_[i] = static_cast<std::uint32_t>(s);
      carry = s >> 32;
    }
    return r;
  }
  // -this = ~this + 1, in one pass.
  Wide operator-() const {
    Wide r;
    std::uint64_t carry = 1;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t s = std::uint64_t{~limb_[i]} + carry;
      r.limb_[i] = static_cast<std::uint32_t>(s);
      carry = s >> 32;
    }
    return r;
  }
  // this - o = this + ~o + 1, in one pass.
  Wide operator-(const Wide& o) const {
    Wide r;
    std::uint64_t carry = 1;
    for (int i = 0; i < kLimbs; ++i) {
      const std::uint64_t s = std::uint64_t{limb_[i]} + std::uint64_t{~o.limb_[i]} + carry;
      r.limb_[i] = static_cast<std::uint32_t>(s);
      carry = s >> 32;
    }
    return r;
  }

  // this * m for m < 2^64 (signed times unsigned), in one pass: the product modulo 2^2560 of the two's
  // complement limbs is the two's complement of the signed product (every product here fits).
  Wide operator*(std::uint64_t m) const {
    Wide r;
    std::uint64_t carry = 0;  // below 2^64: limb * m + carry < 2^96
    for (int i = 0; i < kLimbs; ++i) {
      const absl::uint128 p = absl::uint128(limb_[i]) * m + carry;
      r.limb_[i] = static_cast<std::uint32_t>(absl::Uint128Low64(p));
      carry = absl::Uint128Low64(p >> 32);
    }
    return r;
  }

  // floor(this / d) for 1 <= d < 2^63.
  Wide floor_div(std::uint64_t d) const {
    if (negative()) {
      // floor(-a / d) = -ceil(a / d) = -floor((a + d - 1) / d)
      return -((-*this + of(absl::int128(d - 1))).floor_div(d));
    }
    Wide q;
    absl::uint128 rem = 0;
    for (int i = kLimbs - 1; i >= 0; --i) {
      const absl::uint128 cur = (rem << 32) | limb_[i];  // rem < d < 2^63: fits
      q.limb_[i] = static_cast<std::uint32_t>(absl::Uint128Low64(cur / d));
      rem = cur % d;
    }
    return q;
  }

  bool negative() const { return (limb_[kLimbs - 1] >> 31) != 0; }
  bool is_zero() const {
    return std::all_of(std::begin(limb_), std::end(limb_), [](std::uint32_t l) { return l == 0; });
  }

  // True when the value is an int64; then to_int64 returns it.
  bool fits_int64() const {
    const std::uint32_t fill = (limb_[1] >> 31) != 0 ? 0xffffffffu : 0;
    for (int i = 2; i < kLimbs; ++i) {
      if (limb_[i] != fill) return false;
    }
    return true;
  }
  std::int64_t to_int64() const {
    return static_cast<std::int64_t>((std::uint64_t{limb_[1]} << 32) | limb_[0]);
  }

  friend int compare(const Wide& a, const Wide& b) {
    if (a.negative() != b.negative()) return a.negative() ? -1 : 1;
    for (int i = kLimbs - 1; i >= 0; --i) {
      if (a.limb_[i] != b.limb_[i]) return a.limb_[i] < b.limb_[i] ? -1 : 1;
    }
    return 0;
  }
  friend bool operator<(const Wide& a, const Wide& b) { return compare(a, b) < 0; }
  friend bool operator<=(const Wide& a, const Wide& b) { return compare(a, b) <= 0; }
  friend bool operator==(const Wide& a, const Wide& b) { return compare(a, b) == 0; }

 private:
  std::uint32_t limb_[kLimbs] = {};  // little-endian 32-bit limbs (a C array: int indices)
};

#ifdef __clang__
#pragma clang attribute pop
#endif

}  // namespace lwc::internal

#endif  // LWC_CONTRACTS_INTERNAL_WIDE_H_
