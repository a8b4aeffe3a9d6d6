// SPDX-License-Identifier: MIT
// File: draw/svg.cppm                   Module: lwc.draw:svg (partition)
//
// The vocabulary of every picture lwc.draw makes: exact() and the other texts a hover title shows, the
// palette, a Frame (a world window onto a pixel rectangle, one scale on both axes, y up) and Svg, the
// document being written. The scenes (draw.cppm) and the audit's HTML page (audit/html.cc) draw with
// these and nothing else, so every picture speaks the same colours and the same numbers.
module;
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>

#include "absl/numeric/int128.h"
export module lwc.draw:svg;

export namespace lwc::draw {

// exact()
//
// A double as every title shows it: the shortest decimal that reads back as the same double
// (std::to_chars), then its C99 hex float, "0.1 (0x1.999999999999ap-4)"; NaN and infinities by name.
[[nodiscard]] inline std::string exact(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::array<char, 64> dec{};
  const std::to_chars_result r = std::to_chars(dec.data(), dec.data() + dec.size(), v);
  std::array<char, 64> hex{};
  std::snprintf(hex.data(), hex.size(), "%a", v);
  return std::string(dec.data(), r.ptr) + " (" + hex.data() + ")";
}

// integer()
//
// An integer as titles and labels show it, exactly (int128 covers every product chunk * size).
[[nodiscard]] inline std::string integer(absl::int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  absl::uint128 u = negative ? absl::uint128(0) - static_cast<absl::uint128>(v) : static_cast<absl::uint128>(v);
  std::string digits;
  while (u > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(absl::Uint128Low64(u % 10))));
    u /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

// escape()
//
// `text` as XML character data or an attribute value: & < > " ' escaped.
[[nodiscard]] inline std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

// Palette
//
// The colours of every picture, by what they show. A test that looks at a rendered picture looks for
// these (tests/pictures/): each marker is drawn opaque and last, so its colour is what a person sees.
namespace palette {
inline constexpr std::string_view kBox = "#5a5a5a";        // box outlines
inline constexpr std::string_view kCellLine = "#cfcfcf";   // cell lines of level 0
inline constexpr std::string_view kCell = "#e4ecf7";       // occupied cells, level 0
inline constexpr std::string_view kCoarse = "#8c6d31";     // coarser levels' cells (B11)
inline constexpr std::string_view kPair = "#1f77b4";       // a drawn pair's intersection
inline constexpr std::string_view kReference = "#bcbd22";  // a pair's reference cell (B9)
inline constexpr std::string_view kMissed = "#d62728";     // a missed pair, a missing chunk, a wrong answer
inline constexpr std::string_view kExtra = "#ff7f0e";      // an extra pair, an extra chunk
inline constexpr std::string_view kHit = "#2ca02c";        // a query and its hits; the expected answer
inline constexpr std::string_view kRay = "#9467bd";        // a ray and its entry points
inline constexpr std::string_view kView = "#17becf";       // a view's bubble and origin cell
inline constexpr std::string_view kInk = "#1a1a1a";        // text, the view's origin, marks
inline constexpr std::string_view kRefused = "#e377c2";    // boxes the grid refuses (no placement)
// The density ramp of aggregated boxes: white (no box) to kDense (the most boxes of any bin).
inline constexpr std::array<int, 3> kDense = {8, 48, 107};
}  // namespace palette

// Window
//
// A closed world rectangle [x0, x1] x [y0, y1].
struct Window {
  double x0 = 0;
  double y0 = 0;
  double x1 = 0;
  double y1 = 0;
};

// Frame
//
// A world window on a plot of width x height pixels, with one scale on both axes, centred, y up. The
// window of a scene is the region of interest padded by an eighth of its larger side (framed()), so a
// reader — or a test — computes from the scene alone where any world point lands:
//   s = min(width / (x1 - x0), height / (y1 - y0)),  px = width / 2 + (x - cx) * s,  py = height / 2 - (y - cy) * s
// with (cx, cy) the window's centre. Pixels are computed in double as a ratio of offsets to the limiting
// extent, never from a rounded centre, so a window a few ulps wide maps as the rule says, and windows as
// wide as the doubles themselves, or as narrow as subnormals, map without overflow; a pixel beyond +-1e6
// is clamped there (off the plot).
class Frame {
 public:
  // framed()
  //
  // The padded window of a region of interest: each side extended by e / 8, e its larger extent; a region
  // of no extent (a point) is first widened to a square of side `unit` (the cell size, or 1) around it.
  // `region` must be finite with x0 <= x1 and y0 <= y1.
  [[nodiscard]] static Window framed(Window region, double unit) {
    if (region.x0 == region.x1 && region.y0 == region.y1) {
      const double cx = region.x0, cy = region.y0;
      region = {cx - unit / 2, cy - unit / 2, cx + unit / 2, cy + unit / 2};
    }
    // The pad is e / 8 with e the larger extent, each step rounded to the nearest double, so that a reader
    // restating the rule in doubles gets these sides bit for bit (a pad under half an ulp of a side leaves
    // that side where it is). Only an extent wider than the doubles is taken in halves.
    double pad = std::max(region.x1 - region.x0, region.y1 - region.y0) / 8;
    if (std::isinf(pad)) pad = std::max(region.x1 / 2 - region.x0 / 2, region.y1 / 2 - region.y0 / 2) / 4;
    return {sub(region.x0, pad), sub(region.y0, pad), add(region.x1, pad), add(region.y1, pad)};
  }

  // Frame()
  //
  // The window (already framed) on a plot of width x height pixels.
  Frame(Window window, double width, double height) : window_(window), width_(width), height_(height) {
    // A window wider than the doubles is measured in halves, so that no extent or difference overflows.
    halves_ = !std::isfinite(window.x1 - window.x0) || !std::isfinite(window.y1 - window.y0);
    const double ext_x = halves_ ? window.x1 / 2 - window.x0 / 2 : window.x1 - window.x0;
    const double ext_y = halves_ ? window.y1 / 2 - window.y0 / 2 : window.y1 - window.y0;
    // The limiting axis: ext_x / width >= ext_y / height, compared on extents scaled to near 1, so that
    // neither an enormous nor a subnormal window overflows or underflows the products.
    const int e = std::ilogb(std::max({ext_x, ext_y, std::numeric_limits<double>::min()}));
    if (std::ldexp(ext_x, -e) * height >= std::ldexp(ext_y, -e) * width) {
      ext_ = ext_x, span_ = width;
    } else {
      ext_ = ext_y, span_ = height;
    }
    // A window the doubles cannot widen (1e20 +- less than an ulp): every point at its centre.
    if (!(ext_ > 0)) ext_ = std::max(std::abs(window.x0) + std::abs(window.y0), 1.0) * 0x1p-52;
  }

  // x(), y(): the pixel of a world coordinate (clamped to +-1e6 pixels).
  [[nodiscard]] double x(double wx) const { return clamp(width_ / 2 + offset(wx, window_.x0, window_.x1)); }
  [[nodiscard]] double y(double wy) const { return clamp(height_ / 2 - offset(wy, window_.y0, window_.y1)); }
  // Pixels per world unit (infinite for a window narrower than the doubles' range of pixels).
  [[nodiscard]] double scale() const { return halves_ ? span_ / ext_ / 2 : span_ / ext_; }
  [[nodiscard]] const Window& window() const { return window_; }
  [[nodiscard]] double width() const { return width_; }
  [[nodiscard]] double height() const { return height_; }
  // Whether a world rectangle meets the window.
  [[nodiscard]] bool meets(double x0, double y0, double x1, double y1) const {
    return x0 <= window_.x1 && window_.x0 <= x1 && y0 <= window_.y1 && window_.y0 <= y1;
  }

 private:
  static double clamp(double p) { return std::isnan(p) ? 0.0 : std::clamp(p, -1e6, 1e6); }
  // (v - a) + (v - b), or its half for a window measured in halves. With a <= v <= b each difference is
  // rounded once (and exact near a side, by Sterbenz), and the two have opposite signs, so the sum neither
  // overflows nor carries the rounding of a centre: v - (a + b) / 2 for a window a few ulps wide is exact.
  [[nodiscard]] double twice_offset(double v, double a, double b) const {
    return halves_ ? (v / 2 - a / 2) + (v / 2 - b / 2) : (v - a) + (v - b);
  }
  // (v - cx) * s in pixels: the offset from the centre as a fraction of the limiting extent, times the
  // pixels that extent spans.
  [[nodiscard]] double offset(double v, double a, double b) const {
    return twice_offset(v, a, b) / ext_ * (span_ / 2);
  }
  static double sub(double a, double b) {
    const double r = a - b;
    return std::isinf(r) ? std::numeric_limits<double>::lowest() : r;
  }
  static double add(double a, double b) {
    const double r = a + b;
    return std::isinf(r) ? std::numeric_limits<double>::max() : r;
  }

  Window window_;
  double width_;
  double height_;
  bool halves_ = false;  // extents and offsets are halved: the window is wider than the doubles
  double ext_ = 1;       // the limiting extent (halved with halves_): the one that fits the plot exactly
  double span_ = 1;      // the pixels it spans
};

// Svg
//
// One SVG document, written element by element. Geometry is in pixels (two decimals); exact world values
// go into <title> children, which browsers show on hover. Every element method takes the title to attach
// ("" for none) and returns nothing: the document is a string being appended to.
class Svg {
 public:
  // Svg()
  //
  // A document of width x height pixels; `kind` becomes the root's class suffix and data-kind
  // ("scene2", "chunks", ...), for pages and tests that look for a picture of one kind.
  Svg(double width, double height, std::string_view kind) {
    out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lwc-draw\" data-kind=\"" + escape(kind) +
           "\" width=\"" + num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) + " " +
           num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  }

  // num(): a pixel coordinate as written (two decimals, no trailing zeros).
  [[nodiscard]] static std::string num(double v) {
    std::array<char, 48> buf{};
    const std::to_chars_result r =
        std::to_chars(buf.data(), buf.data() + buf.size(), std::round(v * 100) / 100, std::chars_format::fixed, 2);
    std::string s(buf.data(), r.ptr);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s == "-0" ? "0" : s;
  }

  // open_plot(), close_plot()
  //
  // A nested <svg class="lwc-plot"> at (x, y), width x height pixels, clipping what is drawn inside:
  // the plot area a Frame maps onto. `attributes` are added verbatim (data-* of the picture).
  void open_plot(double x, double y, double width, double height, std::string_view attributes = {}) {
    out_ += "<svg class=\"lwc-plot\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(width) +
            "\" height=\"" + num(height) + "\" overflow=\"hidden\"";
    if (!attributes.empty()) out_ += " " + std::string(attributes);
    out_ += ">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  }
  void close_plot() { out_ += "</svg>\n"; }

  // open_group(), close_group(): <g> with a class and optional title (what the group shows).
  void open_group(std::string_view css_class, std::string_view title = {}) {
    out_ += "<g class=\"" + escape(css_class) + "\">";
    if (!title.empty()) out_ += "<title>" + escape(title) + "</title>";
    out_ += "\n";
  }
  void close_group() { out_ += "</g>\n"; }

  // rect(): the pixel rectangle spanned by two corners (any order); `style` is fill/stroke attributes.
  void rect(double x0, double y0, double x1, double y1, std::string_view style, std::string_view title = {}) {
    element("<rect x=\"" + num(std::min(x0, x1)) + "\" y=\"" + num(std::min(y0, y1)) + "\" width=\"" +
                num(std::abs(x1 - x0)) + "\" height=\"" + num(std::abs(y1 - y0)) + "\" " + std::string(style),
            "rect", title);
  }
  void line(double x0, double y0, double x1, double y1, std::string_view style, std::string_view title = {}) {
    element("<line x1=\"" + num(x0) + "\" y1=\"" + num(y0) + "\" x2=\"" + num(x1) + "\" y2=\"" + num(y1) + "\" " +
                std::string(style),
            "line", title);
  }
  void circle(double x, double y, double r, std::string_view style, std::string_view title = {}) {
    element("<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" " + std::string(style),
            "circle", title);
  }
  // text(): `anchor` is start, middle or end.
  void text(double x, double y, std::string_view content, std::string_view style = {},
            std::string_view anchor = "start") {
    out_ += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + std::string(anchor) + "\"" +
            (style.empty() ? "" : " " + std::string(style)) + ">" + escape(content) + "</text>\n";
  }
  // raw(): markup the caller built (escaped already).
  void raw(std::string_view markup) { out_ += markup; }

  // finish(): the document, closed.
  [[nodiscard]] std::string finish() && {
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  void element(std::string_view open, std::string_view tag, std::string_view title) {
    out_ += open;
    if (title.empty()) {
      out_ += "/>\n";
    } else {
      out_ += "><title>" + escape(title) + "</title></" + std::string(tag) + ">\n";
    }
  }

  std::string out_;
};

// fill(), stroke(): style attributes for Svg's elements.
[[nodiscard]] inline std::string fill(std::string_view colour, double opacity = 1.0) {
  std::string s = "fill=\"" + std::string(colour) + "\"";
  if (opacity < 1.0) s += " fill-opacity=\"" + Svg::num(opacity) + "\"";
  return s;
}
[[nodiscard]] inline std::string stroke(std::string_view colour, double width, std::string_view dash = {}) {
  std::string s = "fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"" + Svg::num(width) + "\"";
  if (!dash.empty()) s += " stroke-dasharray=\"" + std::string(dash) + "\"";
  return s;
}

}  // namespace lwc::draw
