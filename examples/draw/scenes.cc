// SPDX-License-Identifier: MIT
// File: examples/draw/scenes.cc
//
// Draws lwc's own states with lwc.draw, as the build does (target lwc_pictures): a small 2-D scene (ten
// boxes, one of them on a coarser level, the grid's cells, every pair with its reference cell, a query
// and a ray with their hits, a view's bubble and origin), the same kind of scene at 100,000 boxes
// (aggregated), and a 3-D scene as three projections. Pairs and hits come from lwc itself (find_pairs,
// Grid::query, PersistentGrid::raycast). Next to each picture it writes the scene as JSON, so that a test
// can recompute from the scene where everything must appear (tests/pictures/check_pages.py).
//
//   scenes OUT_DIR        writes OUT_DIR/scene_small.{svg,json}, scene_dense.*, scene_3d.*
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc.draw;

namespace {

// A double as JSON: the shortest decimal that reads back as it (every value here is finite).
std::string num(double v) { return lwc::draw::exact(v).substr(0, lwc::draw::exact(v).find(' ')); }

template <std::size_t D>
std::string box_json(const lwc::Box<D>& b) {
  std::string s = "[";
  for (std::size_t k = 0; k < D; ++k) s += num(b.min[k]) + ",";
  for (std::size_t k = 0; k < D; ++k) s += num(b.max[k]) + (k + 1 < D ? "," : "]");
  return s;
}

template <typename T>
std::string list_json(const std::vector<T>& v, std::string (*f)(const T&)) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + f(v[i]);
  return s + "]";
}

std::string pair_json(const lwc::Pair& p) { return "[" + std::to_string(p.a) + "," + std::to_string(p.b) + "]"; }
std::string id_json(const std::uint32_t& i) { return std::to_string(i); }

bool write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) std::fprintf(stderr, "scenes: cannot write %s\n", path.c_str());
  return static_cast<bool>(out);
}

template <std::size_t D>
absl::StatusOr<std::vector<std::uint32_t>> ray_hits(const std::vector<lwc::Box<D>>& boxes, const lwc::GridConfig& config,
                                                    const lwc::Segment<D>& ray) {
  absl::StatusOr<lwc::PersistentGrid<D>> grid = lwc::PersistentGrid<D>::create(config);
  if (!grid.ok()) return grid.status();
  std::vector<lwc::Handle> handles;
  for (const lwc::Box<D>& b : boxes) {
    absl::StatusOr<lwc::Handle> h = grid->insert(b, handles.size());
    if (!h.ok()) return h.status();
    handles.push_back(*h);
  }
  lwc::ContactEvents events;
  if (absl::Status s = grid->update_into(events); !s.ok()) return s;
  std::vector<std::uint32_t> hits;
  absl::Status s = grid->raycast(ray, [&](lwc::Handle, lwc::UserData user, double) {
    hits.push_back(static_cast<std::uint32_t>(user));
    return true;
  });
  if (!s.ok()) return s;
  return hits;
}

// Ten boxes at cell size 1: walls and props, a box on a coarser level (kCoarserLevels, 16 cells a box),
// two boxes touching on a cell line.
int small(const std::string& dir) {
  const std::vector<lwc::Box2> boxes = {
      {{0, 0}, {6, 1}},        {{5.5, 0.5}, {6.5, 3}}, {{1, 1}, {2, 2}},     {{2, 2}, {3, 3}},
      {{-3, -3.5}, {3.5, -1.5}}, {{4, 4}, {4.5, 4.25}},   {{-2.5, 2}, {-1, 5}}, {{-1, 4}, {0.5, 4.5}},
      {{7, -2}, {7.75, 0}},    {{3.25, -1}, {3.75, 5.5}}};
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<1.0>(), .max_cells_per_box = lwc::CellBudget::of<16>(),
                               .oversize = lwc::Oversize::kCoarserLevels};
  absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::create(boxes, config);
  if (!grid.ok()) return std::fprintf(stderr, "scenes: %s\n", std::string(grid.status().message()).c_str()), 1;
  absl::StatusOr<lwc::PairsResult> pairs = grid->pairs();
  const lwc::Box2 query{{3, 2.5}, {5, 4.5}};
  absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(query);
  const lwc::Segment<2> ray{{-3.5, 0.25}, {8, 3.75}};
  absl::StatusOr<std::vector<std::uint32_t>> rays = ray_hits<2>(boxes, config, ray);
  if (!pairs.ok() || !hits.ok() || !rays.ok()) return std::fprintf(stderr, "scenes: a query failed\n"), 1;
  const lwc::draw::Mark mark{{-2, -1}, "a mark at (-2, -1)", lwc::draw::palette::kInk};
  lwc::draw::Scene2 scene{.boxes = boxes, .grid = config, .pairs = pairs->pairs, .reference_cells = true,
                          .query = query, .query_hits = *hits, .ray = ray, .ray_hits = *rays,
                          .view = lwc::draw::ViewShape{{-1, -1}, 1, 2.5, "origin cell (-1, -1), bubble 2.5 units"},
                          .marks = std::span(&mark, 1), .title = "lwc.draw: ten boxes at cell size 1"};
  absl::StatusOr<std::string> svg = lwc::draw::svg(scene);
  if (!svg.ok()) return std::fprintf(stderr, "scenes: %s\n", std::string(svg.status().message()).c_str()), 1;
  const std::string json = "{\"boxes\":" + list_json<lwc::Box2>(boxes, box_json<2>) + ",\"cell_size\":1" +
                           ",\"pairs\":" + list_json<lwc::Pair>(pairs->pairs, pair_json) + ",\"query\":" + box_json<2>(query) +
                           ",\"query_hits\":" + list_json<std::uint32_t>(*hits, id_json) + ",\"ray\":[" + num(ray.from[0]) +
                           "," + num(ray.from[1]) + "," + num(ray.to[0]) + "," + num(ray.to[1]) +
                           "],\"ray_hits\":" + list_json<std::uint32_t>(*rays, id_json) +
                           ",\"points\":[[-1,-1],[-2,-1]]}\n";  // the view's origin and the mark
  return write(dir + "/scene_small.svg", *svg) && write(dir + "/scene_small.json", json) ? 0 : 1;
}

// 100,000 boxes in a 1000 x 1000 world, in towns of every density (sides up to 4), a query and a ray
// through it: aggregated. The pairs drawn are a chosen subset: those of the boxes the query hits.
int dense(const std::string& dir) {
  std::mt19937_64 rng(20261129);
  std::uniform_real_distribution<double> unit(0, 1), side(0.25, 4);
  std::normal_distribution<double> spread(0, 1);
  std::vector<std::array<double, 3>> towns(24);  // x, y, radius
  for (auto& t : towns) t = {100 + 800 * unit(rng), 100 + 800 * unit(rng), 15 + 90 * unit(rng)};
  const auto grid8 = [](double v) { return std::floor(std::clamp(v, 0.0, 996.0) * 8) / 8; };
  std::vector<lwc::Box2> boxes(100000);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    double x = 1000 * unit(rng), y = 1000 * unit(rng);
    if (i % 5 != 0) {  // four in five in a town
      const auto& t = towns[i % towns.size()];
      x = t[0] + t[2] * spread(rng), y = t[1] + t[2] * spread(rng);
    }
    x = grid8(x), y = grid8(y);
    boxes[i] = {{x, y}, {x + std::floor(side(rng) * 8) / 8, y + std::floor(side(rng) * 8) / 8}};
  }
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<4.0>()};
  absl::StatusOr<lwc::Grid<2>> grid = lwc::Grid<2>::create(boxes, config);
  if (!grid.ok()) return std::fprintf(stderr, "scenes: %s\n", std::string(grid.status().message()).c_str()), 1;
  absl::StatusOr<lwc::PairsResult> pairs = grid->pairs();
  const lwc::Box2 query{{400, 600}, {480, 680}};
  absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(query);
  const lwc::Segment<2> ray{{50, 50}, {950, 300}};
  absl::StatusOr<std::vector<std::uint32_t>> rays = ray_hits<2>(boxes, config, ray);
  if (!pairs.ok() || !hits.ok() || !rays.ok()) return std::fprintf(stderr, "scenes: a query failed\n"), 1;
  std::vector<lwc::Pair> chosen;  // the pairs of two boxes the query hits
  for (const lwc::Pair& p : pairs->pairs) {
    if (std::binary_search(hits->begin(), hits->end(), p.a) && std::binary_search(hits->begin(), hits->end(), p.b)) {
      chosen.push_back(p);
    }
  }
  lwc::draw::Scene2 scene{.boxes = boxes, .grid = config, .pairs = chosen, .query = query, .query_hits = *hits,
                          .ray = ray, .ray_hits = *rays,
                          .title = "lwc.draw: 100,000 boxes at cell size 4 (pairs: those within the query's hits)"};
  absl::StatusOr<std::string> svg = lwc::draw::svg(scene);
  if (!svg.ok()) return std::fprintf(stderr, "scenes: %s\n", std::string(svg.status().message()).c_str()), 1;
  std::vector<lwc::Box2> hit_boxes;
  for (std::size_t i = 0; i < hits->size() && i < 2000; ++i) hit_boxes.push_back(boxes[(*hits)[i]]);
  lwc::Box2 bounds = boxes[0];
  for (const lwc::Box2& b : boxes) {
    for (std::size_t k = 0; k < 2; ++k) bounds.min[k] = std::min(bounds.min[k], b.min[k]), bounds.max[k] = std::max(bounds.max[k], b.max[k]);
  }
  const std::string json = "{\"box_count\":" + std::to_string(boxes.size()) + ",\"bounds\":" + box_json<2>(bounds) +
                           ",\"query\":" + box_json<2>(query) + ",\"query_hit_boxes\":" +
                           list_json<lwc::Box2>(hit_boxes, box_json<2>) + ",\"ray\":[" + num(ray.from[0]) + "," +
                           num(ray.from[1]) + "," + num(ray.to[0]) + "," + num(ray.to[1]) +
                           "],\"ray_hits\":" + std::to_string(rays->size()) + "}\n";
  return write(dir + "/scene_dense.svg", *svg) && write(dir + "/scene_dense.json", json) ? 0 : 1;
}

// Eight 3-D boxes, a query and a ray: three projections.
int three(const std::string& dir) {
  const std::vector<lwc::Box3> boxes = {{{0, 0, 0}, {2, 1, 1}}, {{1.5, 0.5, 0.5}, {3, 2, 3}}, {{4, 0, 0}, {5, 5, 1}},
                                        {{0, 3, 2}, {1, 4, 4}}, {{2, 2, 2}, {3, 3, 3}},       {{3, 3, 3}, {4, 4, 4}},
                                        {{-1, -1, 4}, {0, 0, 5}}, {{1, 1, -1}, {1.5, 1.5, 0}}};
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<1.0>()};
  absl::StatusOr<lwc::PairsResult> pairs = lwc::find_pairs(std::span<const lwc::Box3>(boxes), config);
  absl::StatusOr<lwc::Grid<3>> grid = lwc::Grid<3>::create(boxes, config);
  if (!pairs.ok() || !grid.ok()) return std::fprintf(stderr, "scenes: 3-D grid failed\n"), 1;
  const lwc::Box3 query{{1, 0, 0}, {2.5, 1.5, 2}};
  absl::StatusOr<std::vector<std::uint32_t>> hits = grid->query(query);
  if (!hits.ok()) return 1;
  lwc::draw::Scene3 scene{.boxes = boxes, .grid = config, .pairs = pairs->pairs, .query = query, .query_hits = *hits,
                          .title = "lwc.draw: eight 3-D boxes, three projections"};
  absl::StatusOr<std::string> svg = lwc::draw::svg(scene, {.width = 960, .height = 420});
  if (!svg.ok()) return std::fprintf(stderr, "scenes: %s\n", std::string(svg.status().message()).c_str()), 1;
  const std::string json = "{\"boxes\":" + list_json<lwc::Box3>(boxes, box_json<3>) + ",\"cell_size\":1" +
                           ",\"query\":" + box_json<3>(query) + ",\"query_hits\":" + list_json<std::uint32_t>(*hits, id_json) +
                           "}\n";
  return write(dir + "/scene_3d.svg", *svg) && write(dir + "/scene_3d.json", json) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: scenes OUT_DIR\n"), 2;
  const std::string dir = argv[1];
  return small(dir) | dense(dir) | three(dir);
}
