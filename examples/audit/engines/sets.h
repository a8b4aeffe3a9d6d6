// SPDX-License-Identifier: MIT
// File: examples/audit/engines/sets.h
//
// The box sets every engine tracer traces, and the trace line it writes (docs/audit.md, "broadphase
// records"). Every coordinate is a multiple of 1/8, so it is exact in float (Bullet's btScalar) and in
// double, and "%.17g" writes it exactly. A tracer writes the engine's raw pairs, in the engine's order and
// orientation; the audit reads them with --canonicalise.
#ifndef LWC_EXAMPLES_AUDIT_ENGINES_SETS_H_
#define LWC_EXAMPLES_AUDIT_ENGINES_SETS_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace tracer {

struct Box {
  double min_x, min_y, max_x, max_y;
};

struct Set {
  std::string name;
  std::vector<Box> boxes;
};

// Seed 001's set (docs/broadphase.md): x, y in {-2, -1.5, ..., 2}, width and height in {0, 1, 2}: 729
// boxes, 53,100 overlapping pairs, most of them touching, a third of the boxes of zero extent on an axis.
inline Set seed_set() {
  Set s{"seed 001 (729 boxes)", {}};
  for (int xi = 0; xi < 9; ++xi) {
    for (int yi = 0; yi < 9; ++yi) {
      for (int w = 0; w < 3; ++w) {
        for (int h = 0; h < 3; ++h) {
          const double x = -2 + 0.5 * xi;
          const double y = -2 + 0.5 * yi;
          s.boxes.push_back({x, y, x + w, y + h});
        }
      }
    }
  }
  return s;
}

// Boxes on the lines of a unit grid: 8 x 8 tiles sharing edges and corners, a point on every lattice
// point, a unit segment along every cell edge of the first row and column, and points in the middle of
// the edges of row 4, each twice (identical zero-extent boxes).
inline Set cell_line_set() {
  Set s{"", {}};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) s.boxes.push_back({double(i), double(j), double(i + 1), double(j + 1)});
  }
  for (int i = 0; i <= 8; ++i) {
    for (int j = 0; j <= 8; ++j) s.boxes.push_back({double(i), double(j), double(i), double(j)});
  }
  for (int i = 0; i < 8; ++i) {
    s.boxes.push_back({double(i), 0, double(i + 1), 0});
    s.boxes.push_back({0, double(i), 0, double(i + 1)});
  }
  for (int i = 0; i < 16; ++i) s.boxes.push_back({double(i % 8) + 0.5, 4, double(i % 8) + 0.5, 4});  // twice each
  s.name = "cell lines (" + std::to_string(s.boxes.size()) + " boxes)";
  return s;
}

// 400 boxes from a fixed linear congruential generator: corners on the 1/8 grid in [0, 16), sides of 0 to
// 2 in steps of 1/8 (one in eight of zero length), so many boxes touch or come within 1/8 of each other.
inline Set random_set() {
  Set s{"random (400 boxes, seed 17)", {}};
  std::uint64_t state = 17;
  const auto next = [&state](std::uint64_t n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state >> 33) % n);
  };
  for (int i = 0; i < 400; ++i) {
    const double x = next(128) / 8.0;
    const double y = next(128) / 8.0;
    const double w = next(8) == 0 ? 0 : next(17) / 8.0;
    const double h = next(8) == 0 ? 0 : next(17) / 8.0;
    s.boxes.push_back({x, y, x + w, y + h});
  }
  return s;
}

inline std::vector<Set> all_sets() { return {seed_set(), cell_line_set(), random_set()}; }

// One find_pairs record: the boxes and the engine's pairs as it reported them.
inline void write_record(std::FILE* out, const std::string& engine, const Set& set,
                         const std::vector<std::pair<int, int>>& pairs) {
  std::fprintf(out, R"({"schema":1,"contract":"broadphase","op":"find_pairs","engine":"%s","set":"%s","in":{"boxes":[)",
               engine.c_str(), set.name.c_str());
  for (std::size_t i = 0; i < set.boxes.size(); ++i) {
    const Box& b = set.boxes[i];
    std::fprintf(out, "%s[%.17g,%.17g,%.17g,%.17g]", i ? "," : "", b.min_x, b.min_y, b.max_x, b.max_y);
  }
  std::fprintf(out, R"(]},"out":{"pairs":[)");
  for (std::size_t i = 0; i < pairs.size(); ++i) std::fprintf(out, "%s[%d,%d]", i ? "," : "", pairs[i].first, pairs[i].second);
  std::fprintf(out, "]}}\n");
}

}  // namespace tracer

#endif  // LWC_EXAMPLES_AUDIT_ENGINES_SETS_H_
