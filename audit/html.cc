// SPDX-License-Identifier: MIT
// File: audit/html.cc                   Module: lwc.audit.trace (implementation unit)
//
// The audit in pictures (lwc-audit --html REPORT, docs/audit.md "The report as a page"): one self-contained
// HTML page (inline CSS and SVG, no script, nothing fetched) with the per-clause table and, for each
// violating record with geometry among the first counterexamples, drawings made with lwc.draw:
//   find_pairs   the record's boxes with its missed and extra pairs, then each of the first missed and
//                extra pairs close up: both boxes, the cell lines, where they meet or the gap between them
//   query        the boxes, the probe, the hits reported, the hits missed
//   split, stored, split_axes, split_all, cell_of
//                a number line cut into chunks: x, the expected chunk, the chunk given
//   cover        the chunks expected, the chunks given, the missing and the extra ones, the range's ends
//   grid_update  the session's live boxes with the contact events missed and reported wrongly
//   pending, publish (commit)
//                the expected and the published or pending runs, what is missing and what is extra
//   plan, commit (rebase, R6)
//                the barrier around the target, the cells loaded, the holes
//   to_render, late (rebase)
//                where the position is, relative to the view's origin, and where the engine placed it
// The records are read again from the trace (only the violating lines and the events of their
// sessions), so the judge keeps no geometry for a picture it may never draw. Expected answers are the
// contracts' oracles again (split, cell_of, cover, brute_force_pairs), or, for stateful contracts, the
// runs and events the report's `expected` states.
module;
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
module lwc.audit.trace;

import lwc.draw;
import lwc.decompose;
import lwc.cover;
import lwc.broadphase;
import lwc.contracts.broadphase;

namespace lwc::internal {
namespace {

using audit::ClauseTally;
using audit::Counterexample;
using audit::TraceOptions;
using audit::TraceRecord;
using audit::TraceReport;
namespace palette = draw::palette;

constexpr std::size_t kCloseUps = 3;     // missed (and extra) pairs drawn close up, per record
constexpr std::size_t kOverview = 200;   // missed and extra pairs highlighted in a record's overview

std::string esc(std::string_view s) { return draw::escape(s); }
std::string num(absl::int128 v) { return draw::integer(v); }
std::string num(std::uint64_t v) { return draw::integer(absl::int128(v)); }
std::string num(std::int64_t v) { return draw::integer(absl::int128(v)); }

// One drawing of a record, with what a reader (or a test) needs to know what it shows: its kind and
// data-* attributes, e.g. kind "missed-pair", data "data-pair=\"3 4\"".
struct Figure {
  std::string kind;
  std::string data;
  std::string svg;
  std::string caption;
};

// The pictures' light replay of sessions: what a drawing of a later event needs, never a verdict.
struct RebaseView {
  std::size_t dims = 2;
  std::vector<std::int64_t> origin;  // the engine's own, as its commits reported it
  std::int64_t cell_size = 1;
  std::int64_t units = 1;
  std::int64_t bubble = 1;
  std::int64_t barrier = 0;
  std::set<std::vector<std::int64_t>> loaded;
};
struct GridSession {
  std::size_t dims = 2;
  double h = 1;
  std::map<std::int64_t, std::vector<double>> boxes;  // live boxes by the engine's id
};

// ---------------------------------------------------------------------------------------------------
// Number lines: split, stored, split_axes, split_all, cell_of, cover.

void with_neighbours(std::vector<std::int64_t>& out, std::int64_t v) {
  if (v > INT64_MIN) out.push_back(v - 1);
  out.push_back(v);
  if (v < INT64_MAX) out.push_back(v + 1);
}

// The chunks a span shows: all of it and a neighbour each side when it is short (at most 8), else its
// ends and their neighbours.
void span_chunks(std::vector<std::int64_t>& out, std::int64_t first, std::int64_t last) {
  if (absl::int128(last) - first <= 8) {
    for (absl::int128 k = first; k <= last; ++k) out.push_back(static_cast<std::int64_t>(k));
  }
  with_neighbours(out, first);
  with_neighbours(out, last);
}

std::optional<Figure> chunk_figure(const draw::ChunkLine& line, std::string kind, std::string data, std::string caption) {
  absl::StatusOr<std::string> svg = draw::svg(line, {.width = 760, .height = 250 + 16 * static_cast<int>(line.bands.size() + line.ticks.size())});
  if (!svg.ok()) return std::nullopt;
  return Figure{std::move(kind), std::move(data), *std::move(svg), std::move(caption)};
}

// x on the line of its chunks at `size`: the expected chunk (green), the chunk given (red), x itself,
// and the point the answer reconstructs (chunk * size + local) when it was given and differs from x.
std::optional<Figure> split_figure(std::int64_t x, std::int64_t size, std::int64_t got_chunk,
                                   std::optional<std::int64_t> got_local, std::string_view what) {
  const absl::StatusOr<ChunkSize> s = ChunkSize::create(size);
  if (!s.ok()) return std::nullopt;
  const ChunkPoint e = split(x, *s);
  std::vector<std::int64_t> chunks;
  with_neighbours(chunks, e.chunk);
  with_neighbours(chunks, got_chunk);
  std::vector<draw::Band> bands = {{e.chunk, e.chunk, palette::kHit, "expected chunk " + num(e.chunk), 0}};
  if (got_chunk != e.chunk) bands.push_back({got_chunk, got_chunk, palette::kMissed, "given chunk " + num(got_chunk), 1});
  std::vector<draw::Tick> ticks = {{e.chunk, static_cast<double>(e.local) / static_cast<double>(size), palette::kHit,
                                    "x = " + num(x) + " (local " + num(e.local) + ")"}};
  if (got_local) {
    const absl::int128 r = absl::int128(got_chunk) * size + *got_local;
    if (r != x && r >= INT64_MIN && r <= INT64_MAX) {
      const ChunkPoint rp = split(static_cast<std::int64_t>(r), *s);
      if (std::find(chunks.begin(), chunks.end(), rp.chunk) != chunks.end()) {
        ticks.push_back({rp.chunk, static_cast<double>(rp.local) / static_cast<double>(size), palette::kMissed,
                         "given chunk · size + local = " + num(r) + ", not x"});
      }
    }
  }
  const draw::ChunkLine line{.chunks = chunks, .int_size = size, .bands = bands, .ticks = ticks,
                             .title = std::string(what) + ": x = " + num(x) + ", size " + num(size)};
  return chunk_figure(line, "chunks",
                      "data-x=\"" + num(x) + "\" data-size=\"" + num(size) + "\" data-chunk=\"" + num(e.chunk) +
                          "\" data-given=\"" + num(got_chunk) + "\"",
                      "Green: the chunk x lies in (the floor of x / size); red: the chunk the record gives.");
}

std::optional<Figure> cell_figure(double v, double h, std::int64_t got) {
  const absl::StatusOr<std::int64_t> e = cell_of(v, h);
  if (!e.ok()) return std::nullopt;
  std::vector<std::int64_t> chunks;
  with_neighbours(chunks, *e);
  with_neighbours(chunks, got);
  const double fraction = std::clamp(v / h - static_cast<double>(*e), 0.0, 1.0);  // where in the cell, for the eye
  std::vector<draw::Band> bands = {{*e, *e, palette::kHit, "expected cell " + num(*e), 0}};
  if (got != *e) bands.push_back({got, got, palette::kMissed, "given cell " + num(got), 1});
  const std::vector<draw::Tick> ticks = {{*e, fraction, palette::kHit, "v = " + draw::exact(v)}};
  const draw::ChunkLine line{.chunks = chunks, .real_size = h, .bands = bands, .ticks = ticks,
                             .title = "cell_of: v = " + draw::exact(v) + ", h = " + draw::exact(h)};
  return chunk_figure(line, "cells", "data-cell=\"" + num(*e) + "\" data-given=\"" + num(got) + "\"",
                      "Green: the cell n with n·h ≤ v < (n + 1)·h, exactly (D9); red: the cell the record gives.");
}

std::optional<Figure> cover_figure(const TraceRecord& r) {
  const absl::StatusOr<std::int64_t> min = r.int64("in", "min"), size = r.int64("in", "size");
  const bool closed = r.has("in", "max_inclusive");
  const absl::StatusOr<std::int64_t> max = r.int64("in", closed ? "max_inclusive" : "max_exclusive");
  if (!min.ok() || !size.ok() || !max.ok()) return std::nullopt;
  const absl::StatusOr<ChunkSize> s = ChunkSize::create(*size);
  if (!s.ok()) return std::nullopt;
  const absl::StatusOr<std::optional<ChunkSpan>> want = closed ? cover_closed(*min, *max, *s) : cover(*min, *max, *s);
  if (!want.ok()) return std::nullopt;
  std::optional<std::pair<std::int64_t, std::int64_t>> got;
  if (r.has("out", "first")) {
    const absl::StatusOr<std::int64_t> f = r.int64("out", "first"), l = r.int64("out", "last");
    if (!f.ok() || !l.ok() || *f > *l) return std::nullopt;
    got = std::pair{*f, *l};
  }
  std::vector<std::int64_t> chunks;
  std::vector<draw::Band> bands;
  const ChunkPoint lo = split(*min, *s);
  std::vector<draw::Tick> ticks = {{lo.chunk, static_cast<double>(lo.local) / static_cast<double>(*size), palette::kInk,
                                    "range start " + num(*min)}};
  with_neighbours(chunks, lo.chunk);
  const ChunkPoint hi = split(*max, *s);
  with_neighbours(chunks, hi.chunk);
  ticks.push_back({hi.chunk, static_cast<double>(hi.local) / static_cast<double>(*size), palette::kInk,
                   std::string("range end ") + num(*max) + (closed ? " (included)" : " (excluded)")});
  if (*want) {
    span_chunks(chunks, (*want)->first(), (*want)->last());
    bands.push_back({(*want)->first(), (*want)->last(), palette::kHit, "expected", 0});
  }
  if (got) {
    span_chunks(chunks, got->first, got->second);
    bands.push_back({got->first, got->second, palette::kPair, "given", 1});
  }
  // Missing: expected and not given; extra: given and not expected (at most two runs each).
  const auto minus = [&](std::optional<std::pair<std::int64_t, std::int64_t>> a,
                         std::optional<std::pair<std::int64_t, std::int64_t>> b, std::string_view colour,
                         const std::string& label) {
    if (!a) return;
    if (!b || b->second < a->first || a->second < b->first) {
      bands.push_back({a->first, a->second, colour, label, 2});
      return;
    }
    if (a->first < b->first) bands.push_back({a->first, b->first - 1, colour, label, 2});
    if (b->second < a->second) bands.push_back({b->second + 1, a->second, colour, label, 2});
  };
  std::optional<std::pair<std::int64_t, std::int64_t>> expected;
  if (*want) expected = std::pair{(*want)->first(), (*want)->last()};
  minus(expected, got, palette::kMissed, "missing");
  minus(got, expected, palette::kExtra, "extra");
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  if (chunks.size() > 64) return std::nullopt;
  const draw::ChunkLine line{.chunks = chunks, .int_size = *size, .bands = bands, .ticks = ticks,
                             .title = std::string("cover [") + num(*min) + ", " + num(*max) +
                                      (closed ? "]" : ")") + ", size " + num(*size)};
  return chunk_figure(line, "cover",
                      "data-min=\"" + num(*min) + "\" data-max=\"" + num(*max) + "\" data-closed=\"" +
                          (closed ? "1" : "0") + "\" data-size=\"" + num(*size) + "\"",
                      "Green: the chunks the range touches (C1-C3); blue: the chunks the record gives; red: missing; "
                      "orange: extra (a chunk that holds no point of the range).");
}

std::vector<Figure> decompose_figures(const TraceRecord& r, std::string_view op) {
  std::vector<Figure> out;
  const auto add = [&](std::optional<Figure> f) {
    if (f) out.push_back(*std::move(f));
  };
  if (op == "split" || op == "stored") {
    const absl::StatusOr<std::int64_t> x = r.int64("in", "x"), size = r.int64("in", "size");
    const std::string_view section = op == "split" ? "out" : "stored";
    const absl::StatusOr<std::int64_t> chunk = r.int64(section, "chunk");
    if (!x.ok() || !size.ok() || !chunk.ok()) return out;
    std::optional<std::int64_t> local;
    if (const absl::StatusOr<std::int64_t> l = r.int64(section, "local"); l.ok()) local = *l;
    add(split_figure(*x, *size, *chunk, local, op));
  } else if (op == "split_axes" || op == "split_all") {
    std::vector<std::int64_t> xs, chunk, local;
    const absl::StatusOr<std::int64_t> size = r.int64("in", "size");
    if (!size.ok() || !r.int64s("in", op == "split_axes" ? "p" : "xs", xs).ok() || !r.int64s("out", "chunk", chunk).ok() ||
        !r.int64s("out", "local", local).ok() || chunk.size() != xs.size() || local.size() != xs.size()) {
      return out;
    }
    const absl::StatusOr<ChunkSize> s = ChunkSize::create(*size);
    if (!s.ok()) return out;
    for (std::size_t i = 0; i < xs.size(); ++i) {  // the first element answered wrongly
      const ChunkPoint e = split(xs[i], *s);
      if (e.chunk != chunk[i] || e.local != local[i]) {
        add(split_figure(xs[i], *size, chunk[i], local[i],
                         std::string(op) + (op == "split_axes" ? " axis " : " element ") + num(i)));
        break;
      }
    }
  } else if (op == "cell_of") {
    const absl::StatusOr<double> v = r.real("in", "v"), h = r.real("in", "h");
    const absl::StatusOr<std::int64_t> cell = r.int64("out", "cell");
    if (v.ok() && h.ok() && cell.ok()) add(cell_figure(*v, *h, *cell));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Broad phase: find_pairs and query.

template <std::size_t D>
std::vector<Box<D>> boxes_of(const std::vector<double>& flat) {
  std::vector<Box<D>> out(flat.size() / (2 * D));
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t k = 0; k < D; ++k) {
      out[i].min[k] = flat[2 * D * i + k];
      out[i].max[k] = flat[2 * D * i + D + k];
    }
  }
  return out;
}

template <std::size_t D>
bool valid(std::span<const Box<D>> boxes) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (!validate_box(boxes[i], i).ok()) return false;
  }
  return true;
}

std::string pair_text(const Pair& p) { return num(std::uint64_t{p.a}) + " " + num(std::uint64_t{p.b}); }

template <std::size_t D>
std::optional<std::string> scene_svg(std::span<const Box<D>> boxes, const std::optional<GridConfig>& grid,
                                     std::span<const Pair> missed, std::span<const Pair> extra, bool pair_boxes,
                                     std::optional<draw::Window> focus, const std::string& title) {
  absl::StatusOr<std::string> svg;
  if constexpr (D == 2) {
    svg = draw::svg(draw::Scene2{.boxes = boxes, .grid = grid, .cells = false, .missed = missed, .extra = extra,
                                 .pair_boxes = pair_boxes, .focus = focus, .title = title},
                    {.width = 760, .height = 620, .max_items = kOverview});
  } else {
    svg = draw::svg(draw::Scene3{.boxes = boxes, .grid = grid, .cells = false, .missed = missed, .extra = extra,
                                 .pair_boxes = pair_boxes, .title = title},
                    {.width = 960, .height = 480, .max_items = kOverview});
  }
  if (!svg.ok()) return std::nullopt;
  return *std::move(svg);
}

template <std::size_t D>
std::vector<Figure> pair_figures(const std::vector<double>& flat, const TraceRecord& r) {
  std::vector<Figure> out;
  const std::vector<Box<D>> boxes = boxes_of<D>(flat);
  std::vector<std::int64_t> raw;
  if (!valid<D>(boxes) || r.has("out", "error") || !r.int64_tuples("out", "pairs", 2, raw).ok()) return out;
  std::optional<GridConfig> grid;
  std::string cell_note = "cell lines every 1 (the record gives no h)";
  double h = 1;
  if (r.has("in", "h")) {
    const absl::StatusOr<double> given = r.real("in", "h");
    if (given.ok() && std::isfinite(*given) && *given > 0) h = *given, cell_note = "cell lines every h = " + draw::exact(h);
  }
  if (const absl::StatusOr<CellSize> cs = CellSize::create(h); cs.ok()) grid = GridConfig{.cell_size = *cs};
  // The pairs given, each read lower index first (whatever the order, a pair is the same two boxes).
  std::set<std::pair<std::uint32_t, std::uint32_t>> given;
  for (std::size_t i = 0; i + 1 < raw.size(); i += 2) {
    const std::int64_t a = std::min(raw[i], raw[i + 1]), b = std::max(raw[i], raw[i + 1]);
    if (a >= 0 && static_cast<std::uint64_t>(b) < boxes.size() && a != b) {
      given.insert({static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)});
    }
  }
  const std::vector<Pair> want = contracts::brute_force_pairs(std::span<const Box<D>>(boxes));
  std::vector<Pair> missed, extra;
  for (const Pair& p : want) {
    if (!given.erase({p.a, p.b})) missed.push_back(p);
  }
  for (const auto& [a, b] : given) extra.push_back({a, b});
  if (missed.empty() && extra.empty()) return out;
  const std::string counts = num(missed.size()) + " missed, " + num(extra.size()) + " extra, of " + num(want.size()) +
                             " overlapping pairs of " + num(boxes.size()) + " boxes";
  // The overview: one pair for each distinct place where missed boxes meet (and each distinct gap of the
  // extra ones), so that thousands of misses on a few lines show as those lines.
  const auto distinct = [&](const std::vector<Pair>& pairs, bool meet) {
    std::vector<Pair> out_pairs;
    std::set<std::array<double, 2 * D>> seen;
    for (const Pair& p : pairs) {
      std::array<double, 2 * D> key{};
      for (std::size_t k = 0; k < D; ++k) {
        const Box<D>& a = boxes[p.a];
        const Box<D>& b = boxes[p.b];
        key[k] = meet ? std::max(a.min[k], b.min[k]) : std::min(a.max[k], b.max[k]);
        key[D + k] = meet ? std::min(a.max[k], b.max[k]) : std::max(a.min[k], b.min[k]);
      }
      if (seen.insert(key).second) out_pairs.push_back(p);
    }
    return out_pairs;
  };
  const std::vector<Pair> missed_places = distinct(missed, true), extra_places = distinct(extra, false);
  if (std::optional<std::string> svg = scene_svg<D>(boxes, grid, missed_places, extra_places, false, std::nullopt,
                                                    "the record: " + counts)) {
    out.push_back({"pairs", "data-dims=\"" + num(std::size_t{D}) + "\"", *std::move(svg),
                   "All the record's boxes (grey). Red: every place where the closed boxes of a missed pair meet (" +
                       num(missed_places.size()) + " distinct places for " + num(missed.size()) +
                       " missed pairs); orange: every distinct gap between the boxes of an extra pair (" +
                       num(extra_places.size()) + " for " + num(extra.size()) + "). " + cell_note + "."});
  }
  const auto close_up = [&](const Pair& p, bool is_missed) {
    const Box<D>& a = boxes[p.a];
    const Box<D>& b = boxes[p.b];
    std::optional<draw::Window> focus;
    std::vector<Box<D>> two;
    std::span<const Box<D>> shown = boxes;
    Pair drawn = p;
    if constexpr (D == 2) {  // the two boxes and half a cell around them
      focus = draw::Window{std::min(a.min[0], b.min[0]) - h / 2, std::min(a.min[1], b.min[1]) - h / 2,
                           std::max(a.max[0], b.max[0]) + h / 2, std::max(a.max[1], b.max[1]) + h / 2};
    } else {  // 3-D projections show the two boxes alone
      two = {a, b};
      shown = two;
      drawn = {0, 1};
    }
    const std::string title = std::string(is_missed ? "missed" : "extra") + " pair (" + num(std::uint64_t{p.a}) + ", " +
                              num(std::uint64_t{p.b}) + ")";
    std::optional<std::string> svg = scene_svg<D>(shown, grid, is_missed ? std::span<const Pair>(&drawn, 1) : std::span<const Pair>(),
                                                  is_missed ? std::span<const Pair>() : std::span<const Pair>(&drawn, 1),
                                                  true, focus, title);
    if (!svg) return;
    out.push_back({is_missed ? "missed-pair" : "extra-pair",
                   "data-pair=\"" + pair_text(p) + "\" data-dims=\"" + num(std::size_t{D}) + "\" data-h=\"" +
                       draw::exact(h).substr(0, draw::exact(h).find(' ')) + "\"",
                   *std::move(svg),
                   is_missed ? "The two closed boxes share the solid red part, so the contract requires the pair (B1). " +
                                   cell_note + "."
                             : "The two boxes do not meet: the orange segment is the gap between them (B2). " + cell_note + "."});
  };
  for (std::size_t i = 0; i < missed.size() && i < kCloseUps; ++i) close_up(missed[i], true);
  for (std::size_t i = 0; i < extra.size() && i < kCloseUps; ++i) close_up(extra[i], false);
  return out;
}

template <std::size_t D>
std::vector<Figure> query_figures(const std::vector<double>& flat, const TraceRecord& r) {
  std::vector<Figure> out;
  const std::vector<Box<D>> boxes = boxes_of<D>(flat);
  std::vector<double> probe_flat;
  std::vector<std::int64_t> ids;
  if (!valid<D>(boxes) || !r.reals("in", "probe", probe_flat).ok() || probe_flat.size() != 2 * D ||
      !r.int64s("out", "ids", ids).ok()) {
    return out;
  }
  const Box<D> probe = boxes_of<D>(probe_flat)[0];
  if (!validate_box(probe, 0).ok()) return out;
  std::vector<std::uint32_t> hits;
  for (const std::int64_t id : ids) {
    if (id >= 0 && static_cast<std::uint64_t>(id) < boxes.size()) hits.push_back(static_cast<std::uint32_t>(id));
  }
  absl::StatusOr<std::string> svg;
  std::size_t missing = 0;
  if constexpr (D == 2) {
    std::vector<draw::Mark> marks;
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      if (!overlaps(boxes[i], probe) || std::find(hits.begin(), hits.end(), i) != hits.end()) continue;
      ++missing;
      const double x = std::max(boxes[i].min[0], probe.min[0]) / 2 + std::min(boxes[i].max[0], probe.max[0]) / 2;
      const double y = std::max(boxes[i].min[1], probe.min[1]) / 2 + std::min(boxes[i].max[1], probe.max[1]) / 2;
      marks.push_back({{x, y}, "missed hit " + num(i), palette::kMissed});
    }
    svg = draw::svg(draw::Scene2{.boxes = boxes, .query = probe, .query_hits = hits, .marks = marks,
                                 .title = "query: " + num(hits.size()) + " hits given, " + num(missing) + " missed"},
                    {.width = 760, .height = 560});
  } else {
    svg = draw::svg(draw::Scene3{.boxes = boxes, .query = probe, .query_hits = hits, .title = "query (3-D)"},
                    {.width = 960, .height = 480});
  }
  if (svg.ok()) {
    out.push_back({"query", "data-dims=\"" + num(std::size_t{D}) + "\"", *std::move(svg),
                   "Green, dashed: the probe; green: the hits given, marked where each meets it; red dots: boxes that "
                   "meet the probe but were not given (B10)."});
  }
  return out;
}

std::vector<Figure> broadphase_figures(const TraceRecord& r, std::string_view op) {
  std::vector<double> flat;
  const bool two = r.real_tuples("in", "boxes", 4, flat).ok();
  if (!two && !r.real_tuples("in", "boxes", 6, flat).ok()) return {};
  if (op == "find_pairs") return two ? pair_figures<2>(flat, r) : pair_figures<3>(flat, r);
  if (op == "query") return two ? query_figures<2>(flat, r) : query_figures<3>(flat, r);
  return {};
}

// An integer the report printed (always an int64 there).
std::int64_t int_of(const std::string& digits) {
  std::int64_t v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return v;
}

// "(a, b)" pairs of ids in a report text: the events of a grid update as `expected` and `got` state them.
std::vector<std::pair<std::int64_t, std::int64_t>> id_pairs(std::string_view text) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  static const std::regex kPair(R"(\((-?\d+), (-?\d+)\))");
  const std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kPair); it != std::sregex_iterator(); ++it) {
    const std::int64_t a = int_of((*it)[1].str()), b = int_of((*it)[2].str());
    out.push_back({std::min(a, b), std::max(a, b)});
  }
  return out;
}

std::vector<Figure> grid_update_figures(const GridSession& g, const Counterexample& c) {
  std::vector<Figure> out;
  if (g.dims != 2 || g.boxes.empty()) return out;
  std::vector<Box2> boxes;
  std::vector<std::uint64_t> ids;
  std::map<std::int64_t, std::uint32_t> index;
  for (const auto& [id, b] : g.boxes) {
    index[id] = static_cast<std::uint32_t>(boxes.size());
    boxes.push_back({{b[0], b[1]}, {b[2], b[3]}});
    ids.push_back(static_cast<std::uint64_t>(id));
  }
  const auto want = id_pairs(c.expected), got = id_pairs(c.got);
  std::vector<Pair> missed, extra;
  std::string elsewhere;
  const auto as_pair = [&](const std::pair<std::int64_t, std::int64_t>& p, std::vector<Pair>& into) {
    const auto a = index.find(p.first), b = index.find(p.second);
    if (a == index.end() || b == index.end()) {
      elsewhere += " (" + num(p.first) + ", " + num(p.second) + ")";
      return;
    }
    into.push_back({std::min(a->second, b->second), std::max(a->second, b->second)});
  };
  for (const auto& p : want) {
    if (std::find(got.begin(), got.end(), p) == got.end()) as_pair(p, missed);
  }
  for (const auto& p : got) {
    if (std::find(want.begin(), want.end(), p) == want.end()) as_pair(p, extra);
  }
  const double h = g.h;
  std::optional<GridConfig> grid;
  if (const absl::StatusOr<CellSize> cs = CellSize::create(h); cs.ok()) grid = GridConfig{.cell_size = *cs};
  absl::StatusOr<std::string> svg = draw::svg(
      draw::Scene2{.boxes = boxes, .ids = ids, .grid = grid, .cells = false, .missed = missed, .extra = extra,
                   .title = "the session's live boxes (ids as the engine names them)"},
      {.width = 760, .height = 560});
  if (!svg.ok()) return out;
  out.push_back({"grid-update", "", *std::move(svg),
                 "Red: events the model has and the engine did not report; orange: events the engine reported and "
                 "the model does not have." +
                     (elsewhere.empty() ? std::string() : " Not drawn (a box no longer live):" + elsewhere + ".")});
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Commit: runs.

std::vector<draw::RunCell> runs_in(std::string_view text) {
  std::vector<draw::RunCell> out;
  static const std::regex kRun(R"(\(row (-?\d+), x (-?\d+)\.\.(-?\d+)\))");
  const std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kRun); it != std::sregex_iterator(); ++it) {
    out.push_back({int_of((*it)[1].str()), int_of((*it)[2].str()), int_of((*it)[3].str())});
  }
  return out;
}

// a - b, run by run (both lists of disjoint runs).
std::vector<draw::RunCell> runs_minus(const std::vector<draw::RunCell>& a, const std::vector<draw::RunCell>& b) {
  std::vector<draw::RunCell> out;
  for (const draw::RunCell& run : a) {
    std::vector<std::pair<absl::int128, absl::int128>> left = {{run.x_first, run.x_last}};
    for (const draw::RunCell& cut : b) {
      if (cut.y != run.y) continue;
      std::vector<std::pair<absl::int128, absl::int128>> next;
      for (const auto& [f, l] : left) {
        if (cut.x_last < f || l < cut.x_first) {
          next.push_back({f, l});
          continue;
        }
        if (f < cut.x_first) next.push_back({f, absl::int128(cut.x_first) - 1});
        if (cut.x_last < l) next.push_back({absl::int128(cut.x_last) + 1, l});
      }
      left = std::move(next);
    }
    for (const auto& [f, l] : left) out.push_back({run.y, static_cast<std::int64_t>(f), static_cast<std::int64_t>(l)});
  }
  return out;
}

// A figure of chunk runs.
std::vector<Figure> runs_figure(std::span<const draw::RunSet> sets, std::string title, std::string kind,
                                std::string caption) {
  absl::StatusOr<std::string> svg =
      draw::svg(draw::RunGrid{.sets = sets, .title = std::move(title)}, {.width = 760, .height = 420, .max_items = 20000});
  if (!svg.ok()) return {};
  return {{std::move(kind), "", *std::move(svg), std::move(caption)}};
}

std::vector<Figure> commit_figures(const Counterexample& c) {
  const std::vector<draw::RunCell> want = runs_in(c.expected), got = runs_in(c.got);
  if (want.empty() && got.empty()) return {};
  const std::vector<draw::RunCell> missing = runs_minus(want, got), extra = runs_minus(got, want);
  const std::vector<draw::RunSet> sets = {{got, palette::kPair, true, "given by the engine"},
                                          {missing, palette::kMissed, true, "missing (expected, not given)"},
                                          {extra, palette::kExtra, true, "extra (given, not expected)"},
                                          {want, palette::kHit, false, "expected (the model)"}};
  return runs_figure(sets, "runs: " + c.op, "runs",
                     "Chunk runs (row y, columns x): green outline, what the contract requires; blue, what the "
                     "engine gave; red, missing; orange, extra.");
}

// ---------------------------------------------------------------------------------------------------
// Rebase: the barrier, and where a position lands.

std::vector<Figure> barrier_figures(const TraceRecord& r, std::string_view op, const RebaseView& v) {
  std::vector<std::int64_t> target;
  if (!r.int64s(op == "commit" ? "in" : "out", "target", target).ok() || target.size() != v.dims) return {};
  std::vector<draw::RunCell> need, loaded, holes;
  for (absl::int128 y = absl::int128(target[1]) - v.barrier; y <= absl::int128(target[1]) + v.barrier; ++y) {
    if (y < INT64_MIN || y > INT64_MAX) continue;
    const auto row = static_cast<std::int64_t>(y);
    const absl::int128 x0 = std::max(absl::int128(target[0]) - v.barrier, absl::int128(INT64_MIN));
    const absl::int128 x1 = std::min(absl::int128(target[0]) + v.barrier, absl::int128(INT64_MAX));
    need.push_back({row, static_cast<std::int64_t>(x0), static_cast<std::int64_t>(x1)});
    for (absl::int128 x = x0; x <= x1; ++x) {  // runs of neighbouring cells alike
      std::vector<std::int64_t> cell = target;
      cell[0] = static_cast<std::int64_t>(x), cell[1] = row;
      std::vector<draw::RunCell>& into = v.loaded.count(cell) ? loaded : holes;
      if (!into.empty() && into.back().y == row && absl::int128(into.back().x_last) + 1 == x) {
        into.back().x_last = cell[0];
      } else {
        into.push_back({row, cell[0], cell[0]});
      }
    }
  }
  const std::vector<draw::RunSet> sets = {{loaded, palette::kPair, true, "loaded"},
                                          {holes, palette::kMissed, true, "not loaded"},
                                          {need, palette::kHit, false, "the barrier: target ± " + num(v.barrier)}};
  std::string where = "target (" + num(target[0]) + ", " + num(target[1]) + (v.dims == 3 ? ", " + num(target[2]) : "") + ")";
  return runs_figure(sets, "barrier around the " + where + (v.dims == 3 ? ", the slice z = " + num(target[2]) : ""),
                     "barrier",
                     "Cells (x, y) of the barrier the origin may move onto (R6): blue, loaded when the record was "
                     "written; red, not loaded.");
}

std::vector<Figure> render_figures(const TraceRecord& r, std::string_view op, const RebaseView& v) {
  std::vector<std::int64_t> cell;
  std::vector<double> offset, at;
  if (!r.int64s("in", "cell", cell).ok() || !r.reals("in", "offset", offset).ok() || cell.size() != v.dims ||
      offset.size() != v.dims || v.origin.size() != v.dims) {
    return {};
  }
  // World units relative to the corner of the engine's origin cell, exactly in int128, then as doubles.
  std::array<double, 2> exact{};
  for (std::size_t k = 0; k < 2; ++k) {
    const absl::int128 corner = (absl::int128(cell[k]) - v.origin[k]) * v.cell_size;
    exact[k] = static_cast<double>(corner) + offset[k];
  }
  std::vector<draw::Mark> marks = {{exact, "the position (cell + offset)", palette::kHit}};
  if (r.reals("out", "at", at).ok() && at.size() == v.dims) {
    marks.push_back({{at[0] * static_cast<double>(v.units), at[1] * static_cast<double>(v.units)},
                     "where the engine placed it (at × " + num(v.units) + ")", palette::kMissed});
  }
  std::string origin = "(" + num(v.origin[0]) + ", " + num(v.origin[1]) + (v.dims == 3 ? ", " + num(v.origin[2]) : "") + ")";
  absl::StatusOr<std::string> svg = draw::svg(
      draw::Scene2{.view = draw::ViewShape{{0, 0}, static_cast<double>(v.cell_size), static_cast<double>(v.bubble),
                                           "origin cell " + origin + " (the engine's), cell size " + num(v.cell_size) +
                                               ", bubble " + num(v.bubble) + " units"},
                   .marks = marks,
                   .title = std::string(op) + ": world units from the corner of the origin cell (x, y)"},
      {.width = 760, .height = 520});
  if (!svg.ok()) return {};
  return {{"render", "", *std::move(svg),
           "Green: the position, relative to the origin the engine reported last; red: where the engine's render "
           "point puts it (render coordinates × units per render unit). A right answer puts both in one place."}};
}

// ---------------------------------------------------------------------------------------------------
// The page.

constexpr std::string_view kStyle = R"(body{font-family:sans-serif;margin:24px;color:#1a1a1a;max-width:1100px}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}
td.n{text-align:right}tr.bad td{background:#fde8e8}tr.quiet td{color:#888}
pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;font-size:12px}
figure{margin:12px 0;border:1px solid #ddd;padding:8px;display:inline-block}figcaption{font-size:13px;max-width:740px}
.example{margin:18px 0 28px}h3{margin-top:32px})";

std::string summary(const TraceReport& r) {
  std::string s = num(r.lines) + " lines, " + num(r.records) + " records: " + num(r.judged) + " judged, " +
                  num(r.violating) + " violating, " + num(r.bad) + " not readable";
  if (r.violating > r.root_causes) {
    s += "; " + num(r.violating - r.root_causes) + " of the violating follow from an earlier violation of their session";
  }
  const int code = r.exit_code();
  return s + ". Result: " + (code == 0 ? "clean" : code == 1 ? "VIOLATIONS" : "UNREADABLE INPUT OR NO RECORDS") +
         " (exit " + num(std::int64_t{code}) + ").";
}

}  // namespace

// The drawings of every counterexample's record: the trace read once more, each needed line parsed, the
// events of the sessions they belong to replayed as far as a picture needs.
class Pictures {
 public:
  Pictures(const TraceReport& report, const TraceOptions& options) : options_(options) {
    for (const ClauseTally& t : report.clauses) {
      for (const Counterexample& c : t.examples) {
        Want& w = wanted_[c.line];
        if (w.example == nullptr) w.example = &c;
        w.clauses.insert(t.id);
      }
    }
  }

  // read(): the figures of each wanted line, by line. NotFound (or the stream's error) when the trace
  // cannot be read again.
  absl::Status read(const std::string& path) {
    if (wanted_.empty()) return absl::OkStatus();
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError("cannot open " + path + " again to draw its records");
    LineReader reader(options_.max_line_bytes);
    std::string text;
    std::uint64_t line = 0;
    const std::uint64_t last = wanted_.rbegin()->first;
    while (line < last && std::getline(in, text)) {
      ++line;
      if (!text.empty() && text.back() == '\r') text.pop_back();
      const auto want = wanted_.find(line);
      const bool session = text.find("\"session\"") != std::string::npos;
      if (want == wanted_.end() && !session) continue;
      if (text.size() > options_.max_line_bytes) continue;
      audit::BadKind kind{};
      std::string why;
      if (!reader.parse(text, kind, why)) continue;
      std::int64_t schema = 0;
      std::string_view contract, op;
      if (!reader.route(schema, contract, op)) continue;
      std::string name;
      if (session) {
        if (const absl::StatusOr<std::string_view> s = reader.top_text("session"); s.ok()) name = std::string(contract) + "/" + std::string(*s);
      }
      if (want != wanted_.end()) draw_line(line, reader.record(), contract, op, name, want->second);
      if (!name.empty()) replay(reader.record(), contract, op, name);
    }
    return absl::OkStatus();
  }

  [[nodiscard]] const std::vector<Figure>* figures(std::uint64_t line) const {
    const auto it = figures_.find(line);
    return it == figures_.end() ? nullptr : &it->second;
  }

 private:
  struct Want {
    const Counterexample* example = nullptr;  // the first that names the line
    std::set<std::string_view> clauses;       // every clause it is listed under
  };

  void draw_line(std::uint64_t line, const TraceRecord& r, std::string_view contract, std::string_view op,
                 const std::string& session, const Want& want) {
    std::vector<Figure> f;
    if (contract == "decompose") {
      f = decompose_figures(r, op);
    } else if (contract == "cover") {
      if (std::optional<Figure> one = cover_figure(r)) f.push_back(*std::move(one));
    } else if (contract == "broadphase") {
      if (op == "grid_update") {
        if (const auto it = grids_.find(session); it != grids_.end()) f = grid_update_figures(it->second, *want.example);
      } else {
        f = broadphase_figures(r, op);
      }
    } else if (contract == "commit") {
      if (op == "pending" || op == "publish") f = commit_figures(*want.example);
    } else if (contract == "rebase") {
      if (const auto it = views_.find(session); it != views_.end()) {
        if ((op == "commit" || op == "plan") && want.clauses.count("R6") > 0) f = barrier_figures(r, op, it->second);
        if (op == "to_render" || op == "late") f = render_figures(r, op, it->second);
      }
    }
    if (!f.empty()) figures_[line] = std::move(f);
  }

  // What the pictures of later events need: a rebase view's configuration, origin (as the engine's
  // commits reported it) and loaded cells; a grid session's cell size and live boxes.
  void replay(const TraceRecord& r, std::string_view contract, std::string_view op, const std::string& name) {
    if (contract == "rebase") {
      if (op == "open") {
        RebaseView v;
        if (!r.int64s("in", "origin", v.origin).ok()) return;
        v.dims = v.origin.size();
        const auto field = [&](std::string_view key, std::int64_t& into) {
          if (const absl::StatusOr<std::int64_t> x = r.int64("in", key); x.ok()) into = *x;
        };
        field("cell_size", v.cell_size);
        field("units_per_render_unit", v.units);
        field("bubble_units", v.bubble);
        field("barrier_radius", v.barrier);
        views_[name] = std::move(v);
        return;
      }
      const auto it = views_.find(name);
      if (it == views_.end()) return;
      std::vector<std::int64_t> cell;
      if ((op == "load" || op == "unload") && r.int64s("in", "cell", cell).ok()) {
        if (op == "load") it->second.loaded.insert(cell); else it->second.loaded.erase(cell);
      } else if (op == "commit" && !r.has("out", "error") && r.int64s("out", "origin", cell).ok()) {
        it->second.origin = cell;
      } else if (op == "end") {
        views_.erase(it);
      }
    } else if (contract == "broadphase") {
      if (op == "grid_create") {
        GridSession g;
        if (const absl::StatusOr<std::int64_t> d = r.int64("in", "dims"); d.ok()) g.dims = static_cast<std::size_t>(*d);
        if (const absl::StatusOr<double> h = r.real("in", "h"); h.ok()) g.h = *h;
        grids_[name] = std::move(g);
        return;
      }
      const auto it = grids_.find(name);
      if (it == grids_.end()) return;
      const absl::StatusOr<std::int64_t> id = r.int64("in", "id");
      std::vector<double> box;
      const bool ok = !r.has("out", "error");
      if ((op == "grid_add" || op == "grid_move") && ok && id.ok() && r.reals("in", "box", box).ok() &&
          box.size() == 2 * it->second.dims) {
        it->second.boxes[*id] = box;
      } else if (op == "grid_remove" && ok && id.ok()) {
        it->second.boxes.erase(*id);
      } else if (op == "grid_end") {
        grids_.erase(it);
      }
    }
  }

  const TraceOptions& options_;
  std::map<std::uint64_t, Want> wanted_;
  std::map<std::uint64_t, std::vector<Figure>> figures_;
  std::map<std::string, RebaseView> views_;
  std::map<std::string, GridSession> grids_;
};

}  // namespace lwc::internal

namespace lwc::audit {

std::string report_html(const TraceReport& report, const std::string& trace, const TraceOptions& options) {
  using internal::esc;
  using internal::num;
  internal::Pictures pictures(report, options);
  absl::Status drawn = trace == "-" ? absl::UnimplementedError("the trace came from standard input: it cannot be read "
                                                                "again for its drawings")
                                    : pictures.read(trace);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>lwc-audit: " + esc(trace) +
                    "</title><style>" + std::string(internal::kStyle) + "</style></head><body>\n";
  out += "<h1>lwc-audit: " + esc(trace) + "</h1>\n<p class=\"summary\">" + esc(internal::summary(report)) + "</p>\n";
  if (!drawn.ok()) out += "<p>No drawings: " + esc(std::string(drawn.message())) + ".</p>\n";
  out += "<table class=\"clauses\"><tr><th>contract</th><th>clause</th><th>checked</th><th>violations</th>"
         "<th>statement</th></tr>\n";
  for (const ClauseTally& t : report.clauses) {
    const bool judged = t.checked > 0;
    out += std::string("<tr class=\"") + (t.violations > 0 ? "bad" : judged ? "" : "quiet") + "\"><td>" +
           esc(t.contract) + "</td><td>" +
           (t.examples.empty() ? esc(t.id)
                               : "<a href=\"#" + esc(std::string(t.contract) + "-" + std::string(t.id)) + "\">" + esc(t.id) + "</a>") +
           "</td><td class=\"n\">" + (judged ? num(t.checked) : "-") + "</td><td class=\"n\">" +
           (judged ? num(t.violations) : "-") + "</td><td>" + esc(t.statement) + "</td></tr>\n";
  }
  out += "</table>\n";
  std::set<std::uint64_t> shown;
  for (const ClauseTally& t : report.clauses) {
    if (t.examples.empty()) continue;
    out += "<h3 id=\"" + esc(std::string(t.contract) + "-" + std::string(t.id)) + "\">" + esc(t.contract) + " " +
           esc(t.id) + " — " + esc(t.statement) + ": " + num(t.violations) + " violations</h3>\n";
    for (const Counterexample& c : t.examples) {
      out += "<div class=\"example\"><p><b>line " + num(c.line) + "</b>: " + esc(c.op) + " " + esc(c.input) +
             (c.follows != 0 ? " (follows line " + num(c.follows) + ")" : "") + "</p>\n<pre>expected " + esc(c.expected) +
             "\ngot      " + esc(c.got) + "\n" + esc(c.message) + "</pre>\n";
      const std::vector<internal::Figure>* figures = pictures.figures(c.line);
      if (figures != nullptr && !shown.insert(c.line).second) {
        out += "<p>The drawings of line " + num(c.line) + " are above.</p>\n";
      } else if (figures != nullptr) {
        for (const internal::Figure& f : *figures) {
          out += "<figure class=\"drawing\" data-line=\"" + num(c.line) + "\" data-contract=\"" + esc(t.contract) +
                 "\" data-op=\"" + esc(c.op) + "\" data-kind=\"" + f.kind + "\"" + (f.data.empty() ? "" : " " + f.data) + ">\n" +
                 f.svg + "<figcaption>" + esc(f.caption) + "</figcaption></figure>\n";
        }
      }
      out += "</div>\n";
    }
    if (t.violations > t.examples.size()) {
      out += "<p>... and " + num(t.violations - t.examples.size()) + " more (lwc-audit --examples N shows more).</p>\n";
    }
  }
  if (report.bad > 0) {
    out += "<h3>Not readable: " + num(report.bad) + " records</h3>\n<ul>\n";
    for (const BadLine& b : report.bad_examples) out += "<li>line " + num(b.line) + ": " + esc(b.reason) + "</li>\n";
    out += "</ul>\n";
  }
  out += "<p class=\"note\">Drawn by lwc.draw: hover over any element for its exact values (shortest decimal and hex "
         "float). Spec: docs/audit.md.</p>\n</body></html>\n";
  return out;
}

}  // namespace lwc::audit
