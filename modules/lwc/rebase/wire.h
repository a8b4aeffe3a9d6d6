// SPDX-License-Identifier: MIT
// File: modules/lwc/rebase/wire.h
//
// The wire format of lwc.rebase (docs/rebase.md R14, R15): a canonical, versioned, bounded binary
// encoding of world positions, rebase plans and render-origin updates, for a server that owns the world
// and clients that each render it around their own origin; and a JSON form of the same values for tools.
//
//   header, 8 bytes:  'L' 'W' 'C' 'R' | format version (1) | kind (1, 2, 3) | axes (2 or 3) | reserved 0
//   kind 1 position:       cell int64 x D, offset IEEE-754 binary64 x D           (8 + 16 D bytes)
//   kind 2 plan:           from int64 x D, target int64 x D, expected version uint64 (16 + 16 D bytes)
//   kind 3 origin update:  origin int64 x D, version uint64                        (16 + 8 D bytes)
// Every field little-endian, two's complement for int64, the double's bits as they are. A message is
// at most kMaxWireBytes (64) bytes; its length is fixed by (kind, axes), so a reader never needs more.
//
// One source, two modes (lwc/config.h): `#include <lwc/rebase/wire.h>` (through <lwc/rebase.h>) brings it
// without module support; the module unit modules/rebase/wire.cppm exports the same declarations as `import
// lwc.rebase:wire;`.
#ifndef LWC_REBASE_WIRE_H_
#define LWC_REBASE_WIRE_H_

#include "lwc/config.h"
#ifndef LWC_MODULE_UNIT  // modules/rebase/wire.cppm includes these in its global module fragment
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lwc/exact_fp.h"
#include "lwc/format.h"
// ... and imports these.
#include "lwc/decompose.h"
#include "lwc/rebase/spec.h"
#endif

LWC_EXACT_FP_BEGIN

LWC_EXPORT namespace lwc {

// WireKind
//
// What a wire message holds (byte 5 of its header).
enum class WireKind : std::uint8_t { kPosition = 1, kPlan = 2, kOriginUpdate = 3 };

// The wire format this library writes and reads (byte 4 of the header), and the largest message.
inline constexpr std::uint8_t kWireFormatVersion = 1;
inline constexpr std::size_t kWireHeaderBytes = 8;
inline constexpr std::size_t kMaxWireBytes = 64;

// WireHeader
//
// The header of a message: its kind and its number of axes.
struct WireHeader {
  WireKind kind = WireKind::kPosition;
  std::size_t axes = 2;

  friend constexpr bool operator==(const WireHeader&, const WireHeader&) noexcept = default;
};

// wire_size()
//
// The exact length of a message of `kind` with `axes` axes (2 or 3); 0 for a value that is no WireKind.
[[nodiscard]] constexpr std::size_t wire_size(WireKind kind, std::size_t axes) noexcept {
  switch (kind) {
    case WireKind::kPosition: return kWireHeaderBytes + 16 * axes;
    case WireKind::kPlan: return kWireHeaderBytes + 16 * axes + 8;
    case WireKind::kOriginUpdate: return kWireHeaderBytes + 8 * axes + 8;
  }
  return 0;
}

}  // namespace lwc

namespace lwc::internal {

inline constexpr std::array<std::uint8_t, 4> kWireMagic = {'L', 'W', 'C', 'R'};

inline absl::string_view wire_kind_name(WireKind kind) {
  switch (kind) {
    case WireKind::kPosition: return "position";
    case WireKind::kPlan: return "plan";
    case WireKind::kOriginUpdate: return "origin update";
  }
  return "?";  // LCOV_EXCL_LINE: called only with a kind check_wire_header accepted
}

// Appends little-endian fields to a message.
class WireWriter {
 public:
  WireWriter(WireKind kind, std::size_t axes) {
    bytes_.reserve(wire_size(kind, axes));
    for (std::uint8_t m : kWireMagic) bytes_.push_back(m);
    bytes_.push_back(kWireFormatVersion);
    bytes_.push_back(static_cast<std::uint8_t>(kind));
    bytes_.push_back(static_cast<std::uint8_t>(axes));
    bytes_.push_back(0);
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  [[nodiscard]] std::vector<std::uint8_t> done() && { return std::move(bytes_); }

 private:
  std::vector<std::uint8_t> bytes_;
};

// Reads little-endian fields of a message whose length was checked against wire_size first.
class WireReader {
 public:
  explicit WireReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  std::uint64_t u64() {
    std::uint64_t v = 0;
    // The caller checked the length against wire_size, so the bound below never stops a read early; it
    // is there so that no index can pass the end whatever a caller does.
    for (int i = 0; i < 8 && at_ < bytes_.size(); ++i) v |= std::uint64_t{bytes_[at_++]} << (8 * i);
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() { return std::bit_cast<double>(u64()); }
  void skip_header() { at_ = kWireHeaderBytes; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
};

// The header of `bytes`: InvalidArgument when it is shorter than a header, lacks the magic, names an
// unknown kind or axes other than 2 and 3, or has its reserved byte set; Unimplemented for another
// format version (a reader can tell "upgrade" from "garbage").
inline absl::StatusOr<WireHeader> parse_wire_header(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kWireHeaderBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("wire: ", bytes.size(), " bytes are shorter than the 8-byte header (R15)"));
  }
  for (std::size_t i = 0; i < kWireMagic.size(); ++i) {
    if (bytes[i] != kWireMagic[i]) {
      return absl::InvalidArgumentError(absl::StrFormat("wire: byte %d is 0x%02x, not the magic 'LWCR' (R15)", i, bytes[i]));
    }
  }
  if (bytes[4] != kWireFormatVersion) {
    return absl::UnimplementedError(absl::StrCat("wire: format version ", bytes[4], " (this reader reads version ",
                                                 kWireFormatVersion, ") (R15)"));
  }
  if (bytes[5] < 1 || bytes[5] > 3) return absl::InvalidArgumentError(absl::StrCat("wire: unknown kind ", bytes[5], " (R15)"));
  if (bytes[6] != 2 && bytes[6] != 3) {
    return absl::InvalidArgumentError(absl::StrCat("wire: ", bytes[6], " axes, not 2 or 3 (R15)"));
  }
  if (bytes[7] != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("wire: reserved byte 7 is 0x%02x, not 0 (R15)", bytes[7]));
  }
  return WireHeader{static_cast<WireKind>(bytes[5]), bytes[6]};
}

// `bytes` is exactly one message of `kind` with `axes` axes, as far as its header and length tell.
inline absl::Status check_wire_header(std::span<const std::uint8_t> bytes, WireKind kind, std::size_t axes) {
  const absl::StatusOr<WireHeader> header = parse_wire_header(bytes);
  if (!header.ok()) return header.status();
  if (header->kind != kind) {
    return absl::InvalidArgumentError(absl::StrCat("wire: a ", wire_kind_name(header->kind), " where a ",
                                                   wire_kind_name(kind), " was expected (R15)"));
  }
  if (header->axes != axes) {
    return absl::InvalidArgumentError(absl::StrCat("wire: ", header->axes, " axes where ", axes, " were expected (R15)"));
  }
  if (bytes.size() != wire_size(kind, axes)) {
    return absl::InvalidArgumentError(absl::StrCat("wire: ", bytes.size(), " bytes; a ", wire_kind_name(kind), " of ",
                                                   axes, " axes is exactly ", wire_size(kind, axes), " (R15)"));
  }
  return absl::OkStatus();
}

// The canonical-offset rule shared by encode and decode: finite, sign bit clear (no -0.0, nothing
// negative) and below the cell size (R1's normal form, so each position has exactly one encoding).
inline absl::Status check_wire_offset(double offset, std::size_t axis, std::int64_t size) {
  if (!fp::is_finite(offset)) {
    return absl::InvalidArgumentError(
        absl::StrCat("wire: offset on axis ", axis, " is ", internal::message_real(offset), ", not finite (R14)"));
  }
  if (fp::sign_bit(offset)) {
    return absl::InvalidArgumentError(
        absl::StrCat("wire: offset on axis ", axis, " is ", internal::message_real_exact(offset),
                     ": negative or -0 is not canonical (R14)"));
  }
  if (!(offset < static_cast<double>(size))) {
    return absl::InvalidArgumentError(
        absl::StrCat("wire: offset on axis ", axis, " is ", internal::message_real_exact(offset),
                     ", not below the cell size ", size, " (R14)"));
  }
  return absl::OkStatus();
}

inline absl::Status check_wire_cell_size(ChunkSize size) {
  if (size.value() > (std::int64_t{1} << 53)) {
    return absl::InvalidArgumentError(absl::StrCat("wire: cell size ", size.value(), " is outside [1, 2^53] (R14)"));
  }
  return absl::OkStatus();
}

// The C99 "%a" text of `v` (0x1.9p+3, 0x0p+0, -inf, nan; a subnormal as 0x0.<fraction>p-1022), written
// from the bits. printf's own "%a" computes with the value, which a process in denormals-are-zero mode
// (-ffast-math's startup code sets it, on x86-64 and AArch64 alike) reads as 0: a subnormal offset came
// out as "0x0p+0", and the JSON form was no longer exact (R14).
inline std::string hex_float(double v) {
  const std::uint64_t bits = fp::bits_of(v);
  const char* sign = (bits >> 63) != 0 ? "-" : "";
  const auto exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  if (exponent == 0x7ff) return absl::StrCat(sign, fraction != 0 ? "nan" : "inf");
  std::string digits = absl::StrFormat("%013x", fraction);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  const int power = exponent == 0 ? (fraction == 0 ? 0 : -1022) : exponent - 1023;
  return absl::StrCat(sign, exponent == 0 ? "0x0" : "0x1", digits.empty() ? "" : ".", digits, "p", power >= 0 ? "+" : "",
                      power);
}

template <std::size_t D>
std::string json_cells(const CellIndex<D>& c) {
  std::string s = "[";
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&s, a ? "," : "", c[a]);
  return s + "]";
}

}  // namespace lwc::internal

LWC_EXPORT namespace lwc {

// read_wire_header()
//
// The kind and axes of a message, to dispatch on before decoding it: InvalidArgument when `bytes` is
// shorter than a header, lacks the magic, names an unknown kind or axes other than 2 and 3, or has its
// reserved byte set; Unimplemented for another format version. The decoder checks the length.
[[nodiscard]] inline absl::StatusOr<WireHeader> read_wire_header(std::span<const std::uint8_t> bytes) {
  return internal::parse_wire_header(bytes);
}

// encode_position()
//
// The wire form of `p` for a world of cell size `size` (R14). InvalidArgument unless `p` is in normal
// form: every offset finite, not negative, not -0.0, below `size` (one encoding per position), and
// `size` at most 2^53.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<std::vector<std::uint8_t>> encode_position(const WorldPosition<D>& p, ChunkSize size) {
  if (absl::Status s = internal::check_wire_cell_size(size); !s.ok()) return s;
  for (std::size_t a = 0; a < D; ++a) {
    if (absl::Status s = internal::check_wire_offset(p.offset[a], a, size.value()); !s.ok()) return s;
  }
  internal::WireWriter w(WireKind::kPosition, D);
  for (std::size_t a = 0; a < D; ++a) w.i64(p.cell[a]);
  for (std::size_t a = 0; a < D; ++a) w.f64(p.offset[a]);
  return std::move(w).done();
}

// decode_position()
//
// The position encoded in `bytes` (R14), exactly: decode(encode(p)) == p bit for bit. Every malformed
// input is refused with its reason (R15): InvalidArgument for a wrong length, magic, kind, axes or
// reserved byte, or an offset that is not in normal form for `size`; Unimplemented for another format
// version. Reads nothing past `bytes`.
template <std::size_t D>
[[nodiscard]] absl::StatusOr<WorldPosition<D>> decode_position(std::span<const std::uint8_t> bytes, ChunkSize size) {
  if (absl::Status s = internal::check_wire_cell_size(size); !s.ok()) return s;
  if (absl::Status s = internal::check_wire_header(bytes, WireKind::kPosition, D); !s.ok()) return s;
  internal::WireReader r(bytes);
  r.skip_header();
  WorldPosition<D> p;
  for (std::size_t a = 0; a < D; ++a) p.cell[a] = r.i64();
  for (std::size_t a = 0; a < D; ++a) {
    p.offset[a] = r.f64();
    if (absl::Status s = internal::check_wire_offset(p.offset[a], a, size.value()); !s.ok()) return s;
  }
  return p;
}

// encode_plan(), decode_plan()
//
// A rebase plan (from, target, expected version). Every value is valid. The view id is not sent (R12:
// ids are process-local): a decoded plan is unstamped, so no view commits it until the receiver stamps
// it with its own view's id on purpose (a client following the server's plan for its own view).
template <std::size_t D>
[[nodiscard]] std::vector<std::uint8_t> encode_plan(const RebasePlan<D>& plan) {
  internal::WireWriter w(WireKind::kPlan, D);
  for (std::size_t a = 0; a < D; ++a) w.i64(plan.from[a]);
  for (std::size_t a = 0; a < D; ++a) w.i64(plan.target[a]);
  w.u64(plan.expected_version);
  return std::move(w).done();
}

template <std::size_t D>
[[nodiscard]] absl::StatusOr<RebasePlan<D>> decode_plan(std::span<const std::uint8_t> bytes) {
  if (absl::Status s = internal::check_wire_header(bytes, WireKind::kPlan, D); !s.ok()) return s;
  internal::WireReader r(bytes);
  r.skip_header();
  RebasePlan<D> plan;
  for (std::size_t a = 0; a < D; ++a) plan.from[a] = r.i64();
  for (std::size_t a = 0; a < D; ++a) plan.target[a] = r.i64();
  plan.expected_version = r.u64();
  return plan;
}

// encode_origin_update(), decode_origin_update()
//
// A render-origin update: a view's new origin and its version (what commit returns). Every value is
// valid.
template <std::size_t D>
[[nodiscard]] std::vector<std::uint8_t> encode_origin_update(const Rebased<D>& update) {
  internal::WireWriter w(WireKind::kOriginUpdate, D);
  for (std::size_t a = 0; a < D; ++a) w.i64(update.origin[a]);
  w.u64(update.version);
  return std::move(w).done();
}

template <std::size_t D>
[[nodiscard]] absl::StatusOr<Rebased<D>> decode_origin_update(std::span<const std::uint8_t> bytes) {
  if (absl::Status s = internal::check_wire_header(bytes, WireKind::kOriginUpdate, D); !s.ok()) return s;
  internal::WireReader r(bytes);
  r.skip_header();
  Rebased<D> update;
  for (std::size_t a = 0; a < D; ++a) update.origin[a] = r.i64();
  update.version = r.u64();
  return update;
}

// to_json()
//
// The JSON form for tools (logs, trace viewers), one object per value, exact: cells and versions as
// JSON integers (int64 / uint64: a reader must not parse them as doubles), offsets as hex-float strings
// ("%a": "0x1.8p+3"; a subnormal "0x0.0000000000001p-1022"), written from the bits, so no digit is lost
// in any floating-point mode. Write-only: the binary form is the one that is decoded.
//   {"format":1,"kind":"position","cell":[4096,-2048],"offset":["0x1.9p+3","0x0p+0"]}
//   {"format":1,"kind":"plan","from":[0,0],"target":[4,0],"version":3}
//   {"format":1,"kind":"origin_update","origin":[4,0],"version":4}
template <std::size_t D>
[[nodiscard]] std::string to_json(const WorldPosition<D>& p) {
  std::string s = absl::StrCat("{\"format\":", kWireFormatVersion, ",\"kind\":\"position\",\"cell\":",
                               internal::json_cells<D>(p.cell), ",\"offset\":[");
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&s, a ? "," : "", "\"", internal::hex_float(p.offset[a]), "\"");
  return s + "]}";
}

template <std::size_t D>
[[nodiscard]] std::string to_json(const RebasePlan<D>& plan) {
  return absl::StrCat("{\"format\":", kWireFormatVersion, ",\"kind\":\"plan\",\"from\":", internal::json_cells<D>(plan.from),
                      ",\"target\":", internal::json_cells<D>(plan.target), ",\"version\":", plan.expected_version, "}");
}

template <std::size_t D>
[[nodiscard]] std::string to_json(const Rebased<D>& update) {
  return absl::StrCat("{\"format\":", kWireFormatVersion, ",\"kind\":\"origin_update\",\"origin\":",
                      internal::json_cells<D>(update.origin), ",\"version\":", update.version, "}");
}

}  // namespace lwc

LWC_EXACT_FP_END

#endif  // LWC_REBASE_WIRE_H_
