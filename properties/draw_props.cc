// SPDX-License-Identifier: MIT
// File: properties/draw_props.cc
//
// One RapidCheck property per P-clause of docs/draw.md, over the broad phase's extreme-biased scene
// generators (support/arbitrary_broadphase.h): the exact values in the titles (G1), where things land
// (G2, computed here in long double from the frame rule), refusals (G3), bounded dense pictures (G4), and
// the audit page's drawings of what a find_pairs record missed and added (G5, against this file's own
// brute force).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "support/arbitrary_broadphase.h"
#include "support/property.h"

import lwc.draw;
import lwc.broadphase;
import lwc.audit.trace;

namespace {

using lwc::Box2;
using lwc::Pair;

std::vector<Box2> some_boxes(std::size_t most, std::size_t least = 1) {
  const double h = *lwc::testing::scene_cell_size();
  const std::size_t n = *rc::gen::inRange<std::size_t>(least, most + 1);
  std::vector<Box2> boxes;
  for (std::size_t i = 0; i < n; ++i) boxes.push_back(*lwc::testing::valid_box<2>(h));
  return boxes;
}

bool meets(const Box2& a, const Box2& b) {
  for (std::size_t k = 0; k < 2; ++k) {
    if (std::max(a.min[k], b.min[k]) > std::min(a.max[k], b.max[k])) return false;
  }
  return true;
}

std::vector<Pair> brute_pairs(const std::vector<Box2>& boxes) {
  std::vector<Pair> out;
  for (std::uint32_t i = 0; i < boxes.size(); ++i) {
    for (std::uint32_t j = i + 1; j < boxes.size(); ++j) {
      if (meets(boxes[i], boxes[j])) out.push_back({i, j});
    }
  }
  return out;
}

double read_decimal(const std::string& s) {
  double v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool same_bits(double a, double b) { return std::signbit(a) == std::signbit(b) && (a == b || (a != a && b != b)); }

LWC_PROP(Draw, G1_TitlesCarryExactValues, ()) {
  const std::vector<Box2> boxes = some_boxes(20);
  const absl::StatusOr<std::string> svg = lwc::draw::svg(lwc::draw::Scene2{.boxes = boxes});
  RC_ASSERT(svg.ok());
  static const std::regex kBox(
      R"(box (\d+): x \[(\S+) \((\S+)\) \.\. (\S+) \((\S+)\)\], y \[(\S+) \((\S+)\) \.\. (\S+) \((\S+)\)\])");
  std::set<std::size_t> seen;
  for (auto it = std::sregex_iterator(svg->begin(), svg->end(), kBox); it != std::sregex_iterator(); ++it) {
    const std::size_t i = std::stoul((*it)[1].str());
    RC_ASSERT(i < boxes.size());
    const double want[4] = {boxes[i].min[0], boxes[i].max[0], boxes[i].min[1], boxes[i].max[1]};
    for (std::size_t k = 0; k < 4; ++k) {
      const std::string decimal = (*it)[2 + 2 * k].str(), hex = (*it)[3 + 2 * k].str();
      RC_ASSERT(same_bits(read_decimal(decimal), want[k]));
      RC_ASSERT(same_bits(std::strtod(hex.c_str(), nullptr), want[k]));
    }
    seen.insert(i);
  }
  RC_ASSERT(seen.size() == boxes.size());  // every box is in the default window, so every box is titled
}

// The frame rule of docs/draw.md: the window's sides in doubles as the rule states them, the pixels in
// long double.
struct Rule {
  long double cx, cy, s, width, height;
  static Rule of(const std::vector<Box2>& boxes, long double width, long double height) {
    double x0 = boxes[0].min[0], y0 = boxes[0].min[1], x1 = boxes[0].max[0], y1 = boxes[0].max[1];
    for (const Box2& b : boxes) {
      x0 = std::min(x0, b.min[0]), y0 = std::min(y0, b.min[1]);
      x1 = std::max(x1, b.max[0]), y1 = std::max(y1, b.max[1]);
    }
    if (x0 == x1 && y0 == y1) x0 -= 0.5, y0 -= 0.5, x1 += 0.5, y1 += 0.5;
    const double pad = std::max(x1 - x0, y1 - y0) / 8;
    x0 -= pad, y0 -= pad, x1 += pad, y1 += pad;
    const long double w = static_cast<long double>(x1) - x0, h = static_cast<long double>(y1) - y0;
    const long double s = w == 0 ? height / h : h == 0 ? width / w : std::min(width / w, height / h);
    return {(static_cast<long double>(x0) + x1) / 2, (static_cast<long double>(y0) + y1) / 2, s, width, height};
  }
  long double x(long double v) const { return width / 2 + (v - cx) * s; }
  long double y(long double v) const { return height / 2 - (v - cy) * s; }
};

LWC_PROP(Draw, G2_ElementsLandWhereTheFrameRuleSays, ()) {
  std::vector<Box2> boxes = some_boxes(12);
  for (const Box2& b : boxes) {  // magnitudes whose window the doubles cannot widen are G2's limit, not its case
    for (std::size_t k = 0; k < 2; ++k) RC_PRE(std::abs(b.min[k]) < 1e15 && std::abs(b.max[k]) < 1e15);
  }
  const std::vector<Pair> pairs = brute_pairs(boxes);
  const std::span<const Pair> missed = pairs.empty() ? std::span<const Pair>() : std::span(pairs).first(1);
  const absl::StatusOr<std::string> svg = lwc::draw::svg(lwc::draw::Scene2{.boxes = boxes, .missed = missed});
  RC_ASSERT(svg.ok());
  static const std::regex kPlot(R"re(<svg class="lwc-plot" x="0" y="0" width="([\d.]+)" height="([\d.]+)")re");
  std::smatch plot;
  const bool has_plot = std::regex_search(*svg, plot, kPlot);
  RC_ASSERT(has_plot);
  const Rule rule = Rule::of(boxes, read_decimal(plot[1].str()), read_decimal(plot[2].str()));
  RC_PRE(rule.s > 0 && std::isfinite(static_cast<double>(rule.s)));
  const auto near = [](const std::string& written, long double want) {
    return std::abs(read_decimal(written) - static_cast<double>(want)) <= 0.011;  // two decimals written
  };
  static const std::regex kRect(R"re(<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none"[^>]*><title>box (\d+):)re");
  for (auto it = std::sregex_iterator(svg->begin(), svg->end(), kRect); it != std::sregex_iterator(); ++it) {
    const Box2& b = boxes[std::stoul((*it)[5].str())];
    RC_ASSERT(near((*it)[1].str(), rule.x(b.min[0])));
    RC_ASSERT(near((*it)[2].str(), rule.y(b.max[1])));
    RC_ASSERT(near((*it)[3].str(), rule.x(b.max[0]) - rule.x(b.min[0])));
    RC_ASSERT(near((*it)[4].str(), rule.y(b.min[1]) - rule.y(b.max[1])));
  }
  if (!missed.empty()) {  // the opaque marker is centred on the centre of where the boxes meet
    static const std::regex kMarker(R"re(<rect x="([-\d.]+)" y="([-\d.]+)" width="7" height="7" fill="#d62728"><title>missed)re");
    std::smatch m;
    const bool has_marker = std::regex_search(*svg, m, kMarker);
    RC_ASSERT(has_marker);
    const Box2 &a = boxes[missed[0].a], &b = boxes[missed[0].b];
    const long double mx = (std::max<long double>(a.min[0], b.min[0]) + std::min<long double>(a.max[0], b.max[0])) / 2;
    const long double my = (std::max<long double>(a.min[1], b.min[1]) + std::min<long double>(a.max[1], b.max[1])) / 2;
    RC_ASSERT(near(m[1].str(), rule.x(mx) - 3.5L));
    RC_ASSERT(near(m[2].str(), rule.y(my) - 3.5L));
  }
}

LWC_PROP(Draw, G3_BadScenesAreRefusedNamingTheField, ()) {
  std::vector<Box2> boxes = some_boxes(6);
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, boxes.size());
  std::vector<Pair> pairs;
  std::vector<std::uint32_t> hits;
  std::vector<lwc::draw::Mark> marks;
  lwc::draw::Scene2 scene{.boxes = boxes};
  lwc::draw::Style style;
  std::string named;
  switch (*rc::gen::inRange(0, 7)) {
    case 0:
      boxes[k].min[*rc::gen::inRange<std::size_t>(0, 2)] = *rc::gen::element(std::nan(""), HUGE_VAL, -HUGE_VAL);
      named = "box " + std::to_string(k);
      break;
    case 1:
      std::swap(boxes[k].min[0], boxes[k].max[0]);
      RC_PRE(boxes[k].min[0] > boxes[k].max[0]);
      named = "box " + std::to_string(k);
      break;
    case 2:
      pairs = {{0, static_cast<std::uint32_t>(boxes.size() + *rc::gen::inRange<std::size_t>(0, 5))}};
      scene.pairs = pairs;
      named = "pairs[0]";
      break;
    case 3:
      hits = {0};
      scene.query_hits = hits;
      named = "query_hits";
      break;
    case 4:
      scene.ray = lwc::Segment<2>{{0, 0}, {*rc::gen::element(std::nan(""), HUGE_VAL), 0}};
      named = "ray";
      break;
    case 5:
      marks = {{{std::nan(""), 0}, "m"}};
      scene.marks = marks;
      named = "marks[0]";
      break;
    default:
      style.height = *rc::gen::element(0, 119, 8193, -1);
      named = "style.height";
  }
  const absl::StatusOr<std::string> svg = lwc::draw::svg(scene, style);
  RC_ASSERT(svg.status().code() == absl::StatusCode::kInvalidArgument);
  RC_ASSERT(std::string(svg.status().message()).find(named) != std::string::npos);
}

std::size_t elements(const std::string& svg) {
  std::size_t n = 0;
  for (const char* tag : {"<rect", "<line", "<circle", "<text"}) {
    for (std::size_t at = svg.find(tag); at != std::string::npos; at = svg.find(tag, at + 1)) ++n;
  }
  return n;
}

LWC_PROP_SCALED(Draw, G4_DenseScenesAreBoundedByTheStyle, 20, ()) {
  const lwc::draw::Style style{.width = 400, .height = 300, .dense_boxes = 50, .max_items = 40, .bin_pixels = 8};
  std::vector<Box2> boxes = some_boxes(2000, style.dense_boxes + 1);
  const std::vector<Pair> pairs = brute_pairs(std::vector<Box2>(boxes.begin(), boxes.begin() + std::min<std::ptrdiff_t>(200, std::ssize(boxes))));
  const std::vector<std::uint32_t> hits = {0, 1, 2};
  const absl::StatusOr<std::string> svg = lwc::draw::svg(
      lwc::draw::Scene2{.boxes = boxes, .pairs = pairs, .missed = pairs, .extra = pairs,
                        .query = boxes[0], .query_hits = hits},
      style);
  RC_ASSERT(svg.ok());
  // The bins (50 x 38 at most), 5 elements a drawn item of 4 kinds, the legend and the frame: whatever the
  // number of boxes.
  const std::size_t bins = (400 / 8 + 1) * (300 / 8 + 1);
  RC_ASSERT(elements(*svg) <= bins + 5 * 4 * style.max_items + 100);
  RC_ASSERT(svg->find("title>box ") == std::string::npos);  // no box drawn one by one
}

std::string hex_array(const Box2& b) {
  char text[256];
  std::snprintf(text, sizeof text, R"(["%a","%a","%a","%a"])", b.min[0], b.min[1], b.max[0], b.max[1]);
  return text;
}

LWC_PROP_SCALED(Draw, G5_AuditDrawsExactlyTheFirstMissedAndExtraPairs, 10, ()) {
  const std::vector<Box2> boxes = some_boxes(10);
  const std::vector<Pair> want = brute_pairs(boxes);
  std::set<std::pair<std::uint32_t, std::uint32_t>> given;
  for (const Pair& p : want) {
    if (*rc::gen::inRange(0, 3) != 0) given.insert({p.a, p.b});  // a third of them missed
  }
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) {  // and a few pairs added
    const auto a = *rc::gen::inRange<std::uint32_t>(0, static_cast<std::uint32_t>(boxes.size()));
    const auto b = *rc::gen::inRange<std::uint32_t>(0, static_cast<std::uint32_t>(boxes.size()));
    if (a != b) given.insert({std::min(a, b), std::max(a, b)});
  }
  std::string record = R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"boxes":[)";
  for (std::size_t i = 0; i < boxes.size(); ++i) record += (i ? "," : "") + hex_array(boxes[i]);
  record += R"(]},"out":{"pairs":[)";
  bool first = true;
  for (const auto& [a, b] : given) record += (first ? "" : ",") + ("[" + std::to_string(a) + "," + std::to_string(b) + "]"), first = false;
  record += "]}}\n";
  const std::string path = ::testing::TempDir() + "draw_props_trace.jsonl";
  std::ofstream(path) << record;
  lwc::audit::TraceAuditor auditor;
  RC_ASSERT(auditor.file(path).ok());
  const std::string html = lwc::audit::report_html(auditor.report(), path, {});
  std::remove(path.c_str());
  std::vector<std::string> missed, extra, drawn_missed, drawn_extra;
  for (const Pair& p : want) {
    if (!given.count({p.a, p.b})) missed.push_back(std::to_string(p.a) + " " + std::to_string(p.b));
  }
  for (const auto& [a, b] : given) {
    if (!meets(boxes[a], boxes[b])) extra.push_back(std::to_string(a) + " " + std::to_string(b));
  }
  static const std::regex kFigure(R"re(data-kind="(missed|extra)-pair" data-pair="(\d+ \d+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), kFigure); it != std::sregex_iterator(); ++it) {
    ((*it)[1].str() == "missed" ? drawn_missed : drawn_extra).push_back((*it)[2].str());
  }
  missed.resize(std::min<std::size_t>(missed.size(), 3));
  extra.resize(std::min<std::size_t>(extra.size(), 3));
  RC_ASSERT(drawn_missed == missed);
  RC_ASSERT(drawn_extra == extra);
}

}  // namespace
