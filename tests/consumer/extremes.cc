// SPDX-License-Identifier: MIT
// File: tests/consumer/extremes.cc
//
// The contracts at their extreme values, as an engine sees them: built outside the tree against the
// installed package, with the engine's own compiler flags (`./lwc package` builds it once per flag set
// of its matrix: -ffast-math, -ffinite-math-only, -ffp-contract=fast, -fno-signed-zeros, ...). Every
// answer is judged by the checkers of lwc.contracts (compiled with the same flags) and, for the cases the
// issue names, by the expected value itself. Prints the number of checks; exits non-zero on any failure.
//
// The extreme values are made from their bits, read through a volatile: this file is compiled with the
// consumer's flags too, and under -ffinite-math-only a NaN or infinity written as a literal (or returned
// by std::numeric_limits) is folded away before lwc ever sees it. An engine's NaNs come from memory.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lwc/exact_fp.h"
#ifdef LWC_USE_HEADERS
#include "lwc/contracts/broadphase.h"
#include "lwc/contracts/commit.h"
#include "lwc/contracts/cover.h"
#include "lwc/contracts/decompose.h"
#include "lwc/contracts/rebase.h"
#include "lwc/lwc.h"
#endif

#ifndef LWC_USE_HEADERS
import lwc;
import lwc.contracts.decompose;
import lwc.contracts.cover;
import lwc.contracts.rebase;
import lwc.contracts.broadphase;
import lwc.contracts.commit;
#endif

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

int checks = 0;
int failures = 0;
std::string table;  // the answers of issue 22's table, printed last

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    if (failures <= 40) std::printf("FAIL %s\n", what.c_str());
  }
}

void expect_ok(const absl::Status& s, const std::string& what) {
  expect(s.ok(), s.ok() ? what : absl::StrCat(what, ": ", s.ToString()));
}

template <class T>
std::string show(const absl::StatusOr<T>& r) {
  return r.ok() ? "ok" : r.status().ToString();
}

// A double (float) from its bits, through memory the optimiser cannot see into.
double d(std::uint64_t bits) {
  volatile std::uint64_t v = bits;
  const std::uint64_t b = v;
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
float f(std::uint32_t bits) {
  volatile std::uint32_t v = bits;
  const std::uint32_t b = v;
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
std::string hex(double x) { return absl::StrFormat("0x%016x", bits(x)); }

// Every class of double, with the bits written out: zeros, subnormals, the normal range's ends, the
// integers where precision runs out (2^53, 2^63 and their neighbours), infinities and NaNs.
struct Named {
  const char* name;
  std::uint64_t bits;
};
constexpr Named kDoubles[] = {
    {"+0", 0x0000000000000000}, {"-0", 0x8000000000000000},
    {"+denorm_min", 0x0000000000000001}, {"-denorm_min", 0x8000000000000001},
    {"+largest subnormal", 0x000fffffffffffff}, {"-largest subnormal", 0x800fffffffffffff},
    {"+min normal", 0x0010000000000000}, {"-min normal", 0x8010000000000000},
    {"0.1", 0x3fb999999999999a}, {"-0.1", 0xbfb999999999999a},
    {"0.5", 0x3fe0000000000000}, {"-0.5", 0xbfe0000000000000},
    {"1 - ulp", 0x3fefffffffffffff}, {"1", 0x3ff0000000000000}, {"-1", 0xbff0000000000000},
    {"2", 0x4000000000000000}, {"3", 0x4008000000000000}, {"1e-17", 0x3c670ef54646d497},
    {"-1e-17", 0xbc670ef54646d497},
    {"2^52 + 0.5", 0x4330000000000001}, {"2^53 - 1", 0x433fffffffffffff}, {"2^53", 0x4340000000000000},
    {"2^53 + 2", 0x4340000000000001}, {"-2^53", 0xc340000000000000}, {"-(2^53 + 2)", 0xc340000000000001},
    {"2^62", 0x43d0000000000000}, {"2^63 - 1024", 0x43dfffffffffffff}, {"2^63", 0x43e0000000000000},
    {"2^63 + 2048", 0x43e0000000000001}, {"-2^63", 0xc3e0000000000000}, {"-(2^63 + 2048)", 0xc3e0000000000001},
    {"-(2^63 - 1024)", 0xc3dfffffffffffff}, {"2^64", 0x43f0000000000000}, {"1e300", 0x7e37e43c8800759c},
    {"+max", 0x7fefffffffffffff}, {"-max", 0xffefffffffffffff},
    {"+inf", 0x7ff0000000000000}, {"-inf", 0xfff0000000000000},
    {"quiet NaN", 0x7ff8000000000000}, {"negative quiet NaN", 0xfff8000000000000},
    {"signalling NaN", 0x7ff0000000000001}, {"NaN with payload", 0x7fffffffffffffff},
    {"negative signalling NaN", 0xfff0000000000001},
};

bool nan_bits(std::uint64_t b) { return (b & ~(std::uint64_t{1} << 63)) > 0x7ff0000000000000; }
bool inf_bits(std::uint64_t b) { return (b & ~(std::uint64_t{1} << 63)) == 0x7ff0000000000000; }

// The helpers themselves: classification and stepping agree with the bit patterns under every flag.
void exact_fp() {
  for (const Named& n : kDoubles) {
    const double x = d(n.bits);
    const bool nan = nan_bits(n.bits);
    const bool inf = inf_bits(n.bits);
    const std::uint64_t exponent = n.bits & 0x7ff0000000000000;
    expect(lwc::fp::is_nan(x) == nan, absl::StrCat("fp::is_nan(", n.name, ")"));
    expect(lwc::fp::is_inf(x) == inf, absl::StrCat("fp::is_inf(", n.name, ")"));
    expect(lwc::fp::is_finite(x) == (!nan && !inf), absl::StrCat("fp::is_finite(", n.name, ")"));
    expect(lwc::fp::sign_bit(x) == ((n.bits >> 63) != 0), absl::StrCat("fp::sign_bit(", n.name, ")"));
    expect(lwc::fp::is_subnormal(x) == (exponent == 0 && (n.bits << 12) != 0),
           absl::StrCat("fp::is_subnormal(", n.name, ")"));
    // next_up / next_down against the ordering of the bits (sign-magnitude).
    const std::uint64_t up = bits(lwc::fp::next_up(x));
    const std::uint64_t down = bits(lwc::fp::next_down(x));
    std::uint64_t want_up = 0;
    std::uint64_t want_down = 0;
    if (nan) {
      want_up = want_down = n.bits;
    } else {
      const bool negative = (n.bits >> 63) != 0;
      const std::uint64_t mag = n.bits & ~(std::uint64_t{1} << 63);
      want_up = mag == 0 ? 1 : n.bits == 0x7ff0000000000000 ? n.bits : negative ? n.bits - 1 : n.bits + 1;
      want_down = mag == 0                          ? 0x8000000000000001
                  : n.bits == 0xfff0000000000000 ? n.bits
                  : negative                     ? n.bits + 1
                                                 : n.bits - 1;
    }
    expect(up == want_up, absl::StrCat("fp::next_up(", n.name, ") = ", hex(d(up))));
    expect(down == want_down, absl::StrCat("fp::next_down(", n.name, ") = ", hex(d(down))));
  }
  for (const std::uint32_t b : {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x7f7fffffu, 0x7f800000u,
                                0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc00000u}) {
    const float x = f(b);
    const bool nan = (b & 0x7fffffffu) > 0x7f800000u;
    const bool inf = (b & 0x7fffffffu) == 0x7f800000u;
    expect(lwc::fp::is_nan(x) == nan && lwc::fp::is_inf(x) == inf && lwc::fp::is_finite(x) == (!nan && !inf) &&
               lwc::fp::sign_bit(x) == ((b >> 31) != 0) &&
               lwc::fp::is_subnormal(x) == ((b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0),
           absl::StrFormat("fp classification of float 0x%08x", b));
  }
  // widen(): the double equal to a float, from the bits (static_cast<double> reads a subnormal float as 0
  // under denormals-are-zero).
  for (const auto& [fb, db] : {std::pair<std::uint32_t, std::uint64_t>{0x00000001u, 0x36a0000000000000},
                               {0x80000001u, 0xb6a0000000000000}, {0x007fffffu, 0x380fffffc0000000},
                               {0x3dcccccdu, 0x3fb99999a0000000}, {0x80000000u, 0x8000000000000000},
                               {0x7f800000u, 0x7ff0000000000000}, {0xff800000u, 0xfff0000000000000}}) {
    expect(bits(lwc::fp::widen(f(fb))) == db, absl::StrFormat("fp::widen(float 0x%08x)", fb));
  }
  expect(lwc::fp::is_nan(lwc::fp::widen(f(0x7fc00000u))), "fp::widen(float NaN) is a NaN");
  float nan_out = 0;
  lwc::fp::set_quiet_nan(nan_out);
  expect(bits(nan_out) == 0x7fc00000u, "fp::set_quiet_nan(float)");
}

// D9: cell_of for every pair of extreme coordinates and cell sizes, judged by the oracle; D10 on the
// ordered finite ones; D11 for the batch. The three values of the table, by value.
void decompose() {
  std::vector<double> sizes;
  for (const Named& h : kDoubles) {
    const double hv = d(h.bits);
    const absl::StatusOr<lwc::CellSize> size = lwc::CellSize::create(hv);
    const bool valid = !nan_bits(h.bits) && !inf_bits(h.bits) && (h.bits >> 63) == 0 && (h.bits << 1) != 0;
    expect(size.ok() == valid, absl::StrCat("D9 CellSize::create(", h.name, ") ", show(size)));
    if (valid) sizes.push_back(hv);
  }
  for (const double h : sizes) {
    std::vector<double> finite;
    for (const Named& v : kDoubles) {
      const double x = d(v.bits);
      const absl::StatusOr<std::int64_t> got = lwc::cell_of(x, h);
      expect_ok(lwc::contracts::check_cell_of(x, h, got), absl::StrCat("D9 cell_of(", v.name, ", ", hex(h), ")"));
      std::int64_t code_cell = 0;
      const absl::StatusCode code = lwc::cell_of_code<double>(x, *lwc::CellSize::create(h), code_cell);
      expect(code == got.status().code() && (!got.ok() || code_cell == *got),
             absl::StrCat("D9 cell_of_code(", v.name, ", ", hex(h), ") agrees with cell_of"));
      if (got.ok()) {
        expect_ok(lwc::contracts::check_cell_bracket(x, h, *got), absl::StrCat("D9 bracket ", v.name, " ", hex(h)));
      }
      if (!nan_bits(v.bits) && !inf_bits(v.bits)) finite.push_back(x);
    }
    // D10: monotone over every ordered pair that has cells.
    for (const double a : finite) {
      for (const double b : finite) {
        const absl::StatusOr<std::int64_t> ca = lwc::cell_of(a, h);
        const absl::StatusOr<std::int64_t> cb = lwc::cell_of(b, h);
        if (ca.ok() && cb.ok()) {
          expect_ok(lwc::contracts::check_cell_monotone(a, *ca, b, *cb), absl::StrCat("D10 ", hex(a), " ", hex(b)));
        }
      }
    }
    // D11: the batch over the finite values, then with a NaN in the middle.
    std::vector<std::int64_t> out(finite.size());
    const absl::Status batch = lwc::cell_of_all(finite, *lwc::CellSize::create(h), out);
    expect_ok(lwc::contracts::check_cell_batch(finite, h, batch, out), absl::StrCat("D11 cell_of_all at ", hex(h)));
    // Zeros around the NaN, so that no earlier element fails first (1.0 / a subnormal h is OutOfRange).
    std::vector<double> with_nan = {d(0x0000000000000000), d(0x7ff8000000000000), d(0x8000000000000000)};
    std::vector<std::int64_t> out3(3);
    const absl::Status refused = lwc::cell_of_all(with_nan, *lwc::CellSize::create(h), out3);
    expect(refused.code() == absl::StatusCode::kInvalidArgument, absl::StrCat("D11 cell_of_all refuses a NaN at ", hex(h)));
  }
  // The float instance on float extremes (exact as doubles, so the double oracle judges it).
  const std::uint32_t kFloats[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x3f000000u,
                                   0x3dcccccdu, 0xbdcccccdu, 0x4b800000u, 0x4b800001u, 0xcb800001u, 0x5f000000u,
                                   0xdf000000u, 0x5f000001u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                                   0x7fc00000u, 0x7f800001u, 0xffc00000u};
  for (const std::uint32_t hb : {0x3f000000u, 0x3dcccccdu, 0x40000000u, 0x00000001u, 0x7f7fffffu}) {
    const float h = f(hb);
    const absl::StatusOr<lwc::BasicCellSize<float>> size = lwc::BasicCellSize<float>::create(h);
    expect(size.ok(), absl::StrFormat("D9 BasicCellSize<float>::create(0x%08x)", hb));
    if (!size.ok()) continue;
    for (const std::uint32_t vb : kFloats) {
      const float v = f(vb);
      const absl::StatusOr<std::int64_t> got = lwc::cell_of<float>(v, *size);
      // Widened on the bits: under denormals-are-zero static_cast<double> reads a subnormal float as 0.
      expect_ok(lwc::contracts::check_cell_of(lwc::fp::widen(v), lwc::fp::widen(h), got),
                absl::StrFormat("D9 cell_of<float>(0x%08x, 0x%08x)", vb, hb));
    }
  }
  for (const std::uint32_t hb : {0x00000000u, 0x80000000u, 0xbf800000u, 0x7f800000u, 0x7fc00000u, 0xffc00000u}) {
    expect(!lwc::BasicCellSize<float>::create(f(hb)).ok(), absl::StrFormat("D9 float cell size 0x%08x refused", hb));
  }
  // The table, by value.
  const absl::StatusOr<std::int64_t> nan = lwc::cell_of(d(0x7ff8000000000000), d(0x3fe0000000000000));
  expect(nan.status().code() == absl::StatusCode::kInvalidArgument, "D9 cell_of(NaN, 0.5) is refused");
  const absl::StatusOr<std::int64_t> tiny = lwc::cell_of(d(0x8000000000000001), d(0x4000000000000000));
  expect(tiny.ok() && *tiny == -1, absl::StrCat("D9 cell_of(-4.94e-324, 2.0) == -1, got ", tiny.ok() ? *tiny : 0));
  const absl::StatusOr<std::int64_t> tenth = lwc::cell_of(d(0x3fe0000000000000), d(0x3fb999999999999a));
  expect(tenth.ok() && *tenth == 4, absl::StrCat("D9 cell_of(0.5, 0.1) == 4, got ", tenth.ok() ? *tenth : 0));
  const auto answer = [](const absl::StatusOr<std::int64_t>& r) {
    return r.ok() ? absl::StrCat(*r) : r.status().code() == absl::StatusCode::kInvalidArgument
                                           ? std::string("refused")
                                           : r.status().ToString();
  };
  absl::StrAppend(&table, "cell_of(NaN, 0.5) ", answer(nan), " | cell_of(-4.94e-324, 2.0) ", answer(tiny),
                  " | cell_of(0.5, 0.1) ", answer(tenth));
  const absl::StatusOr<std::int64_t> zero = lwc::cell_of(d(0x8000000000000000), d(0x3fe0000000000000));
  expect(zero.ok() && *zero == 0, "D9 cell_of(-0.0, 0.5) == 0");
  // Integer contracts: split at the int64 ends, judged by the checker.
  for (const std::int64_t size : {std::int64_t{1}, std::int64_t{3}, std::int64_t{1000}, std::int64_t{1} << 62, kMax}) {
    for (const std::int64_t x : {kMin, kMin + 1, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, kMax - 1, kMax}) {
      const lwc::ChunkPoint p = lwc::split(x, *lwc::ChunkSize::create(size));
      expect_ok(lwc::contracts::check_split(x, size, p.chunk, p.local), absl::StrCat("D1-D4 split(", x, ", ", size, ")"));
    }
  }
}

// R1 (normalisation), R4 (exact rounding), R5 (bubble), R10 (no drift), R11 (round trip) at the extremes.
void rebase() {
  for (const std::int64_t size : {std::int64_t{1}, std::int64_t{16}, std::int64_t{1000}, std::int64_t{1} << 53}) {
    const lwc::WorldGrid grid = *lwc::WorldGrid::create(*lwc::ChunkSize::create(size));
    for (const std::int64_t cell : {kMin, std::int64_t{-1}, std::int64_t{0}, kMax}) {
      for (const Named& v : kDoubles) {
        const double offset = d(v.bits);
        const absl::StatusOr<lwc::WorldPosition<2>> got =
            grid.normalize(lwc::CellIndex<2>{cell, 0}, std::array<double, 2>{offset, 0.0});
        expect_ok(lwc::contracts::check_normalize<2>(size, lwc::CellIndex<2>{cell, 0}, {offset, 0.0}, got),
                  absl::StrCat("R1 normalize(", cell, " + ", v.name, ") at size ", size));
        if (got.ok()) expect(!lwc::fp::sign_bit(got->offset[0]), absl::StrCat("R1 no -0.0 offset for ", v.name));
      }
    }
  }
  // The bubble's edge: exactly bubble_units is inside, one subnormal more is not (R5), each conversion
  // the float nearest to the exact value (R4).
  const lwc::WorldGrid g16 = *lwc::WorldGrid::create(lwc::ChunkSize::of<16>());
  const lwc::OriginCoordinator<2> small = *lwc::OriginCoordinator<2>::create(g16, lwc::ViewConfig{.bubble_units = lwc::BubbleUnits::of<32>()});
  const lwc::contracts::RenderSpec small_spec = lwc::contracts::spec_of(small);
  const double tiny = d(1);
  const double below16 = d(0x402fffffffffffff);  // the largest double below 16
  std::vector<lwc::WorldPosition<2>> edge;
  for (const std::int64_t c : {std::int64_t{-3}, std::int64_t{-2}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1},
                               std::int64_t{2}, std::int64_t{3}}) {
    for (const double off : {0.0, tiny, 0.5, 15.0, below16}) edge.push_back({{c, -c}, {off, off}});
  }
  for (const lwc::WorldPosition<2>& p : edge) {
    const absl::StatusOr<lwc::RenderPoint<2>> r = small.to_render(p);
    expect_ok(lwc::contracts::check_render<2>(small_spec, small.origin(), small.version(), p, r),
              absl::StrCat("R4/R5 to_render at the bubble edge, cell ", p.cell[0], " offset ", hex(p.offset[0])));
    if (r.ok()) expect_ok(lwc::contracts::check_render_bound<2>(small_spec, small.origin(), p, *r), "R5 bound");
  }
  expect(small.to_render(lwc::WorldPosition<2>{{2, -2}, {0, 0}}).ok(), "R5 exactly bubble_units is inside");
  expect(small.to_render(lwc::WorldPosition<2>{{2, 0}, {tiny, 0}}).status().code() == absl::StatusCode::kOutOfRange,
         "R5 one subnormal past the bubble is outside");
  // The same edge through an oriented view (R17 renders from the same split of the world difference).
  const lwc::Rotation<2> identity{{{{1, 0}, {0, 1}}}};
  expect(small.to_render_oriented(lwc::WorldPosition<2>{{2, -2}, {0, 0}}, identity).ok(),
         "R5/R17 oriented: exactly bubble_units is inside");
  expect(small.to_render_oriented(lwc::WorldPosition<2>{{2, 0}, {tiny, 0}}, identity).status().code() ==
             absl::StatusCode::kOutOfRange,
         "R5/R17 oriented: one subnormal past the bubble is outside");
  // R4: 2^24 + 1 + denorm_min rounds once, to 2^24 + 2; double-then-float would give 2^24.
  const lwc::WorldGrid g1 = *lwc::WorldGrid::create(lwc::ChunkSize::of<1>());
  const lwc::OriginCoordinator<2> unit = *lwc::OriginCoordinator<2>::create(g1, lwc::ViewConfig{.bubble_units = lwc::BubbleUnits::of<(std::int64_t{1} << 25)>()});
  const lwc::WorldPosition<2> once{{(1 << 24) + 1, (1 << 24) + 1}, {tiny, 0}};
  const absl::StatusOr<lwc::RenderPoint<2>> r4 = unit.to_render(once);
  expect(r4.ok() && bits(r4->at[0]) == bits(16777218.0f) && bits(r4->at[1]) == bits(16777216.0f),
         "R4 2^24 + 1 + denorm_min renders as 2^24 + 2 (one rounding), the tie 2^24 + 1 as 2^24");
  expect_ok(lwc::contracts::check_render<2>(lwc::contracts::spec_of(unit), unit.origin(), unit.version(), once, r4), "R4 checker");
  // R4 with a divisor (centimetres rendered in metres): the exact quotient, at subnormal offsets too.
  const lwc::WorldGrid g1024 = *lwc::WorldGrid::create(lwc::ChunkSize::of<102400>());
  const lwc::OriginCoordinator<3> cm = *lwc::OriginCoordinator<3>::create(g1024, lwc::ViewConfig{.units_per_render_unit = lwc::UnitsPerRenderUnit::of<100>()});
  for (const std::int64_t units : {std::int64_t{1}, std::int64_t{3}, std::int64_t{-7}, std::int64_t{16777217},
                                   std::int64_t{-1677721699}}) {
    for (const double extra : {0.0, tiny, 0.5, d(0x3fefffffffffffff)}) {
      lwc::WorldPosition<3> p = cm.grid().from_fixed(lwc::FixedPoint<3>{{units, -units, units * 3}});
      absl::StatusOr<lwc::WorldPosition<3>> q = cm.grid().normalize(p.cell, {p.offset[0] + extra, p.offset[1], p.offset[2]});
      if (!q.ok()) continue;
      expect_ok(lwc::contracts::check_render<3>(lwc::contracts::spec_of(cm), cm.origin(), cm.version(), *q, cm.to_render(*q)),
                absl::StrCat("R4 divide by 100: ", units, " + ", hex(extra)));
    }
  }
  // R10: to_render_all writes NaN for an object outside the bubble, and the checker reads it as such.
  std::vector<lwc::WorldPosition<2>> anchors = {{{0, 0}, {1.5, 2.5}}, {{100, 0}, {0, 0}}, {{-2, 2}, {0, 0}}};
  std::vector<std::array<float, 2>> locals(anchors.size());
  const absl::StatusOr<std::size_t> outside = small.to_render_all(anchors, locals);
  expect(outside.ok() && *outside == 1, "R10 to_render_all: one object outside");
  expect(lwc::fp::is_nan(locals[1][0]) && lwc::fp::is_nan(locals[1][1]), "R10 outside objects get NaN locals");
  expect_ok(lwc::contracts::check_no_drift<2>(small_spec, small.origin(), anchors, locals), "R10 check_no_drift");
  // R11: from_render refuses NaN and infinite render coordinates; the round trip holds elsewhere.
  for (const std::uint32_t yb : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7f800000u, 0xff800000u, 0x00000000u,
                                 0x80000000u, 0x00000001u, 0x41f80000u, 0xc1f80000u, 0x7f7fffffu}) {
    const lwc::RenderPoint<2> y{{f(yb), 0.0f}, small.version(), small.id()};
    const absl::StatusOr<lwc::WorldPosition<2>> world = small.from_render(y);
    const bool finite = (yb & 0x7f800000u) != 0x7f800000u;
    if (!finite) {
      expect(world.status().code() == absl::StatusCode::kInvalidArgument,
             absl::StrFormat("R11 from_render refuses 0x%08x, got %s", yb, show(world)));
    }
    const absl::StatusOr<lwc::RenderPoint<2>> again =
        world.ok() ? small.to_render(*world) : absl::StatusOr<lwc::RenderPoint<2>>(world.status());
    expect_ok(lwc::contracts::check_round_trip<2>(small_spec, small.origin(), small.version(), y, world, again),
              absl::StrFormat("R11 round trip of 0x%08x", yb));
  }
}

template <std::size_t D>
lwc::Box<D> box_of(double lo, double hi) {
  lwc::Box<D> b;
  b.min.fill(lo);
  b.max.fill(hi);
  return b;
}

// B6 (validation), B8/B11 (placement), B1-B3 (pairs) at the extremes, batch and persistent.
template <std::size_t D>
void broadphase() {
  std::vector<double> finite;
  std::vector<double> bad;
  for (const Named& n : kDoubles) (nan_bits(n.bits) || inf_bits(n.bits) ? bad : finite).push_back(d(n.bits));
  const lwc::GridConfig reject{.cell_size = lwc::CellSize::of<2.0>()};
  const lwc::GridConfig coarse{.cell_size = lwc::CellSize::of<2.0>(), .oversize = lwc::Oversize::kCoarserLevels};
  const lwc::GridConfig subnormal{.cell_size = *lwc::CellSize::create(d(1)), .oversize = lwc::Oversize::kCoarserLevels};
  // Placement of a box over every ordered pair of a spread of finite extremes (the oracle's level search
  // is a bisection over some 2000 levels, so not all of them).
  std::vector<double> spread;
  for (std::size_t i = 0; i < finite.size(); i += 3) spread.push_back(finite[i]);
  for (const lwc::GridConfig& config : {reject, coarse, subnormal}) {
    const lwc::GridSpec<D> spec = *lwc::GridSpec<D>::create(config);
    for (const double lo : spread) {
      for (const double hi : spread) {
        const lwc::Box<D> b = box_of<D>(lo, hi);
        expect_ok(lwc::contracts::check_placement<D>(b, config, spec.place(b, 0)),
                  absl::StrCat("B8/B11 place [", hex(lo), ", ", hex(hi), "] D=", D));
      }
    }
  }
  // A box with a NaN or infinite bound on any side is refused by find_pairs (B6), naming the box.
  const lwc::Box<D> unit = box_of<D>(0, 1);
  for (const double x : bad) {
    for (std::size_t k = 0; k < D; ++k) {
      for (const bool upper : {false, true}) {
        lwc::Box<D> b = unit;
        (upper ? b.max : b.min)[k] = x;
        const std::vector<lwc::Box<D>> boxes = {unit, b};
        const absl::StatusOr<lwc::PairsResult> got = lwc::find_pairs(std::span<const lwc::Box<D>>(boxes), reject);
        if (D == 2 && k == 0 && !upper && nan_bits(bits(x)) && table.find("find_pairs") == std::string::npos) {
          absl::StrAppend(&table, " | find_pairs with a NaN box ",
                          got.ok() ? "accepted"
                          : got.status().code() == absl::StatusCode::kInvalidArgument ? "refused"
                                                                                       : got.status().ToString());
        }
        expect(got.status().code() == absl::StatusCode::kInvalidArgument,
               absl::StrCat("B6 find_pairs refuses a box with ", hex(x), " on axis ", k, ": ", show(got)));
        expect_ok(lwc::contracts::check_find_pairs<D>(boxes, reject, got), absl::StrCat("B6 check_find_pairs ", hex(x)));
        expect(!lwc::Grid<D>::create(boxes, reject).ok(), absl::StrCat("B6 Grid::create refuses ", hex(x)));
        const lwc::Grid<D> grid = *lwc::Grid<D>::create({unit}, reject);
        expect(grid.query(b).status().code() == absl::StatusCode::kInvalidArgument,
               absl::StrCat("B6 query refuses a probe with ", hex(x)));
        // The persistent grid refuses it too, and changes nothing.
        lwc::PersistentGrid<D> pg = *lwc::PersistentGrid<D>::create(reject);
        const absl::StatusOr<lwc::Handle> h = pg.insert(unit);
        const absl::StatusOr<lwc::Handle> refused = pg.insert(b);
        expect(h.ok() && refused.status().code() == absl::StatusCode::kInvalidArgument && pg.size() == 1,
               absl::StrCat("B6 PersistentGrid::insert refuses ", hex(x)));
        expect(pg.move(*h, b).code() == absl::StatusCode::kInvalidArgument && pg.pending() == 1,
               absl::StrCat("B6 PersistentGrid::move refuses ", hex(x)));
      }
    }
  }
  // Pairs among boxes at the extremes (zeros of both signs, subnormals, 2^53 neighbours): the oracle's.
  std::vector<lwc::Box<D>> boxes;
  for (std::size_t i = 0; i + 1 < finite.size(); ++i) {
    if (bits(finite[i]) >> 63 == 0 && finite[i] < 1e300) boxes.push_back(box_of<D>(-finite[i], finite[i]));
  }
  boxes.push_back(box_of<D>(d(0x8000000000000000), d(0)));
  boxes.push_back(box_of<D>(d(1), d(1)));
  boxes.push_back(box_of<D>(d(0x8000000000000001), d(0x8000000000000001)));
  boxes.push_back(box_of<D>(d(0x4340000000000000), d(0x4340000000000001)));
  // Boxes a few subnormals apart in one cell: the pair test itself decides (denormals-are-zero would
  // compare them all as 0 and pair them).
  const std::vector<lwc::Box<D>> close = {box_of<D>(d(1), d(1)), box_of<D>(d(2), d(3)), box_of<D>(d(3), d(4)),
                                          box_of<D>(d(0x8000000000000001), d(1))};
  const absl::StatusOr<lwc::PairsResult> close_pairs = lwc::find_pairs(std::span<const lwc::Box<D>>(close), reject);
  expect(close_pairs.ok() && close_pairs->pairs.size() == 2 && close_pairs->pairs[0] == lwc::Pair{0, 3} &&
             close_pairs->pairs[1] == lwc::Pair{1, 2},
         absl::StrCat("B1/B3 boxes a few subnormals apart pair exactly (0-3, 1-2) D=", D, ": ", show(close_pairs)));
  expect_ok(lwc::contracts::check_find_pairs<D>(close, reject, close_pairs), "B1-B3 check_find_pairs, subnormal boxes");
  for (const lwc::GridConfig& config : {reject, coarse}) {
    const absl::StatusOr<lwc::PairsResult> got = lwc::find_pairs(std::span<const lwc::Box<D>>(boxes), config);
    expect_ok(lwc::contracts::check_find_pairs<D>(boxes, config, got), absl::StrCat("B1-B3 pairs at the extremes D=", D));
    if (got.ok()) expect_ok(lwc::contracts::check_pairs<D>(boxes, got->pairs), "B3 check_pairs");
  }
}

// C1-C5 (cover) at the int64 ends, and T1-T3 (commit) basics.
void cover_and_commit() {
  const std::int64_t ends[] = {kMin, kMin + 1, -1000, -1, 0, 1, 999, 1000, kMax - 1, kMax};
  for (const std::int64_t size : {std::int64_t{1}, std::int64_t{16}, std::int64_t{1000}, kMax}) {
    const lwc::ChunkSize s = *lwc::ChunkSize::create(size);
    for (const std::int64_t lo : ends) {
      for (const std::int64_t hi : ends) {
        expect_ok(lwc::contracts::check_cover(lo, hi, size, lwc::contracts::answer_of(lwc::cover(lo, hi, s))),
                  absl::StrCat("C1-C4 cover(", lo, ", ", hi, ", ", size, ")"));
        expect_ok(lwc::contracts::check_cover_closed(lo, hi, size, lwc::contracts::answer_of(lwc::cover_closed(lo, hi, s))),
                  absl::StrCat("C5 cover_closed(", lo, ", ", hi, ", ", size, ")"));
      }
    }
  }
  struct Snap {
    lwc::ChunkRun run;
  };
  lwc::Committer<Snap> c(lwc::ChunkSize::of<16>());
  for (const lwc::Point2 cell : {lwc::Point2{kMin, kMax}, lwc::Point2{-1, -1}, lwc::Point2{0, 0}, lwc::Point2{15, 16}, lwc::Point2{kMax, kMin}}) {
    expect_ok(lwc::contracts::check_chunk_of(cell, 16, c.chunk_of(cell)), absl::StrCat("T1 chunk_of(", cell.x, ", ", cell.y, ")"));
    c.mark(cell);
  }
  int prepared = 0;
  const absl::StatusOr<lwc::CommitReport> report = c.commit([&prepared](const lwc::ChunkRun& run) -> absl::StatusOr<Snap> {
    ++prepared;
    return Snap{run};
  });
  expect(report.ok() && report->chunks_published == 5 && c.pending_chunks() == 0 && prepared > 0,
         absl::StrCat("T2/T3 commit publishes every marked chunk: ", show(report)));
}

}  // namespace

int main() {
  exact_fp();
  decompose();
  rebase();
  broadphase<2>();
  broadphase<3>();
  cover_and_commit();
  std::printf("issue 22: %s\n", table.c_str());
  std::printf("extremes: %d checks, %d failed (__FINITE_MATH_ONLY__ = %d)\n", checks, failures, __FINITE_MATH_ONLY__);
  return failures == 0 ? 0 : 1;
}
