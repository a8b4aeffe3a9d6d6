// SPDX-License-Identifier: MIT
// File: contracts/lwc/contracts/decompose.h
//
// Executable D-clauses (docs/decompose.md): checkers that judge the outputs of ANY decomposition — lwc's
// own or an engine's — and oracles written differently from lwc.decompose. The split oracle multiplies
// back in int128 instead of correcting a remainder; the cell oracle never divides at all: it binary-searches
// the unique n with n * h <= v < (n + 1) * h using exact comparisons of int128 significands.
//
// Checkers return absl::Status and never abort. On failure the message starts with the clause id:
//   "D2 range: local 1000 is outside [0, 1000) for x = -1"
//
// One source, two modes (lwc/config.h): `#include <lwc/contracts/decompose.h>` brings it without module
// support; the module unit contracts/decompose.cppm exports the same declarations as `import
// lwc.contracts.decompose;`.
#ifndef LWC_CONTRACTS_DECOMPOSE_H_
#define LWC_CONTRACTS_DECOMPOSE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // contracts/decompose.cppm includes these in its global module fragment
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
// ... and imports these.
#include "lwc/decompose.h"
#endif

// The arithmetic below is exact IEEE arithmetic whatever the consumer's flags (lwc/exact_fp.h).
LWC_EXACT_FP_BEGIN

namespace lwc::internal {

inline constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// |d| == mantissa * 2^exponent exactly, read from the IEEE bits (not from frexp, which the library uses).
struct ExactDouble {
  int sign;  // -1, 0 or +1
  std::uint64_t mantissa;
  int exponent;
};

inline ExactDouble decode(double d) {
  const auto bits = std::bit_cast<std::uint64_t>(d);
  const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  ExactDouble e{};
  e.mantissa = biased == 0 ? fraction : (fraction | (std::uint64_t{1} << 52));
  e.exponent = biased == 0 ? -1074 : biased - 1075;
  e.sign = e.mantissa == 0 ? 0 : ((bits >> 63) != 0 ? -1 : 1);
  return e;
}

inline int bit_length(absl::uint128 v) {
  const std::uint64_t hi = absl::Uint128High64(v);
  if (hi != 0) return 128 - std::countl_zero(hi);
  return 64 - std::countl_zero(absl::Uint128Low64(v));
}

// Compares a * 2^ea with b * 2^eb for nonzero a, b below 2^120.
inline int compare_magnitudes(absl::uint128 a, int ea, absl::uint128 b, int eb) {
  const int top_a = bit_length(a) + ea;
  const int top_b = bit_length(b) + eb;
  if (top_a != top_b) return top_a < top_b ? -1 : 1;
  // Same top bit: aligning the exponents shifts the smaller-exponent side's partner left until both
  // have the same bit length (< 121 bits), so nothing is lost.
  if (ea > eb) a <<= ea - eb;
  if (eb > ea) b <<= eb - ea;
  return a < b ? -1 : (a > b ? 1 : 0);
}

// The sign of n * h - v, exactly, for |n| <= 2^63, finite h > 0 and finite v.
inline int sign_of_multiple_minus(absl::int128 n, double h, double v) {
  const ExactDouble eh = decode(h);
  const ExactDouble ev = decode(v);
  const int sn = n < 0 ? -1 : (n > 0 ? 1 : 0);
  const absl::uint128 abs_n = static_cast<absl::uint128>(n < 0 ? -n : n);
  if (sn == 0) return -ev.sign;
  if (ev.sign == 0 || sn != ev.sign) return sn;
  // Same sign: compare |n| * mh * 2^eh with mv * 2^ev (|n| * mh < 2^116).
  return sn * compare_magnitudes(abs_n * eh.mantissa, eh.exponent, ev.mantissa, ev.exponent);
}

inline std::string describe(absl::int128 v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// The shortest decimal that reads back as d (std::to_chars), then its hex float: "0.1 (0x1.999999999999ap-4)".
inline std::string describe(double d) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, d);
  return absl::StrFormat("%s (%a)", std::string(buf, static_cast<std::size_t>(r.ptr - buf)), d);
}

inline std::string describe(const absl::StatusOr<std::int64_t>& r) {
  if (r.ok()) return absl::StrCat(*r);
  return absl::StrCat(absl::StatusCodeToString(r.status().code()), " \"", r.status().message(), "\"");
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc::contracts {

// sign_of_multiple_minus()
//
// The exact sign (-1, 0, +1) of n * h - v in real arithmetic, for |n| <= 2^63, finite h > 0 and finite
// v (float arguments convert exactly). No division and no rounding: int128 significands and exponents.
[[nodiscard]] inline int sign_of_multiple_minus(absl::int128 n, double h, double v) {
  return internal::sign_of_multiple_minus(n, h, v);
}

// check_cell_bracket()
//
// D9 for one answer: OK iff n * h <= v < (n + 1) * h exactly. Cheaper than check_cell_of (no search),
// for sweeps that already know the answer is not an error.
[[nodiscard]] inline absl::Status check_cell_bracket(double v, double h, std::int64_t n) {
  if (internal::sign_of_multiple_minus(n, h, v) <= 0 &&
      internal::sign_of_multiple_minus(absl::int128(n) + 1, h, v) > 0) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("D9 exact quantisation: cell ", n, " does not hold ",
                                                 internal::describe(v), " for h = ", internal::describe(h)));
}

// oracle_split()
//
// Reference for D1-D3, obviously correct: truncate in int128, then step down while the multiple exceeds x.
// Requires size > 0.
[[nodiscard]] inline ChunkPoint oracle_split(std::int64_t x, std::int64_t size) {
  const absl::int128 wide_x = x;
  const absl::int128 wide_s = size;
  absl::int128 q = wide_x / wide_s;
  while (q * wide_s > wide_x) q -= 1;
  return {static_cast<std::int64_t>(q), static_cast<std::int64_t>(wide_x - q * wide_s)};
}

// check_split()
//
// OK iff (chunk, local) is the decomposition of x by `size` that D1-D3 define. Takes raw integers so an
// engine can feed its own function's outputs; a size <= 0 means the implementation accepted a size it
// must reject (D5). The first failing clause is named, most specific first: D5 size, D6 the truncating
// quotient, D2 range, D1 reconstruction (computed in int128), D3 uniqueness.
[[nodiscard]] inline absl::Status check_split(std::int64_t x, std::int64_t size, std::int64_t chunk,
                                              std::int64_t local) {
  const auto fail = [&](absl::string_view clause, absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(clause, why, " for x = ", x, ", size = ", size,
                                                   ": got (chunk ", chunk, ", local ", local, ")"));
  };
  if (size <= 0) return fail("D5 size validation: ", "a non-positive size was accepted");
  const ChunkPoint want = oracle_split(x, size);
  if (chunk == want.chunk && local == want.local) return absl::OkStatus();
  if (chunk == x / size && local == x % size) {
    return fail("D6 truncation: ",
                absl::StrCat("this is the truncating quotient; floor gives (chunk ", want.chunk,
                             ", local ", want.local, ")"));
  }
  if (local < 0 || local >= size) {
    return fail("D2 range: ", absl::StrCat("local is outside [0, ", size, ")"));
  }
  const absl::int128 rebuilt = absl::int128(chunk) * size + local;
  if (rebuilt != x) {
    return fail("D1 reconstruction: ", absl::StrCat("chunk * size + local = ", internal::describe(rebuilt), " != x"));
  }
  // D1 and D2 hold but the answer differs from floor: impossible (D3 says the pair is unique), so
  // reaching here means the oracle itself is wrong.
  return fail("D3 uniqueness: ", "a second pair satisfies D1 and D2 (oracle defect)");
}

// check_chunk()
//
// D3 for a chunk id alone, as a save or an asset cache stores it (often without the local offset): OK iff
// chunk == floor(x / size). A non-positive size is D5; the truncated quotient x / size is named D6 (the
// truncating-division bug, the one a migration must undo); any other wrong id is D3.
[[nodiscard]] inline absl::Status check_chunk(std::int64_t x, std::int64_t size, std::int64_t chunk) {
  const auto fail = [&](absl::string_view clause, absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(clause, why, " for x = ", x, ", size = ", size, ": got chunk ", chunk));
  };
  if (size <= 0) return fail("D5 size validation: ", "a non-positive size was accepted");
  const std::int64_t want = oracle_split(x, size).chunk;
  if (chunk == want) return absl::OkStatus();
  if (chunk == x / size) {
    return fail("D6 truncation: ", absl::StrCat("this is the truncating quotient; floor gives chunk ", want));
  }
  return fail("D3 uniqueness: ", absl::StrCat("the chunk of x is floor(x / size) = ", want));
}

// check_size_validation()
//
// D5: a chunk size must be accepted iff it is positive.
[[nodiscard]] inline absl::Status check_size_validation(std::int64_t size, bool accepted) {
  if (accepted == (size > 0)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("D5 size validation: size ", size, " was ",
                                                 accepted ? "accepted" : "rejected"));
}

// check_fast_path()
//
// D7: a fast path of `split` (the shift for powers of two, the reciprocal otherwise) and the division
// path give the same, correct, decomposition of x by size.
[[nodiscard]] inline absl::Status check_fast_path(std::int64_t x, std::int64_t size, ChunkPoint fast,
                                                  ChunkPoint by_division) {
  if (fast != by_division) {
    return absl::InvalidArgumentError(absl::StrCat(
        "D7 fast path: for x = ", x, ", size = ", size, " the fast path gives (", fast.chunk, ", ",
        fast.local, ") but division gives (", by_division.chunk, ", ", by_division.local, ")"));
  }
  if (absl::Status s = check_split(x, size, fast.chunk, fast.local); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("D7 fast path: both paths wrong: ", s.message()));
  }
  return absl::OkStatus();
}

// check_split_axes()
//
// D8: an N-D split is the per-axis split of each coordinate, with the same size on every axis.
[[nodiscard]] inline absl::Status check_split_axes(Point3 p, std::int64_t size, ChunkPoint3 got) {
  const std::int64_t in[3] = {p.x, p.y, p.z};
  const std::int64_t chunk[3] = {got.chunk.x, got.chunk.y, got.chunk.z};
  const std::int64_t local[3] = {got.local.x, got.local.y, got.local.z};
  for (int axis = 0; axis < 3; ++axis) {
    if (absl::Status s = check_split(in[axis], size, chunk[axis], local[axis]); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("D8 axis independence: axis ", std::string(1, "xyz"[axis]), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}
[[nodiscard]] inline absl::Status check_split_axes(Point2 p, std::int64_t size, ChunkPoint2 got) {
  return check_split_axes(Point3{p.x, p.y, 0}, size,
                          ChunkPoint3{{got.chunk.x, got.chunk.y, 0}, {got.local.x, got.local.y, 0}});
}

// oracle_cell_of()
//
// Reference for D9: InvalidArgument for non-finite v, or h not finite and positive; OutOfRange when the
// cell is not an int64; otherwise the unique n with n * h <= v < (n + 1) * h, found by binary search
// over every int64 with exact comparisons. The rounded quotient v / h serves only as a hint: it narrows
// the search to a few cells around it once both new ends pass the same exact comparisons (otherwise the
// search spans every int64, 64 steps), so the answer never depends on a division.
[[nodiscard]] inline absl::StatusOr<std::int64_t> oracle_cell_of(double v, double h) {
  if (!fp::is_finite(h) || fp::sign_bit(h) || fp::is_zero(h)) return absl::InvalidArgumentError("D9: bad cell size");
  if (!fp::is_finite(v)) return absl::InvalidArgumentError("D9: non-finite coordinate");
  // Invariant: lo * h <= v < hi * h.
  absl::int128 lo = internal::kMin;
  absl::int128 hi = absl::int128(1) << 63;
  if (internal::sign_of_multiple_minus(lo, h, v) > 0) return absl::OutOfRangeError("D9: below int64");
  if (internal::sign_of_multiple_minus(hi, h, v) <= 0) return absl::OutOfRangeError("D9: above int64");
  // The rounded quotient is within |v / h| * 2^-52 + 1 of the floor; the slack is wider than that.
  const double q = std::floor(v / h);
  if (fp::is_finite(q) && std::fabs(q) < 0x1p62) {
    const absl::int128 guess = static_cast<std::int64_t>(q);
    const absl::int128 slack = absl::int128(static_cast<std::int64_t>(std::fabs(q) * 0x1p-50)) + 2;
    const absl::int128 a = std::max(lo, guess - slack);
    const absl::int128 b = std::min(hi, guess + slack + 1);
    if (internal::sign_of_multiple_minus(a, h, v) <= 0 && internal::sign_of_multiple_minus(b, h, v) > 0) {
      lo = a;
      hi = b;
    }
  }
  while (hi - lo > 1) {
    const absl::int128 mid = lo + (hi - lo) / 2;
    if (internal::sign_of_multiple_minus(mid, h, v) <= 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return static_cast<std::int64_t>(lo);
}

// check_cell_of()
//
// D9: `got` (an implementation's answer for v, h) is the oracle's: the same cell, or an error of the
// same code (InvalidArgument for bad input, OutOfRange for a cell outside int64).
[[nodiscard]] inline absl::Status check_cell_of(double v, double h, const absl::StatusOr<std::int64_t>& got) {
  const absl::StatusOr<std::int64_t> want = oracle_cell_of(v, h);
  const bool same = want.ok() ? (got.ok() && *got == *want)
                              : (!got.ok() && got.status().code() == want.status().code());
  if (same) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "D9 exact quantisation: cell_of(", internal::describe(v), ", ", internal::describe(h), ") gave ",
      internal::describe(got), " but the answer is ", internal::describe(want)));
}

// check_cell_monotone()
//
// D10: a <= b implies cell(a) <= cell(b), for two answers of one implementation at the same h.
[[nodiscard]] inline absl::Status check_cell_monotone(double a, std::int64_t cell_a, double b,
                                                      std::int64_t cell_b) {
  if (!fp::less_equal(a, b) || cell_a <= cell_b) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("D10 monotone: ", internal::describe(a), " <= ",
                                                 internal::describe(b), " but cell ", cell_a, " > cell ",
                                                 cell_b));
}

// check_split_batch()
//
// D11: a batch answer is element for element the single answer.
[[nodiscard]] inline absl::Status check_split_batch(std::span<const std::int64_t> xs, std::int64_t size,
                                                    std::span<const ChunkPoint> got) {
  if (xs.size() != got.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("D11 batch: ", xs.size(), " inputs but ", got.size(), " outputs"));
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (absl::Status s = check_split(xs[i], size, got[i].chunk, got[i].local); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("D11 batch: element ", i, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

// check_cell_batch()
//
// D11: a batch quantisation succeeds iff every element does, and then matches the oracle element for
// element; when it fails, its code is the code of the first failing element.
[[nodiscard]] inline absl::Status check_cell_batch(std::span<const double> vs, double h, const absl::Status& status,
                                                   std::span<const std::int64_t> got) {
  for (std::size_t i = 0; i < vs.size(); ++i) {
    const absl::StatusOr<std::int64_t> want = oracle_cell_of(vs[i], h);
    if (!want.ok()) {
      if (status.code() == want.status().code()) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat("D11 batch: element ", i, " must fail with ",
                                                     absl::StatusCodeToString(want.status().code()),
                                                     " but the batch returned ", status.ToString()));
    }
    if (status.ok() && (i >= got.size() || got[i] != *want)) {
      return absl::InvalidArgumentError(absl::StrCat("D11 batch: element ", i, " is ",
                                                     i < got.size() ? absl::StrCat(got[i]) : "missing",
                                                     ", want ", *want));
    }
  }
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("D11 batch: every element is valid but the batch failed: ", status.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace lwc::contracts

LWC_EXACT_FP_END

#endif  // LWC_CONTRACTS_DECOMPOSE_H_
