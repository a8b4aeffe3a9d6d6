// SPDX-License-Identifier: MIT
// File: draw/draw.cc                    Module: lwc.draw (implementation unit)
//
// The pictures of lwc.draw: a scene (Scene2, and Scene3 as three projections), a chunk line, chunk runs.
// Layout rules that a reader or a test can recompute from the scene are stated where they are applied
// (docs/draw.md collects them).
module;
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
module lwc.draw;

namespace lwc::draw {
namespace {

constexpr double kLegendLine = 16;  // pixels per legend line

// One line of a legend, in the colour of what it explains.
struct LegendLine {
  std::string text;
  std::string_view colour = "#333333";
};
constexpr std::size_t kMaxCellsDrawn = 20000;
constexpr std::int64_t kMaxCellLines = 400;  // per axis
constexpr std::size_t kMaxLabels = 40;

std::string str(std::size_t v) { return integer(static_cast<absl::int128>(static_cast<std::uint64_t>(v))); }
std::string str(std::int64_t v) { return integer(v); }

absl::Status invalid(const std::string& what) { return absl::InvalidArgumentError(what); }

bool finite2(const std::array<double, 2>& p) { return std::isfinite(p[0]) && std::isfinite(p[1]); }

// The name of box i in titles.
std::string box_name(std::span<const std::uint64_t> ids, std::size_t i) {
  return integer(static_cast<absl::int128>(ids.empty() ? static_cast<std::uint64_t>(i) : ids[i]));
}

std::string range_text(const Box2& b) {
  return "x [" + exact(b.min[0]) + " .. " + exact(b.max[0]) + "], y [" + exact(b.min[1]) + " .. " + exact(b.max[1]) + "]";
}

// A box's cells as drawn: its level and cell range there (projected, for 3-D), or not placed.
struct Cells {
  bool placed = false;
  int level = 0;
  std::array<std::int64_t, 2> lo{};
  std::array<std::int64_t, 2> hi{};
  std::string refused;  // why not placed
};

// h * 2^level, exactly (a power-of-two scaling), or 0 when it overflows.
double level_size(double h, int level) {
  const double v = std::ldexp(h, level);
  return std::isfinite(v) ? v : 0.0;
}

template <std::size_t D>
std::vector<Cells> place_all(std::span<const Box<D>> boxes, const GridConfig& config, std::size_t a0, std::size_t a1) {
  std::vector<Cells> out(boxes.size());
  absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(config);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (!spec.ok()) {
      out[i].refused = std::string(spec.status().message());
      continue;
    }
    absl::StatusOr<Placement<D>> p = spec->place(boxes[i], i);
    if (!p.ok()) {
      out[i].refused = std::string(p.status().message());
      continue;
    }
    out[i].placed = true;
    out[i].level = p->level;
    out[i].lo = {p->cells.lo[a0], p->cells.lo[a1]};
    out[i].hi = {p->cells.hi[a0], p->cells.hi[a1]};
  }
  return out;
}

absl::Status check_pairs(std::string_view field, std::span<const Pair> pairs, std::size_t n) {
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Pair& p = pairs[i];
    if (p.a >= n || p.b >= n || p.a == p.b) {
      return invalid(std::string(field) + "[" + str(i) + "] = (" + str(std::size_t{p.a}) + ", " + str(std::size_t{p.b}) +
                     ") does not name two boxes (" + str(n) + " boxes)");
    }
  }
  return absl::OkStatus();
}

absl::Status check_hits(std::string_view field, std::span<const std::uint32_t> hits, std::size_t n) {
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (hits[i] >= n) {
      return invalid(std::string(field) + "[" + str(i) + "] = " + str(std::size_t{hits[i]}) + " names no box (" +
                     str(n) + " boxes)");
    }
  }
  return absl::OkStatus();
}

template <std::size_t D>
absl::Status check_common(std::span<const Box<D>> boxes, std::span<const std::uint64_t> ids, std::span<const Pair> pairs,
                          std::span<const Pair> missed, std::span<const Pair> extra, const std::optional<Box<D>>& query,
                          std::span<const std::uint32_t> query_hits, const std::optional<Segment<D>>& ray,
                          std::span<const std::uint32_t> ray_hits) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    if (absl::Status s = validate_box(boxes[i], i); !s.ok()) return invalid("boxes: " + std::string(s.message()));
  }
  if (!ids.empty() && ids.size() != boxes.size()) {
    return invalid("ids: " + str(ids.size()) + " ids for " + str(boxes.size()) + " boxes (give one per box, or none)");
  }
  if (absl::Status s = check_pairs("pairs", pairs, boxes.size()); !s.ok()) return s;
  if (absl::Status s = check_pairs("missed", missed, boxes.size()); !s.ok()) return s;
  if (absl::Status s = check_pairs("extra", extra, boxes.size()); !s.ok()) return s;
  if (query) {
    if (absl::Status s = validate_box(*query, 0); !s.ok()) return invalid("query: " + std::string(s.message()));
  } else if (!query_hits.empty()) {
    return invalid("query_hits: " + str(query_hits.size()) + " hits but no query");
  }
  if (absl::Status s = check_hits("query_hits", query_hits, boxes.size()); !s.ok()) return s;
  if (ray) {
    if (absl::Status s = validate_segment(*ray); !s.ok()) return invalid("ray: " + std::string(s.message()));
  } else if (!ray_hits.empty()) {
    return invalid("ray_hits: " + str(ray_hits.size()) + " hits but no ray");
  }
  return check_hits("ray_hits", ray_hits, boxes.size());
}

// A grid whose fields contradict each other (GridSpec::create) is the caller's error, not a box's.
template <std::size_t D>
absl::Status check_grid(const std::optional<GridConfig>& grid) {
  if (!grid) return absl::OkStatus();
  absl::StatusOr<GridSpec<D>> spec = GridSpec<D>::create(*grid);
  return spec.ok() ? absl::OkStatus() : invalid("grid: " + std::string(spec.status().message()));
}

absl::Status check_scene(const Scene2& s) {
  if (absl::Status st = check_common<2>(s.boxes, s.ids, s.pairs, s.missed, s.extra, s.query, s.query_hits, s.ray,
                                        s.ray_hits);
      !st.ok()) {
    return st;
  }
  if (s.view) {
    const ViewShape& v = *s.view;
    if (!finite2(v.origin) || !std::isfinite(v.cell_size) || !(v.cell_size > 0) || !std::isfinite(v.bubble) ||
        !(v.bubble >= 0)) {
      return invalid("view: origin (" + exact(v.origin[0]) + ", " + exact(v.origin[1]) + "), cell size " +
                     exact(v.cell_size) + ", bubble " + exact(v.bubble) +
                     ": the origin must be finite, the cell size finite and > 0, the bubble finite and >= 0");
    }
  }
  for (std::size_t i = 0; i < s.marks.size(); ++i) {
    if (!finite2(s.marks[i].at)) return invalid("marks[" + str(i) + "] is not finite");
  }
  if (s.focus) {
    const Window& w = *s.focus;
    if (!std::isfinite(w.x0) || !std::isfinite(w.x1) || !std::isfinite(w.y0) || !std::isfinite(w.y1) || !(w.x0 <= w.x1) ||
        !(w.y0 <= w.y1)) {
      return invalid("focus [" + exact(w.x0) + ", " + exact(w.x1) + "] x [" + exact(w.y0) + ", " + exact(w.y1) +
                     "] is not a finite window with x0 <= x1 and y0 <= y1");
    }
  }
  return absl::OkStatus();
}

// The region of interest when no focus is given: every box, the query, the ray, the view's origin, marks.
Window region_of(const Scene2& s) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Window w{kInf, kInf, -kInf, -kInf};
  const auto add = [&](double x0, double y0, double x1, double y1) {
    w = {std::min(w.x0, x0), std::min(w.y0, y0), std::max(w.x1, x1), std::max(w.y1, y1)};
  };
  for (const Box2& b : s.boxes) add(b.min[0], b.min[1], b.max[0], b.max[1]);
  if (s.query) add(s.query->min[0], s.query->min[1], s.query->max[0], s.query->max[1]);
  if (s.ray) {
    add(s.ray->from[0], s.ray->from[1], s.ray->from[0], s.ray->from[1]);
    add(s.ray->to[0], s.ray->to[1], s.ray->to[0], s.ray->to[1]);
  }
  if (s.view) add(s.view->origin[0], s.view->origin[1], s.view->origin[0], s.view->origin[1]);
  for (const Mark& m : s.marks) add(m.at[0], m.at[1], m.at[0], m.at[1]);
  if (w.x0 > w.x1) return {0, 0, 1, 1};
  return w;
}

// What one plot draws: the scene, its boxes' cells, the plot's place in the document.
struct Plot {
  const Scene2& scene;
  std::span<const Cells> cells;  // one per box when the scene has a grid
  const Style& style;
  double x, y, width, height;
  std::string attributes;  // data-* of the plot element
};

class Painter {
 public:
  Painter(Svg& svg, const Plot& plot, std::vector<LegendLine>& legend)
      : svg_(svg), p_(plot), s_(plot.scene), legend_(legend),
        frame_(Frame::framed(s_.focus ? *s_.focus : region_of(s_), s_.grid ? s_.grid->cell_size.value() : 1.0),
               plot.width, plot.height) {}

  void paint() {
    svg_.open_plot(p_.x, p_.y, p_.width, p_.height, p_.attributes);
    std::size_t in_view = 0;
    for (const Box2& b : s_.boxes) in_view += visible(b) ? 1 : 0;
    dense_ = in_view > p_.style.dense_boxes;
    if (s_.grid) cell_lines();
    if (s_.grid && s_.cells && !dense_) occupied_cells();
    if (s_.grid && s_.cells && dense_) legend_.push_back({"occupied cells not drawn: aggregated, as the boxes are"});
    if (dense_) raster(); else boxes();
    if (s_.view) view();
    pairs();
    if (s_.query) query();
    if (s_.ray) ray();
    extra();
    missed();
    marks();
    labels();
    svg_.close_plot();
    levels_legend();
  }

 private:
  double X(double v) const { return frame_.x(v); }
  double Y(double v) const { return frame_.y(v); }
  bool visible(const Box2& b) const { return frame_.meets(b.min[0], b.min[1], b.max[0], b.max[1]); }
  std::string name(std::size_t i) const { return box_name(s_.ids, i); }

  // A box, drawn as a rectangle, or as a line or a dot when it is thinner than a pixel on an axis.
  void shape(const Box2& b, std::string_view colour, double width, std::string_view dash, std::string_view title,
             std::string_view fill_colour = {}, double fill_opacity = 0) {
    const double x0 = X(b.min[0]), x1 = X(b.max[0]), y0 = Y(b.min[1]), y1 = Y(b.max[1]);
    const bool thin_x = x1 - x0 < 1, thin_y = y0 - y1 < 1;
    if (thin_x && thin_y) {
      svg_.circle((x0 + x1) / 2, (y0 + y1) / 2, width + 1.5, fill(colour), title);
    } else if (thin_x || thin_y) {
      std::string st = stroke(colour, width + 0.5, dash);
      svg_.line(thin_x ? (x0 + x1) / 2 : x0, thin_y ? (y0 + y1) / 2 : y0, thin_x ? (x0 + x1) / 2 : x1,
                thin_y ? (y0 + y1) / 2 : y1, st, title);
    } else {
      std::string st = stroke(colour, width, dash);
      if (!fill_colour.empty()) {
        st = "fill=\"" + std::string(fill_colour) + "\" fill-opacity=\"" + Svg::num(fill_opacity) + "\"" +
             st.substr(std::string_view("fill=\"none\"").size());
      }
      svg_.rect(x0, y0, x1, y1, st, title);
    }
  }

  // Where two things meet (a box and a query, two missed boxes): the region shaded in `colour`, and an
  // opaque square of `least` pixels at its centre, so that the colour at that point is what a person sees
  // whatever lies under it. A thin region (a segment, a point) is drawn `least` pixels thick.
  void marker(double wx0, double wy0, double wx1, double wy1, std::string_view colour, double least,
              std::string_view title) {
    double x0 = X(wx0), x1 = X(wx1), y0 = Y(wy1), y1 = Y(wy0);
    const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    if (x1 - x0 < least) x0 = cx - least / 2, x1 = cx + least / 2;
    if (y1 - y0 < least) y0 = cy - least / 2, y1 = cy + least / 2;
    if (x1 - x0 > least || y1 - y0 > least) svg_.rect(x0, y0, x1, y1, fill(colour, 0.4), title);
    svg_.rect(cx - least / 2, cy - least / 2, cx + least / 2, cy + least / 2, fill(colour), title);
  }

  void cell_lines() {
    const double h = s_.grid->cell_size.value();
    const Window& w = frame_.window();
    const absl::StatusOr<std::int64_t> kx0 = cell_of(w.x0, h), kx1 = cell_of(w.x1, h), ky0 = cell_of(w.y0, h),
                                       ky1 = cell_of(w.y1, h);
    if (!kx0.ok() || !kx1.ok() || !ky0.ok() || !ky1.ok()) {
      legend_.push_back({"cell lines not drawn: the window's cells are outside int64"});
      return;
    }
    const absl::int128 nx = absl::int128(*kx1) - *kx0 + 1, ny = absl::int128(*ky1) - *ky0 + 1;
    if (nx > kMaxCellLines || ny > kMaxCellLines || h * frame_.scale() < 3) {
      legend_.push_back({"cell lines not drawn: " + integer(nx) + " x " + integer(ny) +
                         " cells across the window, under 3 pixels each"});
      return;
    }
    svg_.open_group("cell-lines", "cell lines of level 0, every h = " + exact(h));
    const std::string st = stroke(palette::kCellLine, 1);
    for (absl::int128 k = absl::int128(*kx0) + 1; k <= *kx1; ++k) {
      const double v = static_cast<double>(static_cast<std::int64_t>(k)) * h;
      svg_.line(X(v), 0, X(v), p_.height, st, "x = " + integer(k) + "·h (h = " + exact(h) + ")");
    }
    for (absl::int128 k = absl::int128(*ky0) + 1; k <= *ky1; ++k) {
      const double v = static_cast<double>(static_cast<std::int64_t>(k)) * h;
      svg_.line(0, Y(v), p_.width, Y(v), st, "y = " + integer(k) + "·h (h = " + exact(h) + ")");
    }
    svg_.close_group();
    legend_.push_back({"grey lines: cell borders of level 0, every h = " + exact(h)});
  }

  void occupied_cells() {
    const double h = s_.grid->cell_size.value();
    absl::flat_hash_set<std::tuple<int, std::int64_t, std::int64_t>> seen;
    std::size_t drawn = 0, tiny = 0;
    bool capped = false;
    svg_.open_group("cells", "occupied cells: each box's cells at its level (B8, B11)");
    for (std::size_t i = 0; i < p_.cells.size() && !capped; ++i) {
      const Cells& c = p_.cells[i];
      if (!c.placed) continue;
      const double hk = level_size(h, c.level);
      if (hk == 0) continue;
      if (hk * frame_.scale() < 2) {  // cells under 2 pixels: a grey wash, not information
        ++tiny;
        continue;
      }
      // Only the cells that meet the window: a box may span thousands of cells beyond it.
      const Window& w = frame_.window();
      const absl::StatusOr<std::int64_t> wx0 = cell_of(w.x0, hk), wx1 = cell_of(w.x1, hk), wy0 = cell_of(w.y0, hk),
                                         wy1 = cell_of(w.y1, hk);
      const std::int64_t ix0 = wx0.ok() ? std::max(c.lo[0], *wx0) : c.lo[0];
      const std::int64_t ix1 = wx1.ok() ? std::min(c.hi[0], *wx1) : c.hi[0];
      const std::int64_t iy0 = wy0.ok() ? std::max(c.lo[1], *wy0) : c.lo[1];
      const std::int64_t iy1 = wy1.ok() ? std::min(c.hi[1], *wy1) : c.hi[1];
      for (absl::int128 jj = iy0; jj <= iy1 && !capped; ++jj) {
        for (absl::int128 kk = ix0; kk <= ix1; ++kk) {
          const auto j = static_cast<std::int64_t>(jj), k = static_cast<std::int64_t>(kk);
          if (!seen.insert({c.level, k, j}).second) continue;
          if (drawn == kMaxCellsDrawn) {
            capped = true;
            break;
          }
          ++drawn;
          const Box2 cell{{static_cast<double>(k) * hk, static_cast<double>(j) * hk},
                          {static_cast<double>(k) * hk + hk, static_cast<double>(j) * hk + hk}};
          const std::string title = "cell (" + str(k) + ", " + str(j) + ") of level " + str(std::int64_t{c.level}) +
                                    " (cell size " + exact(hk) + ")";
          if (c.level == 0) {
            svg_.rect(X(cell.min[0]), Y(cell.min[1]), X(cell.max[0]), Y(cell.max[1]), fill(palette::kCell), title);
          } else {
            svg_.rect(X(cell.min[0]), Y(cell.min[1]), X(cell.max[0]), Y(cell.max[1]),
                      "fill=\"" + std::string(palette::kCoarse) + "\" fill-opacity=\"0.08\" stroke=\"" +
                          std::string(palette::kCoarse) + "\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"",
                      title);
          }
        }
      }
    }
    svg_.close_group();
    legend_.push_back({str(drawn) + " occupied cells drawn" + (capped ? " (the first " + str(kMaxCellsDrawn) + ")" : "") +
                       "; shaded: level 0; dashed: coarser levels (h·2^k)" +
                       (tiny > 0 ? "; not drawn: the cells of " + str(tiny) + " boxes, under 2 pixels" : "")});
  }

  void boxes() {
    std::size_t refused = 0;
    svg_.open_group("boxes");
    for (std::size_t i = 0; i < s_.boxes.size(); ++i) {
      const Box2& b = s_.boxes[i];
      const bool placed = p_.cells.empty() || p_.cells[i].placed;
      if (!placed) ++refused;
      if (!visible(b)) continue;
      std::string title = "box " + name(i) + ": " + range_text(b);
      if (!p_.cells.empty() && placed) {
        const Cells& c = p_.cells[i];
        title += "; level " + str(std::int64_t{c.level}) + ", cells (" + str(c.lo[0]) + ", " + str(c.lo[1]) + ") .. (" +
                 str(c.hi[0]) + ", " + str(c.hi[1]) + ")";
      }
      if (!placed) title += "; refused by the grid: " + p_.cells[i].refused;
      shape(b, placed ? palette::kBox : palette::kRefused, placed ? 1 : 1.5, placed ? "" : "4 2", title);
    }
    svg_.close_group();
    legend_.push_back({str(s_.boxes.size()) + " boxes, each drawn" +
                       (refused > 0 ? "; " + str(refused) + " the grid refuses (pink, dashed)" : "")});
  }

  // Past Style::dense_boxes: the number of boxes that meet each bin of bin_pixels x bin_pixels, white
  // (none) to dark blue (the most), on a log scale; runs of equal shade along a row are one rectangle,
  // whose title gives its boxes per bin and its world extent.
  void raster() {
    const double bin = p_.style.bin_pixels;
    const auto nx = static_cast<std::size_t>(std::ceil(p_.width / bin));
    const auto ny = static_cast<std::size_t>(std::ceil(p_.height / bin));
    std::vector<std::int64_t> count((nx + 1) * (ny + 1), 0);
    const auto index = [&](double px, std::size_t n) {
      return static_cast<std::size_t>(std::clamp(std::floor(px / bin), 0.0, static_cast<double>(n - 1)));
    };
    std::size_t refused = 0;
    for (std::size_t i = 0; i < s_.boxes.size(); ++i) {
      const Box2& b = s_.boxes[i];
      if (!p_.cells.empty() && !p_.cells[i].placed) ++refused;
      if (!visible(b)) continue;
      const std::size_t i0 = index(X(b.min[0]), nx), i1 = index(X(b.max[0]), nx);
      const std::size_t j0 = index(Y(b.max[1]), ny), j1 = index(Y(b.min[1]), ny);
      count[j0 * (nx + 1) + i0] += 1;
      count[j0 * (nx + 1) + i1 + 1] -= 1;
      count[(j1 + 1) * (nx + 1) + i0] -= 1;
      count[(j1 + 1) * (nx + 1) + i1 + 1] += 1;
    }
    for (std::size_t j = 0; j <= ny; ++j) {  // 2-D prefix sums: count[j][i] = boxes meeting bin (i, j)
      for (std::size_t i = 0; i <= nx; ++i) {
        std::int64_t v = count[j * (nx + 1) + i];
        if (i > 0) v += count[j * (nx + 1) + i - 1];
        if (j > 0) v += count[(j - 1) * (nx + 1) + i];
        if (i > 0 && j > 0) v -= count[(j - 1) * (nx + 1) + i - 1];
        count[j * (nx + 1) + i] = v;
      }
    }
    std::int64_t most = 0;
    for (std::size_t j = 0; j < ny; ++j) {
      for (std::size_t i = 0; i < nx; ++i) most = std::max(most, count[j * (nx + 1) + i]);
    }
    const auto shade = [&](std::int64_t c) {
      if (c == 0) return 0;
      const double t = std::log1p(static_cast<double>(c)) / std::log1p(static_cast<double>(std::max<std::int64_t>(most, 1)));
      return 1 + static_cast<int>(std::round(t * 31));  // 1..32
    };
    svg_.open_group("density", "boxes per " + Svg::num(bin) + "-pixel bin (aggregated: more than " +
                                   str(p_.style.dense_boxes) + " boxes)");
    const double s = frame_.scale();
    const auto world_x = [&](double px) { return frame_.window().x0 / 2 + frame_.window().x1 / 2 + (px - p_.width / 2) / s; };
    const auto world_y = [&](double py) { return frame_.window().y0 / 2 + frame_.window().y1 / 2 - (py - p_.height / 2) / s; };
    for (std::size_t j = 0; j < ny; ++j) {
      std::size_t i = 0;
      while (i < nx) {
        const int level = shade(count[j * (nx + 1) + i]);
        std::size_t e = i;
        std::int64_t lo = count[j * (nx + 1) + i], hi = lo;
        while (e + 1 < nx && shade(count[j * (nx + 1) + e + 1]) == level) {
          ++e;
          lo = std::min(lo, count[j * (nx + 1) + e]);
          hi = std::max(hi, count[j * (nx + 1) + e]);
        }
        if (level > 0) {
          const double t = 0.15 + 0.85 * (level - 1) / 31.0;
          std::array<int, 3> rgb{};
          for (int k = 0; k < 3; ++k) {
            rgb[static_cast<std::size_t>(k)] =
                static_cast<int>(std::round(255 * (1 - t) + palette::kDense[static_cast<std::size_t>(k)] * t));
          }
          const double px0 = static_cast<double>(i) * bin, px1 = static_cast<double>(e + 1) * bin;
          const double py0 = static_cast<double>(j) * bin, py1 = static_cast<double>(j + 1) * bin;
          svg_.rect(px0, py0, px1, py1,
                    "fill=\"rgb(" + str(std::int64_t{rgb[0]}) + "," + str(std::int64_t{rgb[1]}) + "," +
                        str(std::int64_t{rgb[2]}) + ")\"",
                    (lo == hi ? str(lo) : str(lo) + " to " + str(hi)) + " boxes per bin; x about [" +
                        exact(world_x(px0)) + " .. " + exact(world_x(px1)) + "], y about [" + exact(world_y(py1)) +
                        " .. " + exact(world_y(py0)) + "]");
        }
        i = e + 1;
      }
    }
    svg_.close_group();
    legend_.push_back({str(s_.boxes.size()) + " boxes, aggregated: shade = boxes meeting each " + Svg::num(bin) + "x" +
                       Svg::num(bin) + "-pixel bin (log scale, darkest " + str(most) + ")" +
                       (refused > 0 ? "; " + str(refused) + " the grid refuses" : "")});
  }

  void view() {
    const ViewShape& v = *s_.view;
    svg_.open_group("view", "view: " + v.label);
    const double ox = v.origin[0], oy = v.origin[1];
    svg_.rect(X(ox - v.bubble), Y(oy - v.bubble), X(ox + v.bubble), Y(oy + v.bubble), stroke(palette::kView, 1.5, "6 3"),
              "render bubble: " + exact(v.bubble) + " units around the origin (" + v.label + ")");
    svg_.rect(X(ox), Y(oy), X(ox + v.cell_size), Y(oy + v.cell_size), fill(palette::kView, 0.25),
              "origin cell, corner (" + exact(ox) + ", " + exact(oy) + "), side " + exact(v.cell_size) + " (" + v.label + ")");
    const std::string st = stroke(palette::kInk, 2);
    svg_.line(X(ox) - 7, Y(oy), X(ox) + 7, Y(oy), st, "origin (" + v.label + ")");
    svg_.line(X(ox), Y(oy) - 7, X(ox), Y(oy) + 7, st, "origin (" + v.label + ")");
    svg_.close_group();
    legend_.push_back({"view: " + v.label + " (cross: origin; shaded: origin cell; dashed: bubble)", palette::kView});
  }

  static std::optional<Box2> intersection(const Box2& a, const Box2& b) {
    Box2 i{};
    for (std::size_t k = 0; k < 2; ++k) {
      i.min[k] = std::max(a.min[k], b.min[k]);
      i.max[k] = std::min(a.max[k], b.max[k]);
      if (i.min[k] > i.max[k]) return std::nullopt;
    }
    return i;
  }

  std::string pair_name(const Pair& p) const { return "(" + name(p.a) + ", " + name(p.b) + ")"; }

  std::string drawn_of(std::size_t drawn, std::size_t all) const {
    return drawn == all ? str(all) : "the first " + str(drawn) + " of " + str(all);
  }

  void pairs() {
    if (s_.pairs.empty()) return;
    const std::size_t n = std::min(s_.pairs.size(), p_.style.max_items);
    svg_.open_group("pairs");
    for (std::size_t i = 0; i < n; ++i) {
      const Pair& p = s_.pairs[i];
      const Box2 &a = s_.boxes[p.a], &b = s_.boxes[p.b];
      const std::optional<Box2> meet = intersection(a, b);
      if (!meet) {
        svg_.line(X((a.min[0] + a.max[0]) / 2), Y((a.min[1] + a.max[1]) / 2), X((b.min[0] + b.max[0]) / 2),
                  Y((b.min[1] + b.max[1]) / 2), stroke(palette::kPair, 1, "3 3"),
                  "pair " + pair_name(p) + ": the boxes do not meet");
        continue;
      }
      if (visible(*meet)) {
        shape(*meet, palette::kPair, 1, "", "pair " + pair_name(p) + ": they share " + range_text(*meet), palette::kPair, 0.45);
      }
      if (s_.reference_cells && !p_.cells.empty()) reference_cell(p, *meet);
    }
    svg_.close_group();
    legend_.push_back({"pairs (blue: where the boxes meet): " + drawn_of(n, s_.pairs.size()) + " drawn" +
                           (s_.reference_cells && !p_.cells.empty() ? "; olive: each pair's reference cell (B9)" : ""),
                       palette::kPair});
  }

  // The reference cell of an overlapping pair (B9): the cell of the lower corner of the intersection, on
  // the coarser of the two boxes' levels (B11: the finer box meets the coarser one there).
  void reference_cell(const Pair& p, const Box2& meet) {
    const Cells &ca = p_.cells[p.a], &cb = p_.cells[p.b];
    if (!ca.placed || !cb.placed) return;
    const int level = std::max(ca.level, cb.level);
    const double hk = level_size(s_.grid->cell_size.value(), level);
    if (hk == 0) return;
    const absl::StatusOr<std::int64_t> i = cell_of(meet.min[0], hk), j = cell_of(meet.min[1], hk);
    if (!i.ok() || !j.ok()) return;
    const double x0 = static_cast<double>(*i) * hk, y0 = static_cast<double>(*j) * hk;
    svg_.rect(X(x0), Y(y0), X(x0 + hk), Y(y0 + hk), stroke(palette::kReference, 2.5),
              "reference cell of pair " + pair_name(p) + ": (" + str(*i) + ", " + str(*j) + ") of level " +
                  str(std::int64_t{level}) + ", the cell of the intersection's lower corner (" + exact(meet.min[0]) + ", " +
                  exact(meet.min[1]) + ")");
  }

  void query() {
    const Box2& q = *s_.query;
    svg_.open_group("query");
    shape(q, palette::kHit, 2, "6 3", "query box: " + range_text(q));
    const std::size_t n = std::min(s_.query_hits.size(), p_.style.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t h = s_.query_hits[i];
      const Box2& b = s_.boxes[h];
      label(h);
      shape(b, palette::kHit, 1.5, "", "query hit: box " + name(h) + ": " + range_text(b));
      const std::optional<Box2> meet = intersection(b, q);
      if (meet) {
        marker(meet->min[0], meet->min[1], meet->max[0], meet->max[1], palette::kHit, 7,
               "query hit: box " + name(h) + " meets the query at " + range_text(*meet));
      } else {
        svg_.circle(X((b.min[0] + b.max[0]) / 2), Y((b.min[1] + b.max[1]) / 2), 5, stroke(palette::kHit, 2, "2 2"),
                    "listed as a hit, but box " + name(h) + " does not meet the query");
      }
    }
    svg_.close_group();
    legend_.push_back({"query (green, dashed) and its hits (green: where each meets it): " +
                           drawn_of(n, s_.query_hits.size()) + " drawn",
                       palette::kHit});
  }

  void ray() {
    const Segment<2>& r = *s_.ray;
    svg_.open_group("ray");
    svg_.line(X(r.from[0]), Y(r.from[1]), X(r.to[0]), Y(r.to[1]), stroke(palette::kRay, 2),
              "ray from (" + exact(r.from[0]) + ", " + exact(r.from[1]) + ") to (" + exact(r.to[0]) + ", " + exact(r.to[1]) + ")");
    svg_.circle(X(r.to[0]), Y(r.to[1]), 4, stroke(palette::kRay, 2), "end of the ray");
    const std::size_t n = std::min(s_.ray_hits.size(), p_.style.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t h = s_.ray_hits[i];
      const Box2& b = s_.boxes[h];
      double t = 0;
      if (!ray_entry(b, r, t)) {
        shape(b, palette::kRay, 1.5, "3 2", "listed as a ray hit, but the segment misses box " + name(h));
        continue;
      }
      label(h);
      shape(b, palette::kRay, 1.5, "", "ray hit: box " + name(h) + ": " + range_text(b));
      const double ex = r.from[0] + t * (r.to[0] - r.from[0]), ey = r.from[1] + t * (r.to[1] - r.from[1]);
      svg_.circle(X(ex), Y(ey), 4.5, fill(palette::kRay),
                  "ray hit " + str(i) + ": box " + name(h) + " entered at t = " + exact(t) + ", (" + exact(ex) + ", " + exact(ey) + ")");
    }
    svg_.close_group();
    legend_.push_back({"ray (purple) and its hits (dots: entry points, in order of entry): " +
                           drawn_of(n, s_.ray_hits.size()) + " drawn",
                       palette::kRay});
  }

  // The two boxes of a missed or extra pair, labelled (unless the scene asks for the places only).
  void both_boxes(const Pair& p, std::string_view what, std::string_view colour, std::string_view fill_colour) {
    if (!s_.pair_boxes) return;
    for (const std::uint32_t i : {p.a, p.b}) {
      label(i);
      shape(s_.boxes[i], colour, 2, "", std::string(what) + " pair " + pair_name(p) + ": box " + name(i) + ": " +
                                         range_text(s_.boxes[i]),
            fill_colour, 0.12);
    }
  }

  void extra() {
    if (s_.extra.empty()) return;
    const std::size_t n = std::min(s_.extra.size(), p_.style.max_items);
    svg_.open_group("extra");
    for (std::size_t i = 0; i < n; ++i) {
      const Pair& p = s_.extra[i];
      const Box2 &a = s_.boxes[p.a], &b = s_.boxes[p.b];
      both_boxes(p, "extra", palette::kExtra, {});
      // The gap: per axis, from the end of the lower box to the start of the higher one (or the middle of
      // their overlap on an axis where they overlap).
      std::array<double, 2> from{}, to{};
      std::string gaps;
      for (std::size_t k = 0; k < 2; ++k) {
        if (a.max[k] < b.min[k]) {
          from[k] = a.max[k], to[k] = b.min[k];
        } else if (b.max[k] < a.min[k]) {
          from[k] = b.max[k], to[k] = a.min[k];
        } else {
          from[k] = to[k] = std::max(a.min[k], b.min[k]) / 2 + std::min(a.max[k], b.max[k]) / 2;
        }
        gaps += std::string(k == 0 ? "x" : ", y") + " gap " + exact(to[k] - from[k]);
      }
      const std::string title = "extra pair " + pair_name(p) + ": the boxes do not meet (" + gaps + ")";
      svg_.line(X(from[0]), Y(from[1]), X(to[0]), Y(to[1]), stroke(palette::kExtra, 3), title);
      marker(from[0] / 2 + to[0] / 2, from[1] / 2 + to[1] / 2, from[0] / 2 + to[0] / 2, from[1] / 2 + to[1] / 2,
             palette::kExtra, 9, title);
    }
    svg_.close_group();
    legend_.push_back(
        {"extra pairs (orange: both boxes, the gap between them): " + drawn_of(n, s_.extra.size()) + " drawn", palette::kExtra});
  }

  void missed() {
    if (s_.missed.empty()) return;
    const std::size_t n = std::min(s_.missed.size(), p_.style.max_items);
    svg_.open_group("missed");
    for (std::size_t i = 0; i < n; ++i) {
      const Pair& p = s_.missed[i];
      const Box2 &a = s_.boxes[p.a], &b = s_.boxes[p.b];
      both_boxes(p, "missed", palette::kMissed, palette::kMissed);
      const std::optional<Box2> meet = intersection(a, b);
      if (!meet) {
        svg_.line(X((a.min[0] + a.max[0]) / 2), Y((a.min[1] + a.max[1]) / 2), X((b.min[0] + b.max[0]) / 2),
                  Y((b.min[1] + b.max[1]) / 2), stroke(palette::kMissed, 1.5, "3 3"),
                  "listed as missed, but boxes " + pair_name(p) + " do not meet");
        continue;
      }
      marker(meet->min[0], meet->min[1], meet->max[0], meet->max[1], palette::kMissed, 7,
             "missed pair " + pair_name(p) + ": the closed boxes share " + range_text(*meet));
    }
    svg_.close_group();
    legend_.push_back(
        {"missed pairs (red: both boxes, solid where they meet): " + drawn_of(n, s_.missed.size()) + " drawn", palette::kMissed});
  }

  void marks() {
    const std::size_t n = std::min(s_.marks.size(), p_.style.max_items);
    for (std::size_t i = 0; i < n; ++i) {
      const Mark& m = s_.marks[i];
      const std::string title = m.label + " at (" + exact(m.at[0]) + ", " + exact(m.at[1]) + ")";
      svg_.circle(X(m.at[0]), Y(m.at[1]), 5.5, fill(m.colour), title);
      const bool right = X(m.at[0]) > p_.width * 0.6;  // a label that would leave the plot goes to the left
      svg_.text(X(m.at[0]) + (right ? -9 : 9), Y(m.at[1]) - 7, m.label, "fill=\"" + std::string(m.colour) + "\"",
                right ? "end" : "start");
    }
  }

  // Ids beside the highlighted boxes (at most kMaxLabels, so a dense picture stays legible).
  void label(std::size_t i) {
    if (std::find(labelled_.begin(), labelled_.end(), i) == labelled_.end()) labelled_.push_back(i);
  }
  void labels() {
    if (labelled_.size() > kMaxLabels) return;
    for (const std::size_t i : labelled_) {
      const Box2& b = s_.boxes[i];
      if (!visible(b)) continue;
      svg_.text(X(b.min[0]) + 3, Y(b.max[1]) - 4, name(i), "fill=\"" + std::string(palette::kInk) + "\" font-size=\"11\"");
    }
  }

  void levels_legend() {
    if (!s_.grid || p_.cells.empty()) return;
    std::vector<std::size_t> per_level;
    for (const Cells& c : p_.cells) {
      if (!c.placed) continue;
      const auto l = static_cast<std::size_t>(c.level);
      if (per_level.size() <= l) per_level.resize(l + 1, 0);
      ++per_level[l];
    }
    std::string text = "grid: cell size h = " + exact(s_.grid->cell_size.value()) + "; boxes per level:";
    for (std::size_t l = 0; l < per_level.size(); ++l) {
      if (per_level[l] > 0) text += " " + str(l) + ": " + str(per_level[l]);
    }
    legend_.push_back({text});
  }

  Svg& svg_;
  const Plot& p_;
  const Scene2& s_;
  std::vector<LegendLine>& legend_;
  Frame frame_;
  bool dense_ = false;
  std::vector<std::size_t> labelled_;
};

// The legend: one line each below the plot(s); the document's height grows to hold it.
void legend(Svg& svg, double top, const std::string& title, const std::vector<LegendLine>& lines) {
  double y = top + kLegendLine;
  if (!title.empty()) {
    svg.text(6, y, title, "font-weight=\"bold\"");
    y += kLegendLine;
  }
  for (const LegendLine& l : lines) {
    svg.text(6, y, l.text, "fill=\"" + std::string(l.colour) + "\" font-size=\"11\"");
    y += kLegendLine;
  }
}

double legend_height(const std::string& title, std::size_t lines) {
  return kLegendLine * static_cast<double>(lines + (title.empty() ? 0 : 1)) + 8;
}

// The lines of a scene's legend, counted before painting (the plot's height depends on it): boxes, and
// each feature present.
std::size_t legend_lines(const Scene2& s) {
  std::size_t n = 1;
  if (s.grid) n += 2 + (s.cells ? 1 : 0);
  n += (s.view ? 1 : 0) + (s.pairs.empty() ? 0 : 1) + (s.query ? 1 : 0) + (s.ray ? 1 : 0) + (s.extra.empty() ? 0 : 1) +
       (s.missed.empty() ? 0 : 1);
  return n;
}

}  // namespace

absl::Status check_style(const Style& s) {
  const auto bad = [](std::string_view field, std::int64_t v, std::string_view range) {
    return invalid("style." + std::string(field) + " " + str(v) + " is outside " + std::string(range));
  };
  if (s.width < 160 || s.width > 8192) return bad("width", s.width, "[160, 8192]");
  if (s.height < 120 || s.height > 8192) return bad("height", s.height, "[120, 8192]");
  if (s.bin_pixels < 1 || s.bin_pixels > 64) return bad("bin_pixels", s.bin_pixels, "[1, 64]");
  if (s.dense_boxes < 1) return bad("dense_boxes", 0, "[1, inf)");
  if (s.max_items < 1) return bad("max_items", 0, "[1, inf)");
  return absl::OkStatus();
}

absl::StatusOr<std::string> svg(const Scene2& scene, const Style& style) {
  if (absl::Status s = check_style(style); !s.ok()) return s;
  if (absl::Status s = check_scene(scene); !s.ok()) return s;
  if (absl::Status s = check_grid<2>(scene.grid); !s.ok()) return s;
  std::vector<Cells> cells;
  if (scene.grid) cells = place_all<2>(scene.boxes, *scene.grid, 0, 1);
  const double width = style.width;
  const double plot_height = std::max(60.0, style.height - legend_height(scene.title, legend_lines(scene)));
  Svg doc(width, style.height, "scene2");
  std::vector<LegendLine> lines;
  const Plot plot{scene, cells, style, 0, 0, width, plot_height, "data-axes=\"x y\""};
  Painter(doc, plot, lines).paint();
  legend(doc, plot_height, scene.title, lines);
  return std::move(doc).finish();
}

absl::StatusOr<std::string> svg(const Scene3& scene, const Style& style) {
  if (absl::Status s = check_style(style); !s.ok()) return s;
  if (absl::Status s = check_common<3>(scene.boxes, scene.ids, scene.pairs, scene.missed, scene.extra, scene.query,
                                       scene.query_hits, scene.ray, scene.ray_hits);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = check_grid<3>(scene.grid); !s.ok()) return s;
  constexpr std::array<std::array<std::size_t, 2>, 3> kAxes = {{{0, 1}, {0, 2}, {1, 2}}};
  constexpr std::array<std::string_view, 3> kNames = {"x y", "x z", "y z"};
  const double panel = std::floor(style.width / 3.0);
  Svg doc(style.width, style.height, "scene3");
  std::vector<LegendLine> lines;
  double plot_height = 0;
  for (std::size_t v = 0; v < 3; ++v) {
    const auto [a0, a1] = kAxes[v];
    const auto flat = [&](const Box3& b) { return Box2{{b.min[a0], b.min[a1]}, {b.max[a0], b.max[a1]}}; };
    std::vector<Box2> boxes;
    boxes.reserve(scene.boxes.size());
    for (const Box3& b : scene.boxes) boxes.push_back(flat(b));
    std::vector<Cells> cells;
    if (scene.grid) cells = place_all<3>(scene.boxes, *scene.grid, a0, a1);
    Scene2 s;
    s.boxes = boxes;
    s.ids = scene.ids;
    s.grid = scene.grid;
    s.cells = scene.cells;
    s.pairs = scene.pairs;
    s.missed = scene.missed;
    s.extra = scene.extra;
    s.pair_boxes = scene.pair_boxes;
    if (scene.query) s.query = flat(*scene.query);
    s.query_hits = scene.query_hits;
    if (scene.ray) s.ray = Segment<2>{{scene.ray->from[a0], scene.ray->from[a1]}, {scene.ray->to[a0], scene.ray->to[a1]}};
    s.ray_hits = scene.ray_hits;
    plot_height = std::max(60.0, style.height - legend_height(scene.title, legend_lines(s)));
    std::vector<LegendLine> panel_lines;
    const Plot plot{s, cells, style, static_cast<double>(v) * panel, 20, panel - 4, plot_height - 20,
                    "data-axes=\"" + std::string(kNames[v]) + "\""};
    Painter(doc, plot, panel_lines).paint();
    doc.text(static_cast<double>(v) * panel + 6, 16, std::string(kNames[v]) + " projection", "font-weight=\"bold\"");
    if (v == 0) lines = std::move(panel_lines);
  }
  legend(doc, plot_height, scene.title, lines);
  return std::move(doc).finish();
}

namespace {

// Slots of an axis of integers: the values shown, in order, each one slot; a break between two values
// that are not neighbours. Used by the chunk line (chunks) and the run grid (columns and rows).
struct Slots {
  std::vector<std::int64_t> values;  // sorted, unique
  std::vector<int> breaks_before;    // breaks before slot i

  explicit Slots(std::vector<std::int64_t> v) : values(std::move(v)) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    int breaks = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0 && absl::int128(values[i]) - values[i - 1] > 1) ++breaks;
      breaks_before.push_back(breaks);
    }
  }
  [[nodiscard]] int breaks() const { return breaks_before.empty() ? 0 : breaks_before.back(); }
  // The slot of v, or -1 when v is not shown.
  [[nodiscard]] int slot(std::int64_t v) const {
    const auto it = std::lower_bound(values.begin(), values.end(), v);
    return it != values.end() && *it == v ? static_cast<int>(it - values.begin()) : -1;
  }
  // The first slot whose value is >= v (values.size() when none), and the last whose value is <= v (-1).
  [[nodiscard]] int first_at_least(std::int64_t v) const {
    return static_cast<int>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
  }
  [[nodiscard]] int last_at_most(std::int64_t v) const {
    return static_cast<int>(std::upper_bound(values.begin(), values.end(), v) - values.begin()) - 1;
  }
};

// Values v - 1, v, v + 1 (within int64).
void with_neighbours(std::vector<std::int64_t>& out, std::int64_t v) {
  if (v > std::numeric_limits<std::int64_t>::min()) out.push_back(v - 1);
  out.push_back(v);
  if (v < std::numeric_limits<std::int64_t>::max()) out.push_back(v + 1);
}

}  // namespace

// Layout of a chunk line (docs/draw.md): margins of 30 px, a break of 28 px between chunks that are not
// neighbours, every shown chunk one slot of (width - 60 - 28 * breaks) / n pixels; the axis at 60 px above
// the plot's bottom; tick k at x = 30 + slot * w + 28 * breaks before it + fraction * w, a bar from 10 px
// above the axis to 26 px below it; band row r from 24 + 20 r to 40 + 20 r px above the axis.
absl::StatusOr<std::string> svg(const ChunkLine& line, const Style& style) {
  if (absl::Status s = check_style(style); !s.ok()) return s;
  if (line.int_size.has_value() == line.real_size.has_value()) {
    return invalid("chunk line: give exactly one of int_size and real_size");
  }
  if (line.int_size && *line.int_size <= 0) return invalid("chunk line: int_size " + str(*line.int_size) + " is not > 0");
  if (line.real_size && !(std::isfinite(*line.real_size) && *line.real_size > 0)) {
    return invalid("chunk line: real_size " + exact(*line.real_size) + " is not finite and > 0");
  }
  const Slots slots(std::vector<std::int64_t>(line.chunks.begin(), line.chunks.end()));
  if (slots.values.empty() || slots.values.size() > 64) {
    return invalid("chunk line: " + str(slots.values.size()) + " chunks to show; give 1 to 64");
  }
  for (std::size_t i = 0; i < line.bands.size(); ++i) {
    const Band& b = line.bands[i];
    if (b.first > b.last || b.row < 0 || b.row > 3) {
      return invalid("chunk line: bands[" + str(i) + "] (" + str(b.first) + ".." + str(b.last) + ", row " +
                     str(std::int64_t{b.row}) + ") needs first <= last and a row in 0..3");
    }
  }
  for (std::size_t i = 0; i < line.ticks.size(); ++i) {
    const Tick& t = line.ticks[i];
    if (!(t.fraction >= 0 && t.fraction <= 1) || slots.slot(t.chunk) < 0) {
      return invalid("chunk line: ticks[" + str(i) + "] (chunk " + str(t.chunk) + ", fraction " + exact(t.fraction) +
                     ") needs a fraction in [0, 1] and a chunk that is shown");
    }
  }
  const std::size_t legend_lines = 1 + line.bands.size() + line.ticks.size();
  const double width = style.width;
  const double plot_height = std::max(120.0, style.height - legend_height(line.title, legend_lines));
  const double n = static_cast<double>(slots.values.size());
  const double w = (width - 60 - 28 * slots.breaks()) / n;
  const double axis = plot_height - 60;
  const auto left = [&](int slot) {
    return 30 + slot * w + 28 * slots.breaks_before[static_cast<std::size_t>(slot)];
  };
  const auto border_text = [&](std::int64_t k) {
    if (line.int_size) return integer(absl::int128(k) * *line.int_size);
    return str(k) + "·h";
  };
  Svg doc(width, style.height, "chunks");
  doc.open_plot(0, 0, width, plot_height, "data-slots=\"" + str(slots.values.size()) + "\"");
  // Bands first (under the axis and the ticks).
  for (const Band& b : line.bands) {
    const int s0 = slots.first_at_least(b.first), s1 = slots.last_at_most(b.last);
    double x0 = 0, x1 = 0;
    if (s0 <= s1) {
      x0 = left(s0) - (slots.values[static_cast<std::size_t>(s0)] > b.first ? 14 : 0);
      x1 = left(s1) + w + (slots.values[static_cast<std::size_t>(s1)] < b.last ? 14 : 0);
    } else {  // the whole band lies in a break
      const int after = s0;
      x0 = (after > 0 ? left(after - 1) + w : 16) + 4;
      x1 = (after < static_cast<int>(n) ? left(after) : width - 16) - 4;
    }
    const double top = axis - 40 - 20 * b.row;
    doc.rect(x0 + 1, top, x1 - 1, top + 16, fill(b.colour),
             b.label + ": chunks " + str(b.first) + " .. " + str(b.last));
    doc.text((x0 + x1) / 2, top + 12, b.label, "fill=\"#ffffff\" font-size=\"11\"", "middle");
  }
  // The axis, chunk by chunk, with its borders.
  for (std::size_t i = 0; i < slots.values.size(); ++i) {
    const int s = static_cast<int>(i);
    const std::int64_t k = slots.values[i];
    doc.line(left(s), axis, left(s) + w, axis, stroke(palette::kInk, 2));
    const std::string title = line.int_size
                                  ? "chunk " + str(k) + ": [" + border_text(k) + ", " + integer(absl::int128(k) * *line.int_size + *line.int_size) + ")"
                                  : "cell " + str(k) + ": [" + str(k) + "·h, " + integer(absl::int128(k) + 1) + "·h), h = " + exact(*line.real_size);
    doc.line(left(s), axis - 8, left(s), axis + 8, stroke(palette::kInk, 1.5), "border of chunk " + str(k) + " at " + border_text(k));
    doc.rect(left(s), axis - 6, left(s) + w, axis + 6, "fill=\"#000000\" fill-opacity=\"0\"", title);
    doc.text(left(s) + w / 2, axis + 44, (line.int_size ? "chunk " : "cell ") + str(k), "fill=\"#555555\" font-size=\"11\"", "middle");
    doc.text(left(s) + 2, axis + 56, border_text(k), "fill=\"#555555\" font-size=\"10\"");
    if (i + 1 == slots.values.size() || slots.breaks_before[i + 1] != slots.breaks_before[i]) {
      doc.line(left(s) + w, axis - 8, left(s) + w, axis + 8, stroke(palette::kInk, 1.5));
      if (i + 1 < slots.values.size()) doc.text(left(s) + w + 14, axis + 4, "…", "fill=\"#555555\"", "middle");
    }
  }
  for (const Tick& t : line.ticks) {
    const double x = left(slots.slot(t.chunk)) + t.fraction * w;
    const std::string title = t.label;
    doc.rect(x - 1.5, axis - 10, x + 1.5, axis + 26, fill(t.colour), title);
  }
  doc.close_plot();
  std::vector<LegendLine> lines;
  lines.push_back({line.int_size ? "chunks of size " + str(*line.int_size) + "; … marks chunks not shown"
                                 : "cells of size h = " + exact(*line.real_size) + "; … marks cells not shown"});
  for (const Band& b : line.bands) lines.push_back({b.label + ": chunks " + str(b.first) + " .. " + str(b.last), b.colour});
  for (const Tick& t : line.ticks) lines.push_back({"| " + t.label, t.colour});
  legend(doc, plot_height, line.title, lines);
  return std::move(doc).finish();
}

// Layout of a run grid (docs/draw.md): columns and rows are the runs' ends and their neighbours (every
// value between, when the range spans at most 40); a cell is c = min((width - 80 - 16 * column breaks) /
// columns, (plot height - 50 - 16 * row breaks) / rows, 40) pixels; column i's left edge at 60 + i c + 16 *
// breaks before it; row j (upwards) from plot height - 30 - (j + 1) c - 16 * breaks before it.
absl::StatusOr<std::string> svg(const RunGrid& grid, const Style& style) {
  if (absl::Status s = check_style(style); !s.ok()) return s;
  std::vector<std::int64_t> xs, ys;
  std::size_t total = 0;
  for (std::size_t i = 0; i < grid.sets.size(); ++i) {
    for (std::size_t j = 0; j < grid.sets[i].runs.size(); ++j) {
      const RunCell& r = grid.sets[i].runs[j];
      if (r.x_first > r.x_last) {
        return invalid("run grid: sets[" + str(i) + "].runs[" + str(j) + "] has x_first " + str(r.x_first) +
                       " > x_last " + str(r.x_last));
      }
      with_neighbours(xs, r.x_first);
      with_neighbours(xs, r.x_last);
      with_neighbours(ys, r.y);
      ++total;
    }
  }
  if (total > style.max_items) {
    return invalid("run grid: " + str(total) + " runs, more than style.max_items " + str(style.max_items));
  }
  if (xs.empty()) xs = {0};
  if (ys.empty()) ys = {0};
  const auto fill_small = [](std::vector<std::int64_t>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    if (absl::int128(*hi) - *lo <= 40) {
      const std::int64_t a = *lo, b = *hi;
      for (std::int64_t k = a; k < b; ++k) v.push_back(k);
    }
  };
  fill_small(xs);
  fill_small(ys);
  const Slots cols(std::move(xs)), rows(std::move(ys));
  const double width = style.width;
  const double plot_height = std::max(120.0, style.height - legend_height(grid.title, grid.sets.size() + 1));
  const double c = std::min({(width - 80 - 16 * cols.breaks()) / static_cast<double>(cols.values.size()),
                             (plot_height - 50 - 16 * rows.breaks()) / static_cast<double>(rows.values.size()), 40.0});
  const auto col_x = [&](int i) { return 60 + i * c + 16 * cols.breaks_before[static_cast<std::size_t>(i)]; };
  const auto row_y = [&](int j) {  // the top edge of row j
    return plot_height - 30 - (j + 1) * c - 16 * rows.breaks_before[static_cast<std::size_t>(j)];
  };
  Svg doc(width, style.height, "runs");
  doc.open_plot(0, 0, width, plot_height);
  for (std::size_t j = 0; j < rows.values.size(); ++j) {
    const int r = static_cast<int>(j);
    for (std::size_t i = 0; i < cols.values.size(); ++i) {
      const int k = static_cast<int>(i);
      doc.rect(col_x(k), row_y(r), col_x(k) + c, row_y(r) + c, "fill=\"#ffffff\" stroke=\"#d0d0d0\" stroke-width=\"1\"",
               "chunk (" + str(cols.values[i]) + ", " + str(rows.values[j]) + ")");
    }
    doc.text(54, row_y(r) + c / 2 + 4, "y " + str(rows.values[j]), "fill=\"#555555\" font-size=\"10\"", "end");
  }
  // Column labels: every column when they fit, else the first of each range between breaks (and every
  // fifth), so that long numbers never overprint.
  std::size_t widest = 1;
  for (const std::int64_t v : cols.values) widest = std::max(widest, str(v).size());
  const bool all = c >= 6.5 * static_cast<double>(widest);
  for (std::size_t i = 0; i < cols.values.size(); ++i) {
    const int k = static_cast<int>(i);
    const bool first = i == 0 || cols.breaks_before[i] != cols.breaks_before[i - 1];
    if (!all && !first && i % 5 != 0) continue;
    doc.text(col_x(k) + (all ? c / 2 : 0), plot_height - 14 - (all || first ? 0 : 11), str(cols.values[i]),
             "fill=\"#555555\" font-size=\"10\"", all ? "middle" : "start");
  }
  for (const RunSet& set : grid.sets) {
    for (const RunCell& run : set.runs) {
      const int r = rows.slot(run.y);
      const int s0 = cols.first_at_least(run.x_first), s1 = cols.last_at_most(run.x_last);
      if (r < 0 || s0 > s1) continue;
      const std::string title = set.label + ": row " + str(run.y) + ", x " + str(run.x_first) + " .. " + str(run.x_last);
      const double inset = set.filled ? 3 : 1.5;
      if (set.filled) {
        doc.rect(col_x(s0) + inset, row_y(r) + inset, col_x(s1) + c - inset, row_y(r) + c - inset, fill(set.colour), title);
      } else {
        doc.rect(col_x(s0) + inset, row_y(r) + inset, col_x(s1) + c - inset, row_y(r) + c - inset, stroke(set.colour, 3), title);
      }
    }
  }
  doc.close_plot();
  std::vector<LegendLine> lines;
  lines.push_back({"chunk columns x (left to right) and rows y (upwards); a gap marks values not shown"});
  for (const RunSet& set : grid.sets) {
    lines.push_back({set.label + ": " + str(set.runs.size()) + " runs (" + (set.filled ? "filled" : "outlined") + ")",
                     set.colour});
  }
  legend(doc, plot_height, grid.title, lines);
  return std::move(doc).finish();
}

}  // namespace lwc::draw
