// SPDX-License-Identifier: MIT
// File: capi/draw.cc                    Library: lwc::c, lwc::c_shared
//
// The C API of lwc.draw (capi/include/lwc.h, "lwc.draw"): lwc_draw_svg2 over lwc::draw::svg(Scene2), with
// the conventions of every entry point (docs/c_api.md): arguments checked first, the C++ call, then the
// copy into the caller's buffer, so that an error writes nothing (F3) and a small buffer only the size
// needed (F4); the code is the C++ call's (F1) and its message the thread's last error (F2).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lwc.h"

import lwc.draw;

lwc_status lwc_c_fail(lwc_status code, std::string message);  // capi/lwc.cc: the thread's last error (F2)

namespace {

lwc_status fail(const absl::Status& status) {
  return lwc_c_fail(static_cast<lwc_status>(status.code()), std::string(status.message()));
}

absl::Status refused(const char* what) {
  return absl::InvalidArgumentError(std::string("lwc_draw_svg2: ") + what + " (F3)");
}

template <typename T>
bool missing(const T* array, std::size_t count) {
  return array == nullptr && count != 0;
}

// The scene's C arrays as spans of the C++ types (same layouts: lwc_box2 is Box2, lwc_pair is Pair).
lwc::Box2 box_of(const lwc_box2& b) { return {{b.min[0], b.min[1]}, {b.max[0], b.max[1]}}; }

absl::StatusOr<lwc::GridConfig> grid_of(const lwc_grid_config& c) {
  absl::StatusOr<lwc::CellSize> h = lwc::CellSize::create(c.cell_size);
  absl::StatusOr<lwc::CellBudget> cells = lwc::CellBudget::create(c.max_cells_per_box);
  absl::StatusOr<lwc::MembershipBudget> memberships = lwc::MembershipBudget::create(c.max_memberships);
  absl::StatusOr<lwc::PairBudget> pairs = lwc::PairBudget::create(c.max_pairs);
  for (const absl::Status& s : {h.status(), cells.status(), memberships.status(), pairs.status()}) {
    if (!s.ok()) return s;
  }
  if (c.oversize != LWC_OVERSIZE_REJECT && c.oversize != LWC_OVERSIZE_COARSER_LEVELS) {
    return refused("grid->oversize is neither LWC_OVERSIZE_REJECT nor LWC_OVERSIZE_COARSER_LEVELS");
  }
  return lwc::GridConfig{.cell_size = *h, .max_cells_per_box = *cells, .max_memberships = *memberships,
                         .max_pairs = *pairs,
                         .oversize = c.oversize == LWC_OVERSIZE_REJECT ? lwc::Oversize::kReject
                                                                       : lwc::Oversize::kCoarserLevels};
}

absl::StatusOr<std::string> draw(const lwc_draw_scene2& c, const lwc_draw_style* style) {
  if (missing(c.boxes, c.box_count) || missing(c.pairs, c.pair_count) || missing(c.missed, c.missed_count) ||
      missing(c.extra, c.extra_count) || missing(c.query_hits, c.query_hit_count) ||
      missing(c.ray_hits, c.ray_hit_count)) {
    return refused("an array of the scene is NULL with a count > 0");
  }
  std::vector<lwc::Box2> boxes(c.box_count);
  for (std::size_t i = 0; i < c.box_count; ++i) boxes[i] = box_of(c.boxes[i]);
  const auto pairs = [](const lwc_pair* p, std::size_t n) {
    std::vector<lwc::Pair> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = {p[i].a, p[i].b};
    return out;
  };
  const std::vector<lwc::Pair> drawn = pairs(c.pairs, c.pair_count), missed = pairs(c.missed, c.missed_count),
                               extra = pairs(c.extra, c.extra_count);
  lwc::draw::Scene2 scene;
  scene.boxes = boxes;
  if (c.grid != nullptr) {
    absl::StatusOr<lwc::GridConfig> grid = grid_of(*c.grid);
    if (!grid.ok()) return grid.status();
    scene.grid = *grid;
  }
  scene.cells = c.cells != 0;
  scene.pairs = drawn;
  scene.reference_cells = c.reference_cells != 0;
  scene.missed = missed;
  scene.extra = extra;
  if (c.query != nullptr) scene.query = box_of(*c.query);
  scene.query_hits = std::span<const std::uint32_t>(c.query_hits, c.query_hit_count);
  if (c.ray != nullptr) scene.ray = lwc::Segment<2>{{c.ray->from[0], c.ray->from[1]}, {c.ray->to[0], c.ray->to[1]}};
  scene.ray_hits = std::span<const std::uint32_t>(c.ray_hits, c.ray_hit_count);
  if (c.view != nullptr) {
    scene.view = lwc::draw::ViewShape{{c.view->origin[0], c.view->origin[1]}, c.view->cell_size, c.view->bubble,
                                      "origin (" + lwc::draw::exact(c.view->origin[0]) + ", " +
                                          lwc::draw::exact(c.view->origin[1]) + ")"};
  }
  if (c.title != nullptr) scene.title = c.title;
  lwc::draw::Style s;
  if (style != nullptr) {
    s = {.width = style->width, .height = style->height, .dense_boxes = style->dense_boxes,
         .max_items = style->max_items, .bin_pixels = style->bin_pixels};
  }
  return lwc::draw::svg(scene, s);
}

}  // namespace

LWC_API lwc_draw_style lwc_draw_style_default(void) {
  const lwc::draw::Style s;
  return {s.width, s.height, s.dense_boxes, s.max_items, s.bin_pixels};
}

LWC_API lwc_status lwc_draw_svg2(const lwc_draw_scene2* scene, const lwc_draw_style* style, char* svg,
                                 size_t capacity, size_t* size) {
  if (scene == nullptr) return fail(refused("scene is NULL"));
  if (size == nullptr) return fail(refused("size is NULL"));
  if (svg == nullptr && capacity != 0) return fail(refused("svg is NULL with a capacity > 0"));
  const absl::StatusOr<std::string> picture = draw(*scene, style);
  if (!picture.ok()) return fail(picture.status());
  if (picture->size() >= capacity) {
    *size = picture->size();
    return lwc_c_fail(LWC_BUFFER_TOO_SMALL, "lwc_draw_svg2: the picture has " + std::to_string(picture->size()) +
                                                " bytes and its NUL, the buffer room for " + std::to_string(capacity) +
                                                " (F4)");
  }
  std::memcpy(svg, picture->data(), picture->size());
  svg[picture->size()] = '\0';
  *size = picture->size();
  return LWC_OK;
}
