// SPDX-License-Identifier: MIT
// File: tests/golden/golden.cc
//
// The golden answers: a fixed corpus of calls for every contract, through the public API only, and what
// lwc answers, as one record per line. The records of each section are summed into one digest (64-bit
// FNV-1a, order-sensitive); tests/golden/digests.txt holds the committed digests and tests/golden/dump.txt
// the committed records. The same records must come out on every machine and under every flag set, since
// the contracts are exact: x86-64 in every preset, AArch64 under qemu (the `aarch64` preset) and every
// entry of the engine-flags matrix (`./lwc package`). A change that alters an answer fails every one of
// them until it is explained and the files are regenerated (`golden --write tests/golden`).
//
//   golden                       prints each section's record count and digest
//   golden --check DIR           compares with DIR/digests.txt; on a mismatch prints the first record that
//                                differs from DIR/dump.txt; exit 1 on any difference
//   golden --write DIR           writes DIR/digests.txt and DIR/dump.txt
//   golden --dump FILE           writes the records only (to compare two machines' runs line by line)
//
// Only what the contracts promise is recorded: pairs and events in their canonical order (or, where the
// order or a handle's slot is left to the implementation, sorted by the caller's own payloads), the stats
// the clauses define exactly, error codes (not messages), floats bit for bit except that a NaN is "nan"
// (R4 promises a NaN outside the bubble, not its payload, which differs between x86-64 and AArch64).
// View ids are process-local (R12) and never recorded. Inputs are made from integers (splitmix64, values
// on a binary grid, constants from their bits), so no library's random distribution or libm enters, and
// the extreme values are read from memory, where the consumer's flags cannot fold them (a NaN literal
// under -ffinite-math-only, a -0.0 under -fno-signed-zeros).
#include "lwc/exact_fp.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#ifdef LWC_USE_HEADERS  // the header build of tests/consumer (lwc::headers)
#include "lwc/lwc.h"
#endif

#ifndef LWC_USE_HEADERS
import lwc;
#endif

namespace {

using std::int64_t;
using std::uint64_t;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// ---------------------------------------------------------------------------------------------------
// Records and digests

struct Section {
  std::string name;
  std::vector<std::string> records;
};

std::vector<Section> sections;

void begin(const std::string& name) { sections.push_back({name, {}}); }

template <typename... Args>
void rec(const Args&... parts) {
  sections.back().records.push_back(absl::StrCat(parts...));
}

// A long list as records of at most 16 items each, so that a difference is shown near where it is.
void rec_list(const std::string& prefix, const std::vector<std::string>& items) {
  if (items.empty()) rec(prefix, " (none)");
  for (std::size_t i = 0; i < items.size(); i += 16) {
    const std::size_t end = std::min(items.size(), i + 16);
    rec(prefix, " ", absl::StrJoin(items.begin() + static_cast<std::ptrdiff_t>(i), items.begin() + static_cast<std::ptrdiff_t>(end), " "));
  }
}

// a * b and a + b modulo 2^64, through 128 bits: the hashes below wrap on purpose, and the sanitizer
// presets (-fsanitize=integer) report every implicit unsigned wrap.
uint64_t mul64(uint64_t a, uint64_t b) { return absl::Uint128Low64(absl::uint128(a) * b); }
uint64_t add64(uint64_t a, uint64_t b) { return absl::Uint128Low64(absl::uint128(a) + b); }

// 64-bit FNV-1a over each record and its newline: small, dependency-free and order-sensitive; it guards
// against accidents, not adversaries, and the dump beside it says what changed.
uint64_t digest(const std::vector<std::string>& records) {
  uint64_t h = 0xcbf29ce484222325u;
  const auto eat = [&h](unsigned char c) {
    h ^= c;
    h = mul64(h, 0x100000001b3u);
  };
  for (const std::string& r : records) {
    for (const char c : r) eat(static_cast<unsigned char>(c));
    eat('\n');
  }
  return h;
}

// A double as its exact value in hex, as "%a" prints it (0x1.8p+1, -0x0p+0; subnormals as 0x0.<fraction>p-1022),
// but written from the bits: printf's own formatting does arithmetic on the value, which the
// denormals-are-zero mode of a -ffast-math program (its startup code sets it) would flush. Every NaN is
// "nan": R4 promises a NaN, not its payload or sign, which differ between x86-64 and AArch64.
std::string hex(double x) {
  const uint64_t bits = lwc::fp::bits_of(x);
  const bool negative = (bits >> 63) != 0;
  const auto exponent = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (exponent == 0x7ff) return fraction != 0 ? "nan" : negative ? "-inf" : "inf";
  std::string digits = absl::StrFormat("%013x", fraction);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  const int power = exponent == 0 ? (fraction == 0 ? 0 : -1022) : exponent - 1023;
  return absl::StrCat(negative ? "-" : "", exponent == 0 ? "0x0" : "0x1", digits.empty() ? "" : ".", digits, "p",
                      power >= 0 ? "+" : "", power);
}
// A float as the double it is (widened on the bits, since converting a subnormal float flushes it there).
std::string hex(float x) { return lwc::fp::is_nan(x) ? "nan" : hex(lwc::fp::widen(x)) + "f"; }

// A double from its bits, through memory the optimiser cannot see into: under -ffinite-math-only a NaN
// or infinity written as a literal is folded away before lwc sees it (as in tests/consumer/extremes.cc).
double d(uint64_t bits) {
  volatile uint64_t v = bits;
  const uint64_t b = v;
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

std::string code(const absl::Status& s) { return absl::StatusCodeToString(s.code()); }

// splitmix64: the seeded sample, the same on every machine.
struct Rng {
  uint64_t state;
  uint64_t next() {
    state = add64(state, 0x9e3779b97f4a7c15u);
    uint64_t z = state;
    z = mul64(z ^ (z >> 30), 0xbf58476d1ce4e5b9u);
    z = mul64(z ^ (z >> 27), 0x94d049bb133111ebu);
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n > 0 (the modulo bias does not matter here).
  uint64_t below(uint64_t n) { return next() % n; }
  // k / 2^shift for k uniform in [lo, hi]: exact doubles on a binary grid.
  double grid(int64_t lo, int64_t hi, int shift) {
    const auto k = lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1));
    return static_cast<double>(k) / static_cast<double>(int64_t{1} << shift);
  }
};

template <typename T>
T must(absl::StatusOr<T> r) {
  if (!r.ok()) {
    std::fprintf(stderr, "golden: a fixed input was refused: %s\n", r.status().ToString().c_str());
    std::abort();
  }
  return *std::move(r);
}

// ---------------------------------------------------------------------------------------------------
// lwc.decompose: split of the int64 extremes and a seeded sample; cell_of of the double extremes.

std::vector<int64_t> int_extremes(int64_t size) {
  std::vector<int64_t> xs = {kMin, kMin + 1, kMin + 2, -1000, -2, -1, 0, 1, 2, 999, 1000, 1001, kMax - 1, kMax};
  for (const int64_t k : {int64_t{-3}, int64_t{-1}, int64_t{1}, int64_t{3}}) {
    if (size <= kMax / 4) {
      xs.push_back(k * size - 1);
      xs.push_back(k * size);
      xs.push_back(k * size + 1);
    }
  }
  // The multiples of size nearest the extremes, and their neighbours.
  const int64_t low = kMin + (size - 1 - ((kMin % size) + size - 1) % size) % size;  // first multiple >= kMin
  const int64_t high = kMax - kMax % size;
  for (const int64_t m : {low, high}) {
    for (const int64_t delta : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
      if ((delta < 0 && m == kMin) || (delta > 0 && m == kMax)) continue;
      xs.push_back(m + delta);
    }
  }
  return xs;
}

std::vector<int64_t> int_sample(Rng& rng, std::size_t n) {
  std::vector<int64_t> xs;
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t r = rng.next();
    switch (i % 3) {
      case 0: xs.push_back(static_cast<int64_t>(r)); break;                           // anywhere
      case 1: xs.push_back(static_cast<int64_t>(r % 200001) - 100000); break;         // near 0
      default: xs.push_back(static_cast<int64_t>(r >> (r & 63))); break;              // every magnitude
    }
  }
  return xs;
}

void decompose() {
  begin("decompose");
  Rng rng{20261129};
  const std::vector<int64_t> sample = int_sample(rng, 96);
  for (const int64_t s : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{16}, int64_t{1000}, int64_t{1024},
                          int64_t{2147483647}, int64_t{1} << 32, int64_t{1} << 53, (int64_t{1} << 62) + 1,
                          kMax - 1, kMax}) {
    const lwc::ChunkSize size = must(lwc::ChunkSize::create(s));
    std::vector<int64_t> xs = int_extremes(s);
    xs.insert(xs.end(), sample.begin(), sample.end());
    std::vector<lwc::ChunkPoint> batch(xs.size());
    const absl::Status all = lwc::split_all(xs, size, batch);
    rec("split_all size ", s, " ", code(all));
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const lwc::ChunkPoint p = lwc::split(xs[i], size);
      rec("split ", xs[i], " ", s, " = ", p.chunk, " ", p.local,
          batch[i] == p ? "" : absl::StrCat(" split_all ", batch[i].chunk, " ", batch[i].local));
    }
  }
  for (const int64_t s : {int64_t{0}, int64_t{-1}, kMin}) rec("ChunkSize::create ", s, " ", code(lwc::ChunkSize::create(s).status()));
  const lwc::ChunkSize k16 = lwc::ChunkSize::of<16>();
  for (const lwc::Point3 p : {lwc::Point3{-1, 0, 16}, lwc::Point3{kMin, kMax, -17}}) {
    const lwc::ChunkPoint3 c = lwc::split(p, k16);
    rec("split3 ", p.x, " ", p.y, " ", p.z, " = ", c.chunk.x, " ", c.chunk.y, " ", c.chunk.z, " ", c.local.x, " ",
        c.local.y, " ", c.local.z);
  }

  // cell_of: the doubles of the clause's edge cases (D9, D10) and a seeded sample of bit patterns.
  const std::vector<uint64_t> value_bits = {
      0x0000000000000000u, 0x8000000000000000u,   // +-0
      0x0000000000000001u, 0x8000000000000001u,   // +-denorm_min
      0x000fffffffffffffu, 0x0010000000000000u, 0x8010000000000000u,  // largest subnormal, +-DBL_MIN
      0x3c670ef54646d497u, 0xbc670ef54646d497u,   // +-1e-17
      0x3fd3333333333333u, 0xbfd3333333333333u,   // +-0.3
      0x3fefffffffffffffu, 0x3ff0000000000000u, 0xbff0000000000000u, 0xbfefffffffffffffu,
      0x4330000000000000u, 0xc330000000000000u,   // +-2^52
      0x433fffffffffffffu, 0x4340000000000000u, 0x4340000000000001u, 0xc340000000000000u,  // 2^53 neighbours
      0x43dfffffffffffffu, 0x43e0000000000000u, 0xc3e0000000000000u, 0xc3e0000000000001u,  // 2^63 neighbours
      0x7fefffffffffffffu, 0xffefffffffffffffu,   // +-DBL_MAX
      0x7ff0000000000000u, 0xfff0000000000000u,   // +-inf
      0x7ff8000000000000u, 0xfff8000000000001u};  // NaNs
  std::vector<double> values;
  for (const uint64_t b : value_bits) values.push_back(d(b));
  for (int i = 0; i < 48; ++i) values.push_back(d(rng.next()));
  for (int i = 0; i < 48; ++i) values.push_back(rng.grid(-(1 << 20), 1 << 20, 7));
  for (const uint64_t hb : std::initializer_list<uint64_t>{0x3fb999999999999au /* 0.1 */, 0x3fe0000000000000u, 0x3ff0000000000000u,
                            0x4000000000000000u, 0x4008000000000000u, 0x3fd3333333333333u /* 0.3 */,
                            0x0000000000000001u, 0x0010000000000000u, 0x7fefffffffffffffu}) {
    const double h = d(hb);
    const lwc::CellSize size = must(lwc::CellSize::create(h));
    std::vector<int64_t> cells(values.size());
    std::vector<double> finite;
    for (const double v : values) {
      const absl::StatusOr<int64_t> c = lwc::cell_of(v, size);
      rec("cell_of ", hex(v), " ", hex(h), " = ", c.ok() ? absl::StrCat(*c) : code(c.status()));
      if (c.ok()) finite.push_back(v);
    }
    std::vector<int64_t> batch(finite.size());
    const absl::Status all = lwc::cell_of_all(finite, size, batch);
    rec("cell_of_all ", hex(h), " ", finite.size(), " ", code(all), " ", absl::StrJoin(batch, " "));
  }
  for (const uint64_t hb : std::initializer_list<uint64_t>{0x0000000000000000u, 0x8000000000000000u, 0xbff0000000000000u, 0x7ff0000000000000u,
                            0x7ff8000000000000u}) {
    rec("CellSize::create ", hex(d(hb)), " ", code(lwc::CellSize::create(d(hb)).status()));
  }
  // The float instance (checked on all 2^32 floats by tests/decompose_exhaustive.cc).
  const lwc::BasicCellSize<float> hf = must(lwc::BasicCellSize<float>::create(f(0x3dcccccdu)));  // 0.1f
  for (const std::uint32_t vb : std::initializer_list<std::uint32_t>{0x00000000u, 0x80000001u, 0x3e99999au, 0xbe99999au, 0x4b800000u, 0x5f000000u,
                                 0xdf000000u, 0x7f7fffffu, 0xff800000u, 0x7fc00000u}) {
    const absl::StatusOr<int64_t> c = lwc::cell_of<float>(f(vb), hf);
    rec("cell_of<float> ", hex(f(vb)), " 0.1f = ", c.ok() ? absl::StrCat(*c) : code(c.status()));
  }
}

// ---------------------------------------------------------------------------------------------------
// lwc.cover: spans of the int64 extremes, 2D boxes, counts and the enumeration budget.

std::string span_text(const absl::StatusOr<std::optional<lwc::ChunkSpan>>& r) {
  if (!r.ok()) return code(r.status());
  if (!r->has_value()) return "empty";
  return absl::StrCat("[", (*r)->first(), ", ", (*r)->last(), "]");
}

void cover() {
  begin("cover");
  Rng rng{20261130};
  for (const int64_t s : {int64_t{1}, int64_t{16}, int64_t{1000}, int64_t{1} << 40, kMax}) {
    const lwc::ChunkSize size = must(lwc::ChunkSize::create(s));
    std::vector<std::pair<int64_t, int64_t>> ranges = {
        {kMin, kMin}, {kMin, kMin + 1}, {kMin, kMax}, {kMax - 1, kMax}, {kMax, kMax}, {-1000, 0}, {-1, 0},
        {0, 1}, {0, 0}, {5, 4}, {5, 3}, {kMin + 1, kMin}, {-s, s}, {-s - 1, s < kMax ? s + 1 : kMax}};
    for (int i = 0; i < 12; ++i) {
      const int64_t a = static_cast<int64_t>(rng.next());
      const auto step = static_cast<int64_t>(rng.below(1u << 20));
      const int64_t b = i % 2 ? (a > kMax - step ? kMax : a + step) : static_cast<int64_t>(rng.next());
      ranges.emplace_back(std::min(a, b), std::max(a, b));
    }
    for (const auto& [lo, hi] : ranges) {
      rec("cover ", lo, " ", hi, " ", s, " = ", span_text(lwc::cover(lo, hi, size)));
      rec("cover_closed ", lo, " ", hi, " ", s, " = ", span_text(lwc::cover_closed(lo, hi, size)));
    }
  }
  const lwc::ChunkSize k16 = lwc::ChunkSize::of<16>();
  for (const auto& [lo, hi] : {std::pair{lwc::Point2{-17, -1}, lwc::Point2{17, 33}}, std::pair{lwc::Point2{kMin, 0}, lwc::Point2{kMax, 1}},
                               std::pair{lwc::Point2{0, 5}, lwc::Point2{0, 9}}, std::pair{lwc::Point2{3, 5}, lwc::Point2{1, 9}}}) {
    const absl::StatusOr<std::optional<lwc::ChunkBox2>> b = lwc::cover(lo, hi, k16);
    std::string text = !b.ok() ? code(b.status()) : !b->has_value() ? "empty" : absl::StrCat(
        "x [", (*b)->x.first(), ", ", (*b)->x.last(), "] y [", (*b)->y.first(), ", ", (*b)->y.last(), "]");
    if (b.ok() && b->has_value()) {
      const absl::StatusOr<uint64_t> n = lwc::count(**b);
      absl::StrAppend(&text, " count ", n.ok() ? absl::StrCat(*n) : code(n.status()));
    }
    rec("cover2 ", lo.x, " ", lo.y, " ", hi.x, " ", hi.y, " = ", text);
  }
  for (const auto& [a, b] : {std::pair{kMin, kMax}, std::pair{kMin, int64_t{-1}}, std::pair{int64_t{-3}, int64_t{4}}}) {
    const lwc::ChunkSpan span = must(lwc::ChunkSpan::create(a, b));
    const absl::StatusOr<uint64_t> n = lwc::count(span);
    rec("count [", a, ", ", b, "] = ", n.ok() ? absl::StrCat(*n) : code(n.status()));
  }
  const lwc::ChunkBox2 box{must(lwc::ChunkSpan::create(-2, 1)), must(lwc::ChunkSpan::create(kMax - 2, kMax))};
  for (const uint64_t budget : {uint64_t{11}, uint64_t{12}, uint64_t{100}}) {
    std::string seen;
    const absl::Status s = lwc::for_each_chunk(box, must(lwc::ChunkBudget::create(budget)), [&](lwc::Point2 c) {
      absl::StrAppend(&seen, " (", c.x, ",", c.y, ")");
    });
    rec("for_each_chunk budget ", budget, " ", code(s), seen);
  }
}

// ---------------------------------------------------------------------------------------------------
// lwc.broadphase, batch: find_pairs on W1-like (uniform props) and W2-like (1% walls) scenes, an
// extremes scene on coarser levels, 3D, floats, threads, budgets and queries.

// The side of a square world holding n props at 4 m^2 each, in metres.
int64_t side_of(std::size_t n) {
  int64_t r = 1;
  while (r * r < static_cast<int64_t>(n)) ++r;
  return 2 * r;
}

std::vector<lwc::Box2> scene(Rng& rng, std::size_t n, bool walls) {
  // Props with sides in [0.5, 2] at 4 m^2 each, as bench/broadphase_bench.cc's W1; with `walls`, 1% are
  // walls 10-40 m long (W2's walls are 50-200x the mean prop, scaled to this small world). Every value is
  // a multiple of 2^-8, so the scene is the same exact doubles everywhere.
  const int64_t side = side_of(n);
  std::vector<lwc::Box2> boxes;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = rng.grid(0, side << 8, 8);
    const double y = rng.grid(0, side << 8, 8);
    double w = rng.grid(128, 512, 8);
    double h = rng.grid(128, 512, 8);
    if (walls && rng.below(100) == 0) {
      (rng.below(2) ? w : h) = rng.grid(10 << 8, 40 << 8, 8);
    }
    boxes.push_back({{x, y}, {x + w, y + h}});
  }
  return boxes;
}

// The pairs of a call, or, with `same_as`, whether they are exactly those (B15: any number of threads;
// B7: a budget the call stays within changes nothing).
void record_pairs(const std::string& what, const absl::StatusOr<lwc::PairsResult>& r, bool exact_visits,
                  const absl::StatusOr<lwc::PairsResult>* same_as = nullptr) {
  if (!r.ok()) {
    rec(what, " ", code(r.status()));
    return;
  }
  const lwc::Stats& s = r->stats;
  // pair_visits and unique_candidates are B12's exact counts only when every box is on level 0.
  rec(what, " stats boxes ", s.boxes, " memberships ", s.memberships, " occupied ", s.occupied_cells, " pairs ",
      s.pairs, " levels ", s.levels, " coarse ", s.coarse_boxes,
      exact_visits ? absl::StrCat(" visits ", s.pair_visits, " candidates ", s.unique_candidates) : "");
  if (same_as != nullptr) {
    rec(what, " pairs ", same_as->ok() && (*same_as)->pairs == r->pairs ? "the same" : "DIFFERENT");
    return;
  }
  std::vector<std::string> items;
  for (const lwc::Pair& p : r->pairs) items.push_back(absl::StrCat(p.a, "-", p.b));
  rec_list(what + " pairs", items);
}

lwc::GridConfig config(double h, lwc::Oversize oversize = lwc::Oversize::kReject) {
  lwc::GridConfig c;
  c.cell_size = must(lwc::CellSize::create(h));
  c.oversize = oversize;
  return c;
}

void broadphase() {
  begin("broadphase");
  Rng rng{20261131};
  const std::vector<lwc::Box2> w1 = scene(rng, 400, false);
  const std::vector<lwc::Box2> w2 = scene(rng, 400, true);
  const absl::StatusOr<lwc::PairsResult> w1_pairs = lwc::find_pairs(w1, config(2.0));
  const absl::StatusOr<lwc::PairsResult> w2_pairs = lwc::find_pairs(w2, config(2.0));
  record_pairs("W1 h 2", w1_pairs, true);
  record_pairs("W2 h 2", w2_pairs, true);
  record_pairs("W1 h 0.75", lwc::find_pairs(w1, config(0.75)), true, &w1_pairs);
  record_pairs("W2 h 0.75", lwc::find_pairs(w2, config(0.75)), true, &w2_pairs);
  {  // The walls over a budget of 16 cells go to coarser levels (B11).
    lwc::GridConfig c = config(0.5, lwc::Oversize::kCoarserLevels);
    c.max_cells_per_box = lwc::CellBudget::of<16>();
    record_pairs("W2 coarser", lwc::find_pairs(w2, c), false, &w2_pairs);
  }
  {  // Two threads give the one answer (B15).
    absl::StatusOr<std::unique_ptr<lwc::ThreadPool>> pool = lwc::ThreadPool::create(2);
    if (pool.ok()) record_pairs("W2 threads", lwc::find_pairs(w2, config(2.0), (*pool)->tasks()), true, &w2_pairs);
  }
  {  // The same scene as floats, each widened exactly (B13).
    std::vector<lwc::FloatBox<2>> floats;
    for (const lwc::Box2& b : w1) {
      floats.push_back({{static_cast<float>(b.min[0] * 0.1), static_cast<float>(b.min[1] * 0.1)},
                        {static_cast<float>(b.max[0] * 0.1), static_cast<float>(b.max[1] * 0.1)}});
    }
    record_pairs("W1 float x0.1", lwc::find_pairs(lwc::BoxView<2, float>(floats), config(0.2)), true);
  }
  {  // Far from the origin, huge and tiny boxes, signed zeros and subnormals, on coarser levels (B11).
    const double big = d(0x43e0000000000000u);  // 2^63
    const double max = d(0x7fefffffffffffffu);
    const double nz = d(0x8000000000000000u);  // -0.0 from memory: -fno-signed-zeros may fold a literal
    std::vector<lwc::Box2> far = {
        {{-max, -max}, {max, max}},
        {{big, big}, {big, big}},
        {{d(0x43dfffffffffffffu), 0}, {big, 1}},
        {{d(0x8000000000000001u), nz}, {0.0, d(0x0000000000000001u)}},
        {{nz, nz}, {nz, nz}},
        {{d(0x433fffffffffffffu), -1}, {d(0x4340000000000001u), 1}},
        {{1e300, 1e300}, {1.5e300, 1.5e300}},
        {{-1e300, -1}, {1e300, 1}},
        {{0.3, 0.3}, {0.3, 0.3}},
        {{-4.5, -4.5}, {-2, -2}}};
    record_pairs("extremes coarser", lwc::find_pairs(far, config(1.0, lwc::Oversize::kCoarserLevels)), false);
    record_pairs("extremes reject", lwc::find_pairs(far, config(1.0)), true);
    std::vector<lwc::Box2> bad = far;
    bad[4].max[1] = d(0x7ff8000000000000u);
    record_pairs("nan box", lwc::find_pairs(bad, config(1.0, lwc::Oversize::kCoarserLevels)), false);
  }
  {  // Budgets (B7): exactly at a budget passes, one over is refused.
    lwc::GridConfig c = config(2.0);
    const int64_t n = w1_pairs.ok() ? static_cast<int64_t>(w1_pairs->pairs.size()) : 0;
    c.max_pairs = must(lwc::PairBudget::create(n));
    record_pairs("W1 max_pairs = pairs", lwc::find_pairs(w1, c), true, &w1_pairs);
    c.max_pairs = must(lwc::PairBudget::create(n - 1));
    record_pairs("W1 max_pairs = pairs - 1", lwc::find_pairs(w1, c), true, &w1_pairs);
  }
  {  // 3D.
    std::vector<lwc::Box3> boxes;
    for (int i = 0; i < 120; ++i) {
      const double x = rng.grid(0, 12 << 6, 6), y = rng.grid(0, 12 << 6, 6), z = rng.grid(-6 << 6, 6 << 6, 6);
      const double s = rng.grid(32, 160, 6);
      boxes.push_back({{x, y, z}, {x + s, y + s, z + s}});
    }
    record_pairs("3D h 1", lwc::find_pairs(boxes, config(1.0)), true);
  }
  {  // Grid queries (B10): the indices, sorted (the order is not promised).
    const absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::create(w2, config(2.0));
    if (!grid.ok()) {
      rec("grid ", code(grid.status()));
    } else {
      for (int i = 0; i < 8; ++i) {
        const double x = rng.grid(0, 40 << 4, 4), y = rng.grid(0, 40 << 4, 4), s = rng.grid(0, 8 << 4, 4);
        absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query({{x, y}, {x + s, y + s}});
        if (!hits.ok()) {
          rec("query ", code(hits.status()));
          continue;
        }
        std::sort(hits->begin(), hits->end());
        rec("query ", hex(x), " ", hex(y), " ", hex(s), " =", hits->empty() ? "" : " ", absl::StrJoin(*hits, " "));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// lwc.broadphase, persistent: the event streams of a moving W1-like scene over frames.

struct Scene {
  lwc::PersistentGrid<2> grid;
  std::map<lwc::UserData, lwc::Handle> handle;  // by payload: slots are the grid's choice
};

std::vector<std::string> contacts(const std::vector<lwc::Contact>& list) {
  // Canonical order is by slot (E1), and which slot a box gets is the grid's choice: sorted by payloads.
  std::vector<std::pair<lwc::UserData, lwc::UserData>> by_user;
  for (const lwc::Contact& c : list) by_user.emplace_back(std::min(c.user_a, c.user_b), std::max(c.user_a, c.user_b));
  std::sort(by_user.begin(), by_user.end());
  std::vector<std::string> out;
  for (const auto& [a, b] : by_user) out.push_back(absl::StrCat(a, "-", b));
  return out;
}

void persistent() {
  begin("persistent");
  Rng rng{20261132};
  lwc::GridConfig c = config(2.0, lwc::Oversize::kCoarserLevels);
  c.max_cells_per_box = must(lwc::CellBudget::create(64));
  Scene s{must(lwc::PersistentGrid<2>::create(c)), {}};
  lwc::UserData next_user = 1;
  std::vector<lwc::Box2> boxes = scene(rng, 240, true);
  for (const lwc::Box2& b : boxes) {
    const lwc::UserData u = next_user++;
    // A few boxes in their own group, which the default mask still meets; some that meet nothing (E8).
    lwc::Filter filter;
    if (u % 17 == 0) filter = {2, 2};
    s.handle[u] = must(s.grid.insert(b, u, filter));
  }
  for (int frame = 0; frame < 14; ++frame) {
    // Each frame: about 10% of the boxes move by up to 1/2 m (every fifth of them swept, E6), a few are
    // removed and a few inserted; at frame 9 one box jumps far away, to a coarser level.
    std::vector<lwc::UserData> users;
    for (const auto& [u, h] : s.handle) users.push_back(u);
    for (std::size_t i = 0; i < users.size() / 10; ++i) {
      const lwc::UserData u = users[rng.below(users.size())];
      const lwc::Handle h = s.handle[u];
      lwc::Box2 b = must(s.grid.box(h));
      const double dx = rng.grid(-128, 128, 8), dy = rng.grid(-128, 128, 8);
      for (std::size_t a = 0; a < 2; ++a) {
        b.min[a] += a ? dy : dx;
        b.max[a] += a ? dy : dx;
      }
      const lwc::Motion motion = i % 5 == 0 ? lwc::Motion::kSwept : lwc::Motion::kTeleport;
      rec("frame ", frame, " move ", u, " ", code(s.grid.move(h, b, motion)));
    }
    if (frame == 9) {
      const lwc::UserData u = users[3];
      rec("frame ", frame, " move far ", u, " ",
          code(s.grid.move(s.handle[u], lwc::Box2{{-1e6, -1e6}, {1e6, -999990.0}}, lwc::Motion::kTeleport)));
    }
    for (int i = 0; i < 3 && s.handle.size() > 10; ++i) {
      const lwc::UserData u = users[rng.below(users.size())];
      if (!s.handle.contains(u)) continue;
      rec("frame ", frame, " remove ", u, " ", code(s.grid.remove(s.handle[u])));
      s.handle.erase(u);
    }
    for (int i = 0; i < 2; ++i) {
      const double x = rng.grid(0, 32 << 8, 8), y = rng.grid(0, 32 << 8, 8);
      const lwc::UserData u = next_user++;
      s.handle[u] = must(s.grid.insert(lwc::Box2{{x, y}, {x + 1.5, y + 1.5}}, u));
      rec("frame ", frame, " insert ", u);
    }
    if (frame == 5) {  // a stale handle is refused and changes nothing (E3)
      rec("frame ", frame, " stale move ", code(s.grid.move(lwc::Handle{}, boxes[0])));
    }
    absl::StatusOr<lwc::ContactEvents> e = s.grid.update();
    if (!e.ok()) {
      rec("frame ", frame, " update ", code(e.status()));
      continue;
    }
    const lwc::UpdateStats& st = e->stats;
    // pair_visits is left out: E5 bounds the work, it does not define that count for coarse levels.
    rec("frame ", frame, " stats boxes ", st.boxes, " memberships ", st.memberships, " pairs ", st.pairs, " dirty ",
        st.dirty, " touched ", st.memberships_touched, " began ", st.began, " ended ", st.ended, " swept ", st.swept);
    rec_list(absl::StrCat("frame ", frame, " began"), contacts(e->began));
    rec_list(absl::StrCat("frame ", frame, " ended"), contacts(e->ended));
    rec_list(absl::StrCat("frame ", frame, " swept"), contacts(e->swept));
  }
  rec_list("final pairs", contacts(s.grid.pairs()));
  // Queries (E11) and rays (E9): hits by payload; a ray's hits with their entry fractions, in order.
  for (int i = 0; i < 6; ++i) {
    const double x = rng.grid(0, 32 << 4, 4), y = rng.grid(0, 32 << 4, 4);
    std::vector<lwc::UserData> hits;
    const absl::Status q = s.grid.query(lwc::Box2{{x, y}, {x + 6, y + 6}}, [&](lwc::Handle, lwc::UserData u) {
      hits.push_back(u);
      return true;
    });
    std::sort(hits.begin(), hits.end());
    rec("query ", hex(x), " ", hex(y), " ", code(q), hits.empty() ? "" : " ", absl::StrJoin(hits, " "));
    const lwc::Segment<2> ray{{x, y}, {rng.grid(0, 32 << 4, 4), rng.grid(0, 32 << 4, 4)}};
    std::vector<std::pair<double, lwc::UserData>> ray_hits;  // ties in t are ordered by slot: by payload here
    const absl::Status r = s.grid.raycast(ray, [&](lwc::Handle, lwc::UserData u, double t) {
      ray_hits.emplace_back(t, u);
      return true;
    });
    std::sort(ray_hits.begin(), ray_hits.end());
    std::string line;
    for (const auto& [t, u] : ray_hits) absl::StrAppend(&line, " ", u, "@", hex(t));
    rec("ray ", hex(ray.from[0]), " ", hex(ray.from[1]), " ", hex(ray.to[0]), " ", hex(ray.to[1]), " ", code(r), line);
  }
}

// ---------------------------------------------------------------------------------------------------
// lwc.rebase: normalisation, views moving over frames (plans, commits, render floats, late results),
// oriented views.

template <std::size_t D>
std::string cells(const lwc::CellIndex<D>& c) {
  return absl::StrCat("(", absl::StrJoin(c, " "), ")");
}
template <std::size_t D>
std::string position(const lwc::WorldPosition<D>& p) {
  std::string out = absl::StrCat(cells<D>(p.cell), " +");
  for (const double o : p.offset) absl::StrAppend(&out, " ", hex(o));
  return out;
}
template <std::size_t D>
std::string floats(const std::array<float, D>& at) {
  std::string out;
  for (std::size_t a = 0; a < D; ++a) absl::StrAppend(&out, a ? " " : "", hex(at[a]));
  return out;
}
template <std::size_t D>
std::string render(const absl::StatusOr<lwc::RenderPoint<D>>& r) {
  return r.ok() ? absl::StrCat(floats<D>(r->at), " v", r->version) : code(r.status());
}

void rebase() {
  begin("rebase");
  Rng rng{20261133};
  const lwc::WorldGrid g16 = must(lwc::WorldGrid::create(lwc::ChunkSize::of<16>()));
  const std::initializer_list<uint64_t> offsets = {
      0x0000000000000000u, 0x8000000000000000u, 0xbc670ef54646d497u /* -1e-17 */, 0x8000000000000001u,
      0x402fffffffffffffu /* 16 - ulp */, 0x4030000000000000u, 0xc030000000000000u, 0x7fefffffffffffffu,
      0xffefffffffffffffu, 0x7ff0000000000000u, 0x7ff8000000000000u, 0x3fd3333333333333u};
  for (const uint64_t ob : offsets) {
    for (const int64_t cell : {int64_t{0}, kMin, kMax}) {
      const absl::StatusOr<lwc::WorldPosition<2>> p = g16.normalize<2>({cell, ~cell}, {d(ob), 1.0});
      rec("normalize ", cell, " ", hex(d(ob)), " = ", p.ok() ? position<2>(*p) : code(p.status()));
    }
  }
  for (const int64_t u : {kMin, kMin + 15, int64_t{-17}, int64_t{-1}, int64_t{0}, kMax}) {
    const lwc::WorldPosition<2> p = g16.from_fixed<2>({{u, ~u}});
    const absl::StatusOr<lwc::FixedPoint<2>> back = g16.to_fixed(p);
    rec("fixed ", u, " = ", position<2>(p), " back ", back.ok() ? absl::StrJoin(back->units, " ") : code(back.status()));
  }

  // A 2D view following an observer over frames: 10.24 m cells in centimetres, rendered in metres.
  const lwc::WorldGrid grid = must(lwc::WorldGrid::create(lwc::ChunkSize::of<1024>()));
  lwc::ViewConfig vc;
  vc.threshold_cells = lwc::ThresholdCells::of<2>();
  vc.barrier_radius = lwc::BarrierRadius::of<1>();
  vc.units_per_render_unit = lwc::UnitsPerRenderUnit::of<100>();
  vc.bubble_units = lwc::BubbleUnits::of<(int64_t{1} << 24)>();
  lwc::OriginCoordinator<2> view = must(lwc::OriginCoordinator<2>::create(grid, vc, {int64_t{1} << 40, -(int64_t{1} << 40)}));
  rec("render_error_bound ", hex(view.render_error_bound()), " oriented_error_bound ", hex(view.oriented_error_bound()));
  std::vector<lwc::WorldPosition<2>> anchors;
  for (int i = 0; i < 24; ++i) {
    const lwc::CellIndex<2> cell = {view.origin()[0] + static_cast<int64_t>(rng.below(41)) - 20,
                                    view.origin()[1] + static_cast<int64_t>(rng.below(41)) - 20};
    anchors.push_back(must(grid.normalize<2>(cell, {rng.grid(0, 1023 << 10, 10), rng.grid(0, 1023 << 10, 10)})));
  }
  anchors.push_back(must(grid.normalize<2>({view.origin()[0] + 20000, view.origin()[1]}, {0.5, 0.5})));  // outside
  const lwc::LateResult<2> relocatable = view.start_late(anchors[0], lwc::LatePlacement::kRelocatable);
  const lwc::LateResult<2> baked = view.start_late(anchors[1], lwc::LatePlacement::kBakedLocal);
  lwc::WorldPosition<2> observer = must(grid.normalize<2>(view.origin(), {512.25, 100.5}));
  bool stepped = false;
  for (int frame = 0; frame < 12; ++frame) {
    // The observer walks 1.5 cells a frame along x and back along y; the streamer keeps a 5x5 block
    // around it loaded, except at frame 4, when one barrier cell is missing (R6).
    observer = must(grid.normalize<2>(observer.cell, {observer.offset[0] + 1536.5, observer.offset[1] - 700.25}));
    for (int64_t dx = -2; dx <= 2; ++dx) {
      for (int64_t dy = -2; dy <= 2; ++dy) view.load({observer.cell[0] + dx, observer.cell[1] + dy});
    }
    if (frame == 4) view.unload({observer.cell[0] + 1, observer.cell[1] - 1});
    const absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view.plan(observer);
    if (!plan.ok()) {
      rec("frame ", frame, " observer ", position<2>(observer), " plan ", code(plan.status()));
    } else if (!plan->has_value()) {
      rec("frame ", frame, " observer ", position<2>(observer), " plan none");
    } else {
      const lwc::RebasePlan<2>& p = **plan;
      rec("frame ", frame, " observer ", position<2>(observer), " plan ", cells<2>(p.from), " -> ", cells<2>(p.target),
          " at v", p.expected_version);
      const bool step = frame >= 7 && !stepped;
      stepped |= step;
      if (step) {  // inside a simulation step the commit is refused (R13)
        rec("frame ", frame, " begin_step ", code(view.begin_step()));
        rec("frame ", frame, " commit in step ", code(view.commit(p).status()));
        rec("frame ", frame, " end_step ", code(view.end_step()));
      }
      const absl::StatusOr<lwc::Rebased<2>> done = view.commit(p);
      rec("frame ", frame, " commit ", done.ok() ? absl::StrCat(cells<2>(done->origin), " v", done->version) : code(done.status()));
      if (step) rec("frame ", frame, " replayed commit ", code(view.commit(p).status()));  // R8
    }
    std::vector<std::array<float, 2>> locals(anchors.size());
    const absl::StatusOr<std::size_t> outside = view.to_render_all(anchors, locals);
    rec("frame ", frame, " to_render_all ", outside.ok() ? absl::StrCat(*outside, " outside") : code(outside.status()));
    for (std::size_t i = 0; i < anchors.size(); ++i) {
      const absl::StatusOr<lwc::RenderPoint<2>> one = view.to_render(anchors[i]);
      std::string back;
      if (one.ok()) {
        const absl::StatusOr<lwc::WorldPosition<2>> w = view.from_render(*one);
        back = w.ok() ? position<2>(*w) : code(w.status());
      }
      rec("frame ", frame, " anchor ", i, " ", floats<2>(locals[i]), " | ", render<2>(one), " | ", back);
    }
    rec("frame ", frame, " late relocatable ", render<2>(view.place_late(relocatable)), " baked ",
        render<2>(view.place_late(baked)));
  }

  // Oriented views (R17): 2D at 30 degrees and at the 3-4-5 angle, 3D about two axes; entries from
  // their decimal literals (no libm), and a reflection and a non-orthonormal frame refused.
  const double c30 = 0.8660254037844386, s30 = 0.5;
  const std::vector<lwc::Rotation<2>> rotations2 = {
      {{{{c30, -s30}, {s30, c30}}}}, {{{{0.8, 0.6}, {-0.6, 0.8}}}}, {{{{1.0, 0.0}, {0.0, -1.0}}}}, {{{{1.0, 0.1}, {0.0, 1.0}}}}};
  for (std::size_t r = 0; r < rotations2.size(); ++r) {
    rec("rotation2 ", r, " ", code(lwc::OriginCoordinator<2>::rotation_status(rotations2[r])));
    std::vector<std::array<float, 2>> batch(anchors.size());
    const absl::StatusOr<std::size_t> outside = view.to_render_all_oriented(anchors, rotations2[r], batch);
    rec("rotation2 ", r, " batch ", outside.ok() ? absl::StrCat(*outside, " outside") : code(outside.status()));
    for (std::size_t i = 0; i < anchors.size(); i += 3) {  // the batch's floats are unspecified on an error
      rec("rotation2 ", r, " anchor ", i, " ", render<2>(view.to_render_oriented(anchors[i], rotations2[r])),
          outside.ok() ? absl::StrCat(" | ", floats<2>(batch[i])) : "");
    }
  }
  lwc::ViewConfig vc3 = vc;
  vc3.units_per_render_unit = lwc::UnitsPerRenderUnit::of<1>();
  vc3.bubble_units = lwc::BubbleUnits::of<(int64_t{1} << 44)>();
  lwc::OriginCoordinator<3> view3 = must(lwc::OriginCoordinator<3>::create(grid, vc3, {kMax - 3, kMin, 7}));
  const lwc::Rotation<3> r3 = {{{{c30, -s30, 0.0}, {s30 * 0.8, c30 * 0.8, -0.6}, {s30 * 0.6, c30 * 0.6, 0.8}}}};
  rec("rotation3 ", code(lwc::OriginCoordinator<3>::rotation_status(r3)), " bound ", hex(view3.oriented_error_bound()));
  for (int i = 0; i < 12; ++i) {
    const lwc::CellIndex<3> cell = {kMax - static_cast<int64_t>(rng.below(8)), kMin + static_cast<int64_t>(rng.below(8)),
                                    7 + static_cast<int64_t>(rng.below(9)) - 4};
    const lwc::WorldPosition<3> p = must(grid.normalize<3>(cell, {rng.grid(0, 1023 << 16, 16), rng.grid(0, 1023 << 16, 16),
                                                                  rng.grid(0, 1023 << 16, 16)}));
    rec("view3 ", position<3>(p), " = ", render<3>(view3.to_render(p)), " oriented ", render<3>(view3.to_render_oriented(p, r3)));
  }
}

// ---------------------------------------------------------------------------------------------------
// lwc.rebase, wire: the bytes of every message kind, decoding, and JSON.

std::string bytes_hex(const std::vector<std::uint8_t>& b) {
  std::string out;
  for (const std::uint8_t x : b) absl::StrAppend(&out, absl::Hex(x, absl::kZeroPad2));
  return out;
}

void wire() {
  begin("wire");
  const lwc::ChunkSize size = lwc::ChunkSize::of<1024>();
  const std::vector<lwc::WorldPosition<2>> positions = {
      {{0, 0}, {0.0, 0.0}}, {{kMin, kMax}, {1023.9999999999999, d(0x0000000000000001u)}}, {{-1, 4096}, {0.3, 512.5}}};
  for (const lwc::WorldPosition<2>& p : positions) {
    const absl::StatusOr<std::vector<std::uint8_t>> b = lwc::encode_position(p, size);
    if (!b.ok()) {
      rec("position ", position<2>(p), " ", code(b.status()));
      continue;
    }
    const absl::StatusOr<lwc::WorldPosition<2>> back = lwc::decode_position<2>(*b, size);
    rec("position ", position<2>(p), " = ", bytes_hex(*b), " back ", back.ok() ? position<2>(*back) : code(back.status()),
        " json ", lwc::to_json(p));
  }
  const lwc::WorldPosition<3> p3{{1, 2, 3}, {4.0, 5.5, d(0x3fd3333333333333u)}};
  const absl::StatusOr<std::vector<std::uint8_t>> b3 = lwc::encode_position(p3, size);
  rec("position3 ", b3.ok() ? bytes_hex(*b3) : code(b3.status()));
  for (const lwc::WorldPosition<2>& bad : {lwc::WorldPosition<2>{{0, 0}, {d(0x8000000000000000u), 0.0}}, lwc::WorldPosition<2>{{0, 0}, {1024.0, 0.0}},
                                           lwc::WorldPosition<2>{{0, 0}, {d(0x7ff8000000000000u), 0.0}}}) {
    rec("position refused ", code(lwc::encode_position(bad, size).status()));
  }
  const lwc::RebasePlan<2> plan{{kMin, 0}, {kMax, -1}, uint64_t{1} << 63, {}};
  const std::vector<std::uint8_t> pb = lwc::encode_plan(plan);
  const absl::StatusOr<lwc::RebasePlan<2>> pback = lwc::decode_plan<2>(pb);
  rec("plan ", bytes_hex(pb), " back ", pback.ok() ? absl::StrCat(cells<2>(pback->from), " ", cells<2>(pback->target), " ",
                                                                  pback->expected_version) : code(pback.status()),
      " json ", lwc::to_json(plan));
  const lwc::Rebased<3> update{{-5, 6, kMin}, 42};
  const std::vector<std::uint8_t> ub = lwc::encode_origin_update(update);
  rec("origin_update ", bytes_hex(ub), " json ", lwc::to_json(update));
  // Malformed inputs (R15): each refused with its code.
  std::vector<std::uint8_t> bytes = *lwc::encode_position(positions[2], size);
  const std::vector<std::pair<std::string, std::function<void(std::vector<std::uint8_t>&)>>> damage = {
      {"short", [](std::vector<std::uint8_t>& b) { b.pop_back(); }},
      {"long", [](std::vector<std::uint8_t>& b) { b.push_back(0); }},
      {"magic", [](std::vector<std::uint8_t>& b) { b[0] ^= 1; }},
      {"version", [](std::vector<std::uint8_t>& b) { b[4] = 2; }},
      {"kind", [](std::vector<std::uint8_t>& b) { b[5] = 2; }},
      {"axes", [](std::vector<std::uint8_t>& b) { b[6] = 3; }},
      {"reserved", [](std::vector<std::uint8_t>& b) { b[7] = 1; }},
      {"offset", [](std::vector<std::uint8_t>& b) { b[b.size() - 1] = 0x7f; }}};
  for (const auto& [what, hurt] : damage) {
    std::vector<std::uint8_t> b = bytes;
    hurt(b);
    rec("decode ", what, " ", code(lwc::decode_position<2>(b, size).status()));
  }
  const absl::StatusOr<lwc::WireHeader> header = lwc::read_wire_header(bytes);
  rec("header ", header.ok() ? absl::StrCat(static_cast<int>(header->kind), " ", header->axes)
                             : code(header.status()));
}

// ---------------------------------------------------------------------------------------------------
// lwc.commit: dirty chunks into runs, commits under budgets, a failing preparation, publications.

std::vector<std::string> runs_text(std::span<const lwc::ChunkRun> runs) {
  std::vector<std::string> out;
  for (const lwc::ChunkRun& r : runs) out.push_back(absl::StrCat(r.y, ":", r.x_first, "..", r.x_last));
  return out;
}

void commit() {
  begin("commit");
  Rng rng{20261134};
  std::vector<lwc::Point2> chunks;
  for (int i = 0; i < 200; ++i) {
    chunks.push_back({static_cast<int64_t>(rng.below(40)) - 20, static_cast<int64_t>(rng.below(6)) - 3});
  }
  chunks.push_back({kMax, kMin});
  chunks.push_back({kMax - 1, kMin});
  chunks.push_back({kMin, kMax});
  rec_list("merge_runs", runs_text(lwc::merge_runs(chunks)));

  lwc::Committer<std::string> committer(lwc::ChunkSize::of<16>());
  const auto prepare = [](const lwc::ChunkRun& run) -> absl::StatusOr<std::string> {
    return absl::StrCat("mesh ", run.y, " ", run.x_first, " ", run.x_last, " ", run.size());
  };
  const auto publication = [&](const std::string& what) {
    const std::shared_ptr<const lwc::Batch<std::string>> b = committer.published();
    std::vector<std::string> entries;
    for (const auto& e : b->entries) entries.push_back(absl::StrCat("[", e.snapshot, "]"));
    rec_list(absl::StrCat(what, " published seq ", b->sequence, " gen ", b->generation), entries);
  };
  const auto report = [&](const std::string& what, const absl::StatusOr<lwc::CommitReport>& r) {
    rec(what, " ", r.ok() ? absl::StrCat("seq ", r->sequence, " gen ", r->generation, " runs ", r->runs_published, " chunks ",
                                         r->chunks_published, " cleared ", r->chunks_cleared, " pending ", r->chunks_pending)
                          : code(r.status()),
        " now pending ", committer.pending_chunks());
    rec_list(absl::StrCat(what, " pending runs"), runs_text(committer.pending_runs()));
  };
  for (int frame = 0; frame < 8; ++frame) {
    // Cells painted this frame: a brush stroke, some scattered cells, and at frame 2 the int64 corners.
    for (int i = 0; i < 24; ++i) {
      committer.mark({static_cast<int64_t>(rng.below(400)) - 200, static_cast<int64_t>(rng.below(64)) - 32});
    }
    if (frame == 2) {
      for (const lwc::Point2 c : {lwc::Point2{kMin, kMin}, lwc::Point2{kMax, kMax}, lwc::Point2{-1, -1}, lwc::Point2{kMin, -1}}) committer.mark(c);
    }
    rec("frame ", frame, " chunk_of -1 -1 = ", committer.chunk_of({-1, -1}).x, " generation ", committer.generation());
    if (frame == 3) {
      // The third run's preparation fails: nothing is published, nothing cleared (T4).
      int calls = 0;
      const auto failing = [&calls](const lwc::ChunkRun& run) -> absl::StatusOr<std::string> {
        if (++calls == 3) return absl::DataLossError("tile data missing");
        return absl::StrCat("mesh ", run.y);
      };
      report(absl::StrCat("frame ", frame, " failing commit"), committer.commit(failing));
      publication(absl::StrCat("frame ", frame));
    }
    if (frame == 5) {
      // Marks made during preparation belong to the next generation (T6).
      const auto marking = [&](const lwc::ChunkRun& run) -> absl::StatusOr<std::string> {
        committer.mark({run.x_first * 16, run.y * 16});
        return absl::StrCat("mesh ", run.y, " remarked");
      };
      report(absl::StrCat("frame ", frame, " remarking commit"), committer.commit(marking, lwc::RunBudget::of<4>()));
      publication(absl::StrCat("frame ", frame));
    }
    const lwc::RunBudget budget = must(lwc::RunBudget::create(frame % 2 ? 3 : 1000));
    report(absl::StrCat("frame ", frame, " commit"), committer.commit(prepare, budget));
    publication(absl::StrCat("frame ", frame));
  }
  report("last commit", committer.commit(prepare));
  report("idle commit", committer.commit(prepare));
  publication("idle");
}

// ---------------------------------------------------------------------------------------------------

bool read_lines(const std::string& path, std::vector<std::string>& lines) {
  std::ifstream in(path);
  if (!in) return false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return true;
}

constexpr const char* kHeader =
    "# SPDX-License-Identifier: MIT\n"
    "# Generated by tests/golden/golden.cc (`golden --write tests/golden`); checked by `golden --check`.\n";

std::string digest_line(const Section& s) {
  return absl::StrFormat("%s %d %016x", s.name, s.records.size(), digest(s.records));
}

bool write(const std::string& dir) {
  std::ofstream digests(dir + "/digests.txt"), dump(dir + "/dump.txt");
  if (!digests || !dump) return false;
  digests << kHeader;
  dump << kHeader;
  for (const Section& s : sections) {
    digests << digest_line(s) << "\n";
    for (const std::string& r : s.records) dump << s.name << " " << r << "\n";
  }
  return static_cast<bool>(digests) && static_cast<bool>(dump);
}

int check(const std::string& dir) {
  std::vector<std::string> expected, dump;
  if (!read_lines(dir + "/digests.txt", expected)) {
    std::printf("golden: cannot read %s/digests.txt\n", dir.c_str());
    return 2;
  }
  const bool have_dump = read_lines(dir + "/dump.txt", dump);
  std::map<std::string, std::string> by_name;
  for (const std::string& line : expected) by_name[line.substr(0, line.find(' '))] = line;
  int bad = 0;
  std::size_t total = 0;
  for (const Section& s : sections) {
    total += s.records.size();
    const std::string got = digest_line(s);
    const auto it = by_name.find(s.name);
    if (it != by_name.end() && it->second == got) continue;
    ++bad;
    std::printf("golden: %s differs: committed \"%s\", this build \"%s\"\n", s.name.c_str(),
                it == by_name.end() ? "(none)" : it->second.c_str(), got.c_str());
    if (!have_dump) continue;
    std::vector<std::string> committed;
    const std::string prefix = s.name + " ";
    for (const std::string& line : dump) {
      if (line.rfind(prefix, 0) == 0) committed.push_back(line.substr(prefix.size()));
    }
    for (std::size_t i = 0; i < std::max(committed.size(), s.records.size()); ++i) {
      const std::string* a = i < committed.size() ? &committed[i] : nullptr;
      const std::string* b = i < s.records.size() ? &s.records[i] : nullptr;
      if (a && b && *a == *b) continue;
      std::printf("  first differing record, %s #%zu:\n    committed:  %s\n    this build: %s\n", s.name.c_str(), i + 1,
                  a ? a->c_str() : "(none)", b ? b->c_str() : "(none)");
      break;
    }
  }
  if (by_name.size() != sections.size()) {
    ++bad;
    std::printf("golden: %zu committed sections, %zu in this build\n", by_name.size(), sections.size());
  }
  if (bad != 0) {
    std::printf("golden: %d of %zu sections differ from %s/digests.txt: an answer changed. If the change is\n"
                "intended, explain it in the commit and regenerate: golden --write %s\n",
                bad, sections.size(), dir.c_str(), dir.c_str());
    return 1;
  }
  std::printf("golden: %zu sections, %zu records: every digest matches %s/digests.txt\n", sections.size(), total, dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  decompose();
  cover();
  broadphase();
  persistent();
  rebase();
  wire();
  commit();
  const std::string mode = argc > 1 ? argv[1] : "";
  if ((mode == "--check" || mode == "--write" || mode == "--dump") && argc == 3) {
    if (mode == "--check") return check(argv[2]);
    if (mode == "--write") {
      if (!write(argv[2])) {
        std::printf("golden: cannot write %s/digests.txt and dump.txt\n", argv[2]);
        return 2;
      }
      return 0;
    }
    std::ofstream out(argv[2]);
    for (const Section& s : sections) {
      for (const std::string& r : s.records) out << s.name << " " << r << "\n";
    }
    return out ? 0 : 2;
  }
  if (argc != 1) {
    std::printf("usage: golden [--check DIR | --write DIR | --dump FILE]\n");
    return 2;
  }
  for (const Section& s : sections) std::printf("%s\n", digest_line(s).c_str());
  return 0;
}
