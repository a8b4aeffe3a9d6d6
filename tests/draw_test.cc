// SPDX-License-Identifier: MIT
// File: tests/draw_test.cc
//
// lwc.draw (docs/draw.md, clauses G1-G5) by example: the titles' exact values, where things are drawn,
// what is refused, the aggregation of dense scenes, the chunk line and the run grid, the C API's
// lwc_draw_svg2 and the audit's page. The browser test (tests/pictures/check_pages.py) looks at the same
// pictures rendered.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lwc.h"

import lwc.draw;
import lwc.audit.trace;

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::vector<lwc::Box2> kTwo = {{{0, 0}, {1, 1}}, {{1, 1}, {2, 2}}};  // touching at the corner (1, 1)

std::string svg_of(const lwc::draw::Scene2& scene, const lwc::draw::Style& style = {}) {
  absl::StatusOr<std::string> svg = lwc::draw::svg(scene, style);
  EXPECT_TRUE(svg.ok()) << svg.status();
  return svg.ok() ? *svg : std::string();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Draw, G1_ExactShowsTheShortestDecimalAndTheHexFloat) {
  EXPECT_EQ(lwc::draw::exact(0.1), "0.1 (0x1.999999999999ap-4)");
  EXPECT_EQ(lwc::draw::exact(-0.0), "-0 (-0x0p+0)");
  EXPECT_EQ(lwc::draw::exact(9007199254740993.0), "9007199254740992 (0x1p+53)");
  EXPECT_EQ(lwc::draw::exact(4.9406564584124654e-324), "5e-324 (0x0.0000000000001p-1022)");
  EXPECT_EQ(lwc::draw::integer(absl::int128(INT64_MIN) * 1000), "-9223372036854775808000");
}

TEST(Draw, G1_BoxTitlesCarryEveryBoundExactly) {
  const std::vector<lwc::Box2> boxes = {{{0.1, -0.0}, {0x1p53, 1e300}}};
  const std::string svg = svg_of({.boxes = boxes});
  EXPECT_THAT(svg, HasSubstr("box 0: x [0.1 (0x1.999999999999ap-4) .. 9007199254740992 (0x1p+53)], "
                             "y [-0 (-0x0p+0) .. 1e+300 (0x1.7e43c8800759cp+996)]"));
}

TEST(Draw, G2_TheMissedPairIsMarkedWhereTheBoxesMeet) {
  // Window: the boxes' union [0, 2]^2, padded by 2/8 -> [-0.25, 2.25]^2. The legend holds the title and two
  // lines (boxes, missed pairs): 540 - 16 * 3 - 8 = 484 px of plot, so s = min(640, 484) / 2.5 = 193.6 and
  // (1, 1) -> (320, 242): the 7-pixel marker's corner at (316.5, 238.5).
  const lwc::Pair missed{0, 1};
  const std::string svg =
      svg_of({.boxes = kTwo, .missed = std::span(&missed, 1), .title = "t"}, {.width = 640, .height = 540});
  EXPECT_THAT(svg, HasSubstr("<svg class=\"lwc-plot\" x=\"0\" y=\"0\" width=\"640\" height=\"484\""));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"316.5\" y=\"238.5\" width=\"7\" height=\"7\" fill=\"#d62728\"><title>missed pair "
                             "(0, 1): the closed boxes share x [1 (0x1p+0) .. 1 (0x1p+0)], y [1 (0x1p+0) .. 1 (0x1p+0)]"));
}

TEST(Draw, G2_QueryHitsAndRayEntriesAreMarkedAtTheirPlaces) {
  const std::vector<lwc::Box2> boxes = {{{0, 0}, {4, 4}}, {{6, 0}, {8, 2}}};
  const std::uint32_t hit = 0;
  const std::vector<std::uint32_t> ray_hits = {0, 1};
  const std::string svg = svg_of({.boxes = boxes,
                                  .query = lwc::Box2{{2, 2}, {3, 3}},
                                  .query_hits = std::span(&hit, 1),
                                  .ray = lwc::Segment<2>{{-2, 1}, {10, 1}},
                                  .ray_hits = ray_hits});
  EXPECT_THAT(svg, HasSubstr("query hit: box 0 meets the query at x [2 (0x1p+1) .. 3 (0x1.8p+1)]"));
  // The segment enters box 0 at t = 2/12 and box 1 at t = 8/12.
  EXPECT_THAT(svg, HasSubstr("ray hit 0: box 0 entered at t = 0.16666666666666666"));
  EXPECT_THAT(svg, HasSubstr("ray hit 1: box 1 entered at t = 0.6666666666666666"));
}

TEST(Draw, G2_GridCellsLevelsAndReferenceCells) {
  // Box 1 spans 5 x 5 cells; with 16 cells a box it goes to level 1 (cell size 2: 3 x 3) under kCoarserLevels.
  const std::vector<lwc::Box2> boxes = {{{0.5, 0.5}, {1.5, 0.75}}, {{0.25, 0.25}, {4.5, 4.5}}};
  const lwc::Pair pair{0, 1};
  const std::string svg = svg_of({.boxes = boxes,
                                  .grid = lwc::GridConfig{.max_cells_per_box = lwc::CellBudget::of<16>(),
                                                          .oversize = lwc::Oversize::kCoarserLevels},
                                  .pairs = std::span(&pair, 1),
                                  .reference_cells = true});
  EXPECT_THAT(svg, HasSubstr("cell (0, 0) of level 0 (cell size 1 (0x1p+0))"));
  EXPECT_THAT(svg, HasSubstr("cell (1, 1) of level 1 (cell size 2 (0x1p+1))"));
  EXPECT_THAT(svg, HasSubstr("box 1: x [0.25 (0x1p-2) .. 4.5 (0x1.2p+2)], y [0.25 (0x1p-2) .. 4.5 (0x1.2p+2)]; level 1"));
  // The pair meets on level 1, the coarser, in the cell of the intersection's lower corner (0.5, 0.5).
  EXPECT_THAT(svg, HasSubstr("reference cell of pair (0, 1): (0, 0) of level 1"));
  EXPECT_THAT(svg, HasSubstr("boxes per level: 0: 1 1: 1"));
}

// Found by G2_ElementsLandWhereTheFrameRuleSays:
// RC_PARAMS="max_success=100000 reproduce=BkCRyF2dvckMfVEbl1WZuR3cMFmbkdFalJXZUhWZGJXYtVmU1xWZTFWezpJQXaV1cjp1dyEQzvQPFsSJ8JOhZPjil9YWd6rpp6KQAKAAJAAAAAAA seed=20261129"
// A box two ulps wide at -36. Its pad, 2^-46 / 8, is a quarter of an ulp of -36, so in doubles the window is the box itself; the
// rule had been restated in long double, where the pad is not lost. The box fills the plot's height.
TEST(Draw, G2_APadUnderHalfAnUlpLeavesTheSideWhereItIs) {
  const double lo = -0x1.2000000000002p+5, hi = -0x1.2p+5;
  const std::vector<lwc::Box2> boxes = {{{lo, lo}, {hi, hi}}};
  const std::string svg = svg_of({.boxes = boxes});
  EXPECT_THAT(svg, HasSubstr("<svg class=\"lwc-plot\" x=\"0\" y=\"0\" width=\"720\" height=\"516\""));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"102\" y=\"0\" width=\"516\" height=\"516\" fill=\"none\""));
}

// Found by G2_ElementsLandWhereTheFrameRuleSays (CI's audit):
// RC_PARAMS="max_success=30000 reproduce=BkCRyF2dvckMfVEbl1WZuR3cMFmbkdFalJXZUhWZGJXYtVmU1xWZTFWezhU9uztEeyVwxZ4oBJexgCgeVTlzjTpgZlNOFJ9zAV9CACIgACoAAUSIAAAABcA seed=20261129"
// A box one ulp wide at -4: the window's centre, -4 - 2^-51, lies between two doubles, and a centre rounded
// to -4 put the box's left side half the plot away from where the rule says. Pixels are now offsets from
// the sides as a fraction of the extent, never from a rounded centre.
TEST(Draw, G2_AWindowAFewUlpsWideIsNotMovedByARoundedCentre) {
  const std::vector<lwc::Box2> boxes = {{{-0x1.0000000000001p+2, -0x1.2aaaaaaaaaaacp+1}, {-0x1p+2, -0x1.2aaaaaaaaaaaap+1}}};
  const std::string svg = svg_of({.boxes = boxes});
  EXPECT_THAT(svg, HasSubstr("<svg class=\"lwc-plot\" x=\"0\" y=\"0\" width=\"720\" height=\"516\""));
  EXPECT_THAT(svg, HasSubstr("<rect x=\"102\" y=\"0\" width=\"516\" height=\"516\" fill=\"none\""));
}

TEST(Draw, G3_BadScenesAreRefusedNamingWhat) {
  const std::vector<lwc::Box2> nan_box = {{{0, 0}, {1, 1}}, {{std::nan(""), 0}, {1, 1}}};
  absl::StatusOr<std::string> r = lwc::draw::svg(lwc::draw::Scene2{.boxes = nan_box});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("box 1"));
  const lwc::Pair far{0, 7};
  r = lwc::draw::svg(lwc::draw::Scene2{.boxes = kTwo, .pairs = std::span(&far, 1)});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("pairs[0] = (0, 7) does not name two boxes (2 boxes)"));
  const std::uint32_t hit = 0;
  r = lwc::draw::svg(lwc::draw::Scene2{.boxes = kTwo, .query_hits = std::span(&hit, 1)});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("query_hits: 1 hits but no query"));
  r = lwc::draw::svg(lwc::draw::Scene2{.boxes = kTwo}, {.width = 10});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("style.width 10 is outside [160, 8192]"));
  r = lwc::draw::svg(lwc::draw::Scene2{.boxes = kTwo,
                                       .grid = lwc::GridConfig{.max_cells_per_box = lwc::CellBudget::of<4>(),
                                                               .oversize = lwc::Oversize::kCoarserLevels}});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("grid: kCoarserLevels needs max_cells_per_box >= 16"));
  r = lwc::draw::svg(lwc::draw::Scene2{.boxes = kTwo, .focus = lwc::draw::Window{1, 0, 0, 1}});
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("focus"));
  const std::vector<std::int64_t> none;
  absl::StatusOr<std::string> line = lwc::draw::svg(lwc::draw::ChunkLine{.chunks = none, .int_size = 10});
  EXPECT_THAT(std::string(line.status().message()), HasSubstr("0 chunks to show"));
  const std::vector<lwc::draw::RunCell> reversed = {{0, 5, 4}};
  const std::vector<lwc::draw::RunSet> sets = {{.runs = reversed}};
  absl::StatusOr<std::string> runs = lwc::draw::svg(lwc::draw::RunGrid{.sets = sets});
  EXPECT_THAT(std::string(runs.status().message()), HasSubstr("x_first 5 > x_last 4"));
}

TEST(Draw, G4_DenseScenesAreAggregatedAndBounded) {
  std::vector<lwc::Box2> boxes;
  for (int i = 0; i < 300; ++i) {
    for (int j = 0; j < 300; ++j) boxes.push_back({{i * 1.0, j * 1.0}, {i + 0.5, j + 0.5}});
  }
  const std::string svg = svg_of({.boxes = boxes, .grid = lwc::GridConfig{}});
  EXPECT_THAT(svg, HasSubstr("90000 boxes, aggregated"));
  EXPECT_THAT(svg, HasSubstr("occupied cells not drawn: aggregated, as the boxes are"));
  EXPECT_THAT(svg, Not(HasSubstr("box 0:")));
  EXPECT_LT(svg.size(), std::size_t{4} << 20);
}

TEST(Draw, G2_Scene3IsThreeProjections) {
  const std::vector<lwc::Box3> boxes = {{{0, 0, 0}, {1, 2, 3}}};
  absl::StatusOr<std::string> svg = lwc::draw::svg(lwc::draw::Scene3{.boxes = boxes});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_EQ(count(*svg, "class=\"lwc-plot\""), 3u);
  EXPECT_THAT(*svg, HasSubstr("data-axes=\"x z\""));
  EXPECT_THAT(*svg, HasSubstr("box 0: x [0 (0x0p+0) .. 2 (0x1p+1)], y [0 (0x0p+0) .. 3 (0x1.8p+1)]"));  // y-z
}

TEST(Draw, G1_ChunkLineBordersAreExactIntegers) {
  const std::vector<std::int64_t> chunks = {9223372036854774, 9223372036854775, -1};
  const std::vector<lwc::draw::Band> bands = {{-1, 9223372036854775, lwc::draw::palette::kMissed, "given", 0}};
  absl::StatusOr<std::string> svg =
      lwc::draw::svg(lwc::draw::ChunkLine{.chunks = chunks, .int_size = 1000, .bands = bands});
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_THAT(*svg, HasSubstr("chunk 9223372036854775: [9223372036854775000, 9223372036854776000)"));
  EXPECT_THAT(*svg, HasSubstr("given: chunks -1 .. 9223372036854775"));
}

TEST(Draw, F1_CApiDrawsWhatCppDraws) {
  const lwc_box2 boxes[2] = {{{0, 0}, {1, 1}}, {{1, 1}, {2, 2}}};
  const lwc_pair missed = {0, 1};
  lwc_draw_scene2 scene{};
  scene.boxes = boxes;
  scene.box_count = 2;
  scene.missed = &missed;
  scene.missed_count = 1;
  scene.title = "t";
  size_t size = 0;
  ASSERT_EQ(lwc_draw_svg2(&scene, nullptr, nullptr, 0, &size), LWC_BUFFER_TOO_SMALL);  // F4: the size, asked
  std::vector<char> buffer(size + 1, 'x');
  size_t written = 0;
  ASSERT_EQ(lwc_draw_svg2(&scene, nullptr, buffer.data(), buffer.size(), &written), LWC_OK) << lwc_last_error();
  EXPECT_EQ(written, size);
  const lwc::Pair pair{0, 1};
  const std::vector<lwc::Box2> cpp = {{{0, 0}, {1, 1}}, {{1, 1}, {2, 2}}};
  EXPECT_EQ(std::string(buffer.data()), svg_of({.boxes = cpp, .missed = std::span(&pair, 1), .title = "t"}));
}

TEST(Draw, F3_CApiRefusesAndWritesNothing) {
  const lwc_box2 boxes[1] = {{{0, 0}, {-1, 1}}};  // min > max
  lwc_draw_scene2 scene{};
  scene.boxes = boxes;
  scene.box_count = 1;
  char buffer[8] = "intact";
  size_t size = 99;
  EXPECT_EQ(lwc_draw_svg2(&scene, nullptr, buffer, sizeof buffer, &size), LWC_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(lwc_last_error()), HasSubstr("box 0"));
  EXPECT_STREQ(buffer, "intact");
  EXPECT_EQ(size, 99u);
  scene.box_count = 3;
  scene.boxes = nullptr;
  EXPECT_EQ(lwc_draw_svg2(&scene, nullptr, buffer, sizeof buffer, &size), LWC_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(lwc_last_error()), HasSubstr("NULL with a count > 0"));
  lwc_draw_style style = lwc_draw_style_default();
  EXPECT_EQ(style.width, 720);
  style.bin_pixels = 0;
  scene.boxes = boxes;
  scene.box_count = 0;
  EXPECT_EQ(lwc_draw_svg2(&scene, &style, buffer, sizeof buffer, &size), LWC_INVALID_ARGUMENT);
  EXPECT_THAT(std::string(lwc_last_error()), HasSubstr("style.bin_pixels 0"));
}

// The audit's page of a trace with a touching pair missed: the pair drawn close up, the chunk of a
// truncating split, and no drawing for a clean record.
TEST(Draw, G5_AuditPageDrawsTheViolatingRecords) {
  const std::string path = ::testing::TempDir() + "draw_test_trace.jsonl";
  {
    std::ofstream out(path);
    out << R"({"schema":1,"contract":"broadphase","op":"find_pairs","in":{"h":1.0,"boxes":[[0,0,1,1],[1,0,2,1],[5,5,6,6]]},"out":{"pairs":[]}})"
        << "\n"
        << R"({"schema":1,"contract":"decompose","op":"split","in":{"x":-1,"size":1000},"out":{"chunk":0,"local":-1}})"
        << "\n"
        << R"({"schema":1,"contract":"decompose","op":"split","in":{"x":5,"size":1000},"out":{"chunk":0,"local":5}})"
        << "\n";
  }
  lwc::audit::TraceAuditor auditor;
  ASSERT_TRUE(auditor.file(path).ok());
  const std::string html = lwc::audit::report_html(auditor.report(), path, {});
  EXPECT_THAT(html, HasSubstr("data-line=\"1\" data-contract=\"broadphase\" data-op=\"find_pairs\" data-kind=\"missed-pair\" "
                              "data-pair=\"0 1\""));
  EXPECT_THAT(html, HasSubstr("missed pair (0, 1): the closed boxes share x [1 (0x1p+0) .. 1 (0x1p+0)], y [0 (0x0p+0) .. 1 (0x1p+0)]"));
  EXPECT_THAT(html, HasSubstr("data-kind=\"chunks\" data-x=\"-1\" data-size=\"1000\" data-chunk=\"-1\" data-given=\"0\""));
  EXPECT_THAT(html, Not(HasSubstr("data-line=\"3\"")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  // Standard input cannot be read again: the page says so instead of drawing.
  EXPECT_THAT(lwc::audit::report_html(auditor.report(), "-", {}), HasSubstr("No drawings: the trace came from standard input"));
  std::remove(path.c_str());
}

}  // namespace
