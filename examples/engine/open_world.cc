// SPDX-License-Identifier: MIT
// File: examples/engine/open_world.cc
//
// One open-world frame loop with all five contracts wired as an engine wires them. A player flies east
// near the far end of int64 (10 km before x = INT64_MAX centimetres, where a double has a 2 km ulp and
// a float cannot tell two continents apart), with a swarm of drones around it. Every frame:
//
//   1. lwc.cover      the streaming window around the player -> the cells to load, under a budget;
//   2. lwc.rebase     plan the origin move; commit it only at the frame boundary, barrier re-checked;
//                     render coordinates re-derived from the authoritative positions, never shifted;
//   3. lwc.broadphase the drones' boxes in render space -> every touching pair, exactly once;
//   4. lwc.commit     the tiles the player digs -> dirty chunks -> runs, baked and published atomically
//                     (one bake fails on purpose: nothing is published, nothing is lost, next frame
//                     retries);
//   5. a late terrain build started before several rebases lands through its world anchor.
//
// lwc.decompose is under all of them (and maps centimetres to tiles here). The program checks what an
// engine relies on and exits non-zero if any of it fails, so it runs as a test in every preset, the
// `engine` one (-fno-exceptions -fno-rtti) included.
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kCellUnits = 10'240;          // world units are centimetres: 102.4 m cells
constexpr std::int64_t kUnitsPerMetre = 100;          // render units are metres
constexpr std::int64_t kStreamRadius = 2 * kCellUnits;
constexpr std::uint64_t kMaxCellsPerFrame = 64;       // the streaming budget
constexpr int kFrames = 60;
constexpr std::int64_t kStep = 5'000;                 // 50 m per frame
constexpr lwc::ChunkSize kTile = lwc::ChunkSize::of<kUnitsPerMetre>();  // 1 m tiles
constexpr lwc::ChunkSize kTileChunk = lwc::ChunkSize::of<16>();          // 16 x 16 tiles per chunk

// A baked tile chunk run: what collision or rendering would consume.
struct BakedRun {
  std::uint64_t tiles;
};

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  ++failures;
}

void expect_ok(const absl::Status& s, const std::string& what) {
  expect(s.ok(), what + ": " + std::string(s.message()));
}

lwc::FixedPoint<2> drone_home(int i, const lwc::FixedPoint<2>& player) {
  // A line of 24 drones, 6 m apart in x and staggered in y, so that neighbours' 8 m boxes overlap.
  return lwc::FixedPoint<2>{{player.units[0] - 7'200 + 600 * i, player.units[1] + 300 * (i % 3)}};
}

}  // namespace

int main() {
  constexpr lwc::ChunkSize kCell = lwc::ChunkSize::of<kCellUnits>();
  const absl::StatusOr<lwc::WorldGrid> grid = lwc::WorldGrid::create(kCell);
  if (!grid.ok()) return 1;
  lwc::FixedPoint<2> player{{kMax - 1'000'000, -42}};  // 10 km before the end of int64, just south of 0

  // The view starts centred on the player, as a loaded save would restore it.
  const lwc::WorldPosition<2> start = grid->from_fixed(player);
  absl::StatusOr<lwc::OriginCoordinator<2>> view = lwc::OriginCoordinator<2>::create(
      *grid, lwc::ViewConfig{.threshold_cells = 2, .barrier_radius = 1, .units_per_render_unit = kUnitsPerMetre},
      start.cell);
  if (!view.ok()) return 1;

  std::vector<lwc::WorldPosition<2>> drones;
  for (int i = 0; i < 24; ++i) drones.push_back(grid->from_fixed(drone_home(i, player)));
  const std::vector<lwc::WorldPosition<2>> authority = drones;  // no rebase may write these (R2)

  lwc::Committer<BakedRun> terrain(kTileChunk);
  std::optional<lwc::LateResult<2>> late_build;
  std::optional<lwc::LateResult<2>> late_baked;
  int rebases = 0;
  std::uint64_t pairs_seen = 0;
  bool injected_failure = false;

  for (int frame = 0; frame < kFrames; ++frame) {
    player.units[0] += kStep;  // stays 7 km clear of INT64_MAX: no overflow to guard here
    const lwc::WorldPosition<2> observer = grid->from_fixed(player);

    // 1. Streaming: the cells of the window [player - r, player + r] (closed: its far end may be the
    //    last representable centimetre), under a budget checked before the first load.
    const lwc::Int2 lo{player.units[0] - kStreamRadius, player.units[1] - kStreamRadius};
    const lwc::Int2 hi{player.units[0] + kStreamRadius, player.units[1] + kStreamRadius};
    const absl::StatusOr<std::optional<lwc::ChunkBox2>> window = lwc::cover_closed(lo, hi, kCell);
    expect(window.ok() && window->has_value(), "the streaming window has cells");
    if (window.ok() && window->has_value()) {
      expect_ok(lwc::for_each_chunk(**window, lwc::ChunkBudget::of<kMaxCellsPerFrame>(),
                                    [&](lwc::Int2 c) { view->load({c.x, c.y}); }),
                "streaming within budget");
    }

    // 2. Floating origin: plan during the frame, commit at its boundary. The barrier is checked again
    //    at commit, so a cell unloaded in between cannot slip through.
    const absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view->plan(observer);
    expect_ok(plan.status(), "plan");
    if (plan.ok() && plan->has_value()) {
      const absl::StatusOr<lwc::Rebased<2>> done = view->commit(**plan);
      expect_ok(done.status(), "commit of the origin");
      if (done.ok()) ++rebases;
    }
    std::vector<std::array<float, 2>> render(drones.size());
    const absl::StatusOr<std::size_t> outside = view->to_render_all(drones, std::span(render));
    expect(outside.ok() && *outside == 0, "every drone is inside the render bubble");

    // 3. Broad phase in render space: 8 m boxes around each drone (touching counts), each overlapping
    //    pair once, in canonical order, whichever grid cells the two boxes share.
    std::vector<lwc::Box2> boxes;
    for (const std::array<float, 2>& at : render) {
      boxes.push_back(lwc::Box2{{at[0] - 4.0, at[1] - 4.0}, {at[0] + 4.0, at[1] + 4.0}});
    }
    const absl::StatusOr<lwc::PairsResult> contacts =
        lwc::find_pairs(std::span<const lwc::Box2>(boxes), lwc::GridConfig{.cell_size = lwc::CellSize::of<8.0>()});
    expect_ok(contacts.status(), "find_pairs");
    std::size_t overlapping = 0;  // what an all-pairs test would find
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      for (std::size_t j = i + 1; j < boxes.size(); ++j) overlapping += lwc::overlaps(boxes[i], boxes[j]);
    }
    expect(contacts.ok() && contacts->pairs.size() == overlapping, "every overlapping pair exactly once (B1-B3)");
    if (contacts.ok()) pairs_seen += contacts->pairs.size();

    // 4. Terrain edits: the player digs a 3 x 3 patch of 1 m tiles under itself; every few frames the
    //    dirty chunks are baked and published in one swap.
    const lwc::ChunkPoint2 tile = lwc::split(lwc::Int2{player.units[0], player.units[1]}, kTile);
    for (std::int64_t dy = -1; dy <= 1; ++dy) {
      for (std::int64_t dx = -1; dx <= 1; ++dx) terrain.mark({tile.chunk.x + dx, tile.chunk.y + dy});
    }
    if (frame % 10 == 9) {
      const std::size_t pending = terrain.pending_chunks();
      const std::uint64_t sequence = terrain.published()->sequence;
      const bool fail_now = !injected_failure;  // the first bake fails: a full disk, a lost device
      const absl::StatusOr<lwc::CommitReport> report =
          terrain.commit([&](const lwc::ChunkRun& run) -> absl::StatusOr<BakedRun> {
            if (fail_now) return absl::UnavailableError("bake: device lost");
            return BakedRun{run.size() * kTileChunk.value() * kTileChunk.value()};
          });
      if (fail_now) {
        injected_failure = true;
        expect(!report.ok() && terrain.pending_chunks() == pending &&
                   terrain.published()->sequence == sequence,
               "a failed bake publishes nothing and keeps every dirty chunk (T4)");
      } else {
        expect(report.ok() && report->chunks_published == pending && terrain.pending_chunks() == 0,
               "a successful bake publishes every pending chunk and clears exactly those (T5)");
      }
    }

    // 5. Late results: two terrain builds start at frame 5; they finish at frame 40, rebases later.
    if (frame == 5) {
      late_build = view->start_late(drones[0], lwc::LatePlacement::kRelocatable);
      late_baked = view->start_late(drones[0], lwc::LatePlacement::kBakedLocal);
    }
    if (frame == 40 && late_build && late_baked) {
      const absl::StatusOr<lwc::RenderPoint<2>> placed = view->place_late(*late_build);
      const absl::StatusOr<lwc::RenderPoint<2>> fresh = view->to_render(drones[0]);
      expect(placed.ok() && fresh.ok() && *placed == *fresh,
             "a relocatable late result lands exactly where its anchor is now (R9)");
      expect(view->place_late(*late_baked).status().code() == absl::StatusCode::kAborted,
             "a result baked in an old frame is refused, to be rebuilt (R9)");
    }
  }

  expect(drones == authority, "no rebase wrote an authoritative position (R2)");
  expect(rebases > 0, "the player travelled far enough to move the origin");
  const std::shared_ptr<const lwc::Batch<BakedRun>> batch = terrain.published();
  std::printf("%d frames: %d rebases (origin version %llu), %zu cells loaded, %llu drone contacts, "
              "terrain batch %llu with %zu runs; player at x = %lld cm\n",
              kFrames, rebases, static_cast<unsigned long long>(view->version()), view->loaded_count(),
              static_cast<unsigned long long>(pairs_seen), static_cast<unsigned long long>(batch->sequence),
              batch->entries.size(), static_cast<long long>(player.units[0]));
  return failures == 0 ? 0 : 1;
}
