// SPDX-License-Identifier: MIT
// File: draw/draw.cppm                  Module: lwc.draw
//
// Pictures of a state, for people: an SVG of a broad-phase scene (boxes, the grid's occupied cells and
// levels, pairs, the reference cell of a pair, a query or a ray with its hits, a view's bubble and
// origin, marks), of a number line cut into chunks (a split, a cell, a cover) and of chunk runs (a
// commit). Outside the hot path: nothing in modules/ imports it, and it costs what it draws.
// Every picture carries the exact values in hover titles (the shortest decimal and the hex float of
// every double, every integer in full), and stays readable at 100,000 boxes: past Style::dense_boxes the
// boxes in view are aggregated into a density raster (how many boxes meet each bin of bin_pixels), and pairs,
// hits and marks are drawn for the first Style::max_items of each kind, the legend saying how many.
// Library lwc::draw (draw/), C API lwc_draw_* (capi/include/lwc.h, capi/draw.cc), Python lwc_draw.py.
// Spec: docs/draw.md.
module;
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
export module lwc.draw;

export import :svg;
export import lwc.broadphase;

export namespace lwc::draw {

// Style
//
// The size of a picture and its limits. create() is the only way to a Style other than the default.
struct Style {
  int width = 720;                 // pixels, in [160, 8192]
  int height = 540;                // pixels, in [120, 8192]
  std::size_t dense_boxes = 2000;  // more boxes in view than this are drawn as a density raster
  std::size_t max_items = 2000;    // pairs, missed, extra, hits and marks drawn, each kind (the first ones)
  int bin_pixels = 4;              // the raster's bin, in pixels, in [1, 64]
};

// check_style()
//
// OK iff every field of `style` is in its range; InvalidArgument naming the field and its value.
[[nodiscard]] absl::Status check_style(const Style& style);

// Mark
//
// A labelled point: where a result landed, where it should have.
struct Mark {
  std::array<double, 2> at{};
  std::string label{};
  std::string_view colour = palette::kInk;
};

// ViewShape
//
// A floating-origin view (lwc.rebase) in the scene's units: the corner of its origin cell, the cell's
// side, and the half side of its render bubble around the corner (to_render is OutOfRange beyond it).
struct ViewShape {
  std::array<double, 2> origin{};
  double cell_size = 1;
  double bubble = 1;
  std::string label{};  // e.g. "origin cell (3, -2), version 7": the exact values a title shows
};

// Scene2
//
// What to draw of a 2-D broad phase. Spans are read during svg() only. Indices (pairs, hits) name boxes.
struct Scene2 {
  std::span<const Box2> boxes{};
  std::span<const std::uint64_t> ids{};  // box i's name in titles and labels (ids[i]); empty: i
  std::optional<GridConfig> grid{};      // cell lines of level 0 (and occupied cells, if `cells`)
  bool cells = true;                   // with a grid: each box's cells at its level (GridSpec::place)
  std::span<const Pair> pairs{};         // pairs to draw (all, or a chosen subset): their intersections
  bool reference_cells = false;        // with a grid: each drawn pair's reference cell (B9, B11)
  std::span<const Pair> missed{};        // pairs an implementation missed (both boxes, the shared part)
  std::span<const Pair> extra{};         // pairs it reported wrongly (both boxes, the gap between them)
  bool pair_boxes = true;                // missed and extra pairs with their boxes; off: only where they meet
                                         // or the gap (an overview of many)
  std::optional<Box2> query{};
  std::span<const std::uint32_t> query_hits{};  // each marked where it meets the query
  std::optional<Segment<2>> ray{};
  std::span<const std::uint32_t> ray_hits{};    // each marked at its entry point (ray_entry, E9)
  std::optional<ViewShape> view{};
  std::span<const Mark> marks{};
  std::optional<Window> focus{};  // the region of interest; default: every box, the query, ray, view origin, marks
  std::string title{};
};

// Scene3
//
// A 3-D scene, drawn as three orthographic projections side by side (x-y, x-z, y-z): each box, cell,
// pair, query and ray projected onto the plane; a box's cells are those of its 3-D placement.
struct Scene3 {
  std::span<const Box3> boxes{};
  std::span<const std::uint64_t> ids{};
  std::optional<GridConfig> grid{};
  bool cells = true;
  std::span<const Pair> pairs{};
  bool reference_cells = false;
  std::span<const Pair> missed{};
  std::span<const Pair> extra{};
  bool pair_boxes = true;
  std::optional<Box3> query{};
  std::span<const std::uint32_t> query_hits{};
  std::optional<Segment<3>> ray{};
  std::span<const std::uint32_t> ray_hits{};
  std::string title{};
};

// svg()
//
// The picture of a scene as one SVG document (UTF-8, no script). InvalidArgument, naming the field and
// index, for a box that is not valid (B6), a pair or hit naming no box or a box twice, a query or ray that
// is not finite, a view or mark that is not finite, a focus that is not a valid window, or a Style out of
// range. A box the grid cannot place (over its budgets under kReject) is drawn in palette::kRefused and
// counted in the legend, not refused: a picture of a refused call is what its debugger needs.
//
// Example:
//   std::vector<lwc::Box2> boxes = {{{0, 0}, {10, 2}}, {{9, 0.5}, {9.5, 1.5}}};
//   absl::StatusOr<lwc::PairsResult> r = lwc::find_pairs(boxes, {.cell_size = lwc::CellSize::of<2.0>()});
//   absl::StatusOr<std::string> picture = lwc::draw::svg(lwc::draw::Scene2{
//       .boxes = boxes, .grid = lwc::GridConfig{.cell_size = lwc::CellSize::of<2.0>()}, .pairs = r->pairs,
//       .reference_cells = true});
[[nodiscard]] absl::StatusOr<std::string> svg(const Scene2& scene, const Style& style = {});
[[nodiscard]] absl::StatusOr<std::string> svg(const Scene3& scene, const Style& style = {});

// Band
//
// A run of chunks first..last (both included) on a ChunkLine, in a row above the axis (0 nearest).
struct Band {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::string_view colour = palette::kHit;
  std::string label{};
  int row = 0;  // 0..3
};

// Tick
//
// A point on a ChunkLine: `fraction` in [0, 1] of the way through chunk `chunk`.
struct Tick {
  std::int64_t chunk = 0;
  double fraction = 0;
  std::string_view colour = palette::kInk;
  std::string label{};
};

// ChunkLine
//
// A number line cut into chunks [k * size, (k + 1) * size): a split (D1-D6), a cell (D9, size h), a cover
// (C1-C4). Shown are the chunks of `chunks` (any order, repeats ignored, at most 64), each one slot wide,
// with a break between chunks that are not neighbours, so chunks 2^62 apart share one picture. Borders
// are labelled k * size exactly (int_size) or k·h (real_size, with the exact product's factors in the
// title).
struct ChunkLine {
  std::span<const std::int64_t> chunks{};
  std::optional<std::int64_t> int_size{};
  std::optional<double> real_size{};
  std::span<const Band> bands{};
  std::span<const Tick> ticks{};
  std::string title{};
};

// svg()
//
// InvalidArgument for no chunk or more than 64, both or neither size (a size <= 0, or not finite), a band
// with first > last or a row outside 0..3, a tick outside [0, 1] or in a chunk not shown.
[[nodiscard]] absl::StatusOr<std::string> svg(const ChunkLine& line, const Style& style = {});

// RunCell
//
// A run of chunks on row y, x_first..x_last (both included), as a commit publishes it (lwc.commit).
struct RunCell {
  std::int64_t y = 0;
  std::int64_t x_first = 0;
  std::int64_t x_last = 0;
};

// RunSet
//
// One set of runs in a picture of runs: drawn filled (`filled`) or outlined, in `colour`.
struct RunSet {
  std::span<const RunCell> runs{};
  std::string_view colour = palette::kPair;
  bool filled = true;
  std::string label{};
};

// RunGrid
//
// Chunk runs on a grid of chunk columns and rows: a commit's expected and published runs, what is missing
// and what is extra. Columns and rows are those of the runs' ends and their neighbours, with breaks
// between ranges that are not neighbours (a run may end at INT64_MAX).
struct RunGrid {
  std::span<const RunSet> sets{};
  std::string title{};
};

// svg()
//
// InvalidArgument for a run with x_first > x_last, or more than Style::max_items runs in all.
[[nodiscard]] absl::StatusOr<std::string> svg(const RunGrid& grid, const Style& style = {});

}  // namespace lwc::draw
