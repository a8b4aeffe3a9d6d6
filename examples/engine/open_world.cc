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
//   5. a late terrain build started before several rebases lands through its world anchor;
//   6. two clients over the wire format (lwc.rebase:wire): every frame the server sends the drones'
//      positions and its render-origin updates as bytes; one client follows the server's origin, the
//      other keeps its own; each decodes the positions exactly and renders them bit for bit as a view at
//      its origin does.
//
// Two views share the world: the camera and a minimap (R12: neither accepts the other's render points,
// tickets or plans). Each frame's simulation step runs between begin_step() and end_step(); a commit
// tried inside it is refused (R13), the same plan commits at the frame boundary.
//
// lwc.decompose is under all of them (and maps centimetres to tiles here). The program checks what an
// engine relies on and exits non-zero if any of it fails, so it runs as a test in every preset, the
// `engine` one (-fno-exceptions -fno-rtti) included.
#include <array>
#include <bit>
#include <cstddef>
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

// Whether two render points hold the same floats bit for bit (R14: a sent position renders exactly).
template <std::size_t N>
bool same_bits(const std::array<float, N>& a, const std::array<float, N>& b) {
  for (std::size_t k = 0; k < N; ++k) {
    if (std::bit_cast<std::uint32_t>(a[k]) != std::bit_cast<std::uint32_t>(b[k])) return false;
  }
  return true;
}

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
      *grid, lwc::ViewConfig{.threshold_cells = lwc::ThresholdCells::of<2>(), .barrier_radius = lwc::BarrierRadius::of<1>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<(kUnitsPerMetre)>()},
      start.cell);
  if (!view.ok()) return 1;

  // The minimap: a second view of the same world, coarser and with a larger bubble.
  absl::StatusOr<lwc::OriginCoordinator<2>> minimap = lwc::OriginCoordinator<2>::create(
      *grid, lwc::ViewConfig{.threshold_cells = lwc::ThresholdCells::of<8>(), .barrier_radius = lwc::BarrierRadius::of<0>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<1'000>(),
                             .bubble_units = lwc::BubbleUnits::of<(std::int64_t{1} << 30)>()},
      start.cell);
  if (!minimap.ok()) return 1;

  // The clients: each owns a view of its own (its own origin) and sees the world only through bytes.
  // The follower tracks the server camera's origin from its updates; the spectator stays where the
  // player started.
  struct Client {
    lwc::OriginCoordinator<2> view;
    bool follows_server;
    std::uint64_t positions_received = 0;
  };
  std::vector<Client> clients;
  for (const bool follows : {true, false}) {
    absl::StatusOr<lwc::OriginCoordinator<2>> v = lwc::OriginCoordinator<2>::create(
        *grid, lwc::ViewConfig{.threshold_cells = lwc::ThresholdCells::of<1>(), .barrier_radius = lwc::BarrierRadius::of<1>(), .units_per_render_unit = lwc::UnitsPerRenderUnit::of<(kUnitsPerMetre)>()},
        start.cell);
    if (!v.ok()) return 1;
    clients.push_back(Client{*std::move(v), follows});
  }
  std::vector<std::vector<std::uint8_t>> wire;  // this frame's messages, server to every client
  int refused_mid_step = 0;

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
    const lwc::Point2 lo{player.units[0] - kStreamRadius, player.units[1] - kStreamRadius};
    const lwc::Point2 hi{player.units[0] + kStreamRadius, player.units[1] + kStreamRadius};
    const absl::StatusOr<std::optional<lwc::ChunkBox2>> window = lwc::cover_closed(lo, hi, kCell);
    expect(window.ok() && window->has_value(), "the streaming window has cells");
    if (window.ok() && window->has_value()) {
      expect_ok(lwc::for_each_chunk(**window, lwc::ChunkBudget::of<kMaxCellsPerFrame>(),
                                    [&](lwc::Point2 c) { view->load({c.x, c.y}); }),
                "streaming within budget");
    }

    // 2. Floating origin: plan during the frame's simulation step, commit at its boundary. A commit
    //    inside the step is refused (R13); the barrier is checked again at commit, so a cell unloaded in
    //    between cannot slip through.
    expect_ok(view->begin_step(), "begin_step");
    expect_ok(minimap->begin_step(), "begin_step (minimap)");
    const absl::StatusOr<std::optional<lwc::RebasePlan<2>>> plan = view->plan(observer);
    expect_ok(plan.status(), "plan");
    if (plan.ok() && plan->has_value()) {
      const absl::StatusOr<lwc::Rebased<2>> early = view->commit(**plan);
      expect(early.status().code() == absl::StatusCode::kUnavailable, "a commit inside the step is refused (R13)");
      refused_mid_step += !early.ok();
      // The minimap refuses the camera's plan: same world, another view (R12).
      expect(minimap->commit(**plan).status().code() == absl::StatusCode::kInvalidArgument,
             "the minimap refuses the camera's plan (R12)");
    }
    expect_ok(view->end_step(), "end_step");
    expect_ok(minimap->end_step(), "end_step (minimap)");
    wire.clear();
    if (plan.ok() && plan->has_value()) {
      const absl::StatusOr<lwc::Rebased<2>> done = view->commit(**plan);
      expect_ok(done.status(), "commit of the origin at the frame boundary");
      if (done.ok()) {
        ++rebases;
        wire.push_back(lwc::encode_origin_update<2>(*done));  // render-origin update for the clients
      }
    }
    for (const lwc::CellIndex<2>& c : minimap->missing_cells(observer.cell)) minimap->load(c);
    const absl::StatusOr<std::optional<lwc::RebasePlan<2>>> map_plan = minimap->plan(observer);
    if (map_plan.ok() && map_plan->has_value()) expect_ok(minimap->commit(**map_plan).status(), "minimap commit");
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
    const lwc::ChunkPoint2 tile = lwc::split(lwc::Point2{player.units[0], player.units[1]}, kTile);
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

    // The two views' render points never mix (R12): the minimap's point of a drone, given to the camera.
    const absl::StatusOr<lwc::RenderPoint<2>> on_map = minimap->to_render(drones[0]);
    expect(on_map.ok() && view->from_render(*on_map).status().code() == absl::StatusCode::kInvalidArgument,
           "the camera refuses the minimap's render point (R12)");

    // 6. The wire: the drones' positions as bytes (after this frame's origin update, if any). Each client
    //    applies origin updates to its own view, decodes every position exactly, and renders it with its
    //    own origin: bit for bit what a view at that origin computes from the authoritative position.
    for (const lwc::WorldPosition<2>& d : drones) {
      const absl::StatusOr<std::vector<std::uint8_t>> bytes = lwc::encode_position<2>(d, kCell);
      expect_ok(bytes.status(), "encode a drone position");
      if (bytes.ok()) wire.push_back(*bytes);
    }
    for (Client& client : clients) {
      std::size_t index = 0;
      for (const std::vector<std::uint8_t>& message : wire) {
        const absl::StatusOr<lwc::WireHeader> header = lwc::read_wire_header(message);
        expect_ok(header.status(), "a wire header");
        if (!header.ok()) continue;
        if (header->kind == lwc::WireKind::kOriginUpdate) {
          const absl::StatusOr<lwc::Rebased<2>> update = lwc::decode_origin_update<2>(message);
          expect_ok(update.status(), "decode an origin update");
          if (!update.ok() || !client.follows_server) continue;
          // The client streams the neighbourhood of its new origin, then moves its own view there.
          for (const lwc::CellIndex<2>& c : client.view.missing_cells(update->origin)) client.view.load(c);
          const lwc::RebasePlan<2> follow{client.view.origin(), update->origin, client.view.version(), client.view.id()};
          expect_ok(client.view.commit(follow).status(), "the follower moves to the server's origin");
          continue;
        }
        const absl::StatusOr<lwc::WorldPosition<2>> p = lwc::decode_position<2>(message, kCell);
        expect(p.ok() && *p == drones[index], "a position arrives exactly (R14)");
        if (!p.ok()) continue;
        ++client.positions_received;
        const absl::StatusOr<lwc::RenderPoint<2>> seen = client.view.to_render(*p);
        const absl::StatusOr<lwc::OriginCoordinator<2>> mirror =
            lwc::OriginCoordinator<2>::create(*grid, client.view.config(), client.view.origin());
        const absl::StatusOr<lwc::RenderPoint<2>> want =
            mirror.ok() ? mirror->to_render(drones[index]) : absl::StatusOr<lwc::RenderPoint<2>>(mirror.status());
        expect(seen.ok() && want.ok() && same_bits(seen->at, want->at),
               "a client renders a sent position bit for bit as a view at its origin does");
        ++index;
      }
    }
    expect(clients[0].view.origin() == view->origin(), "the follower's origin is the server camera's");

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
  expect(refused_mid_step == rebases, "every commit tried inside a step was refused, then made at the boundary");
  expect(clients[1].view.version() == 0, "the spectator kept its own origin");
  const std::shared_ptr<const lwc::Batch<BakedRun>> batch = terrain.published();
  std::printf("%d frames: %d rebases (origin version %llu; %d refused mid-step; minimap version %llu), %zu cells "
              "loaded, %llu drone contacts, terrain batch %llu with %zu runs; player at x = %lld cm; "
              "%llu + %llu positions over the wire\n",
              kFrames, rebases, static_cast<unsigned long long>(view->version()), refused_mid_step,
              static_cast<unsigned long long>(minimap->version()), view->loaded_count(),
              static_cast<unsigned long long>(pairs_seen), static_cast<unsigned long long>(batch->sequence),
              batch->entries.size(), static_cast<long long>(player.units[0]),
              static_cast<unsigned long long>(clients[0].positions_received),
              static_cast<unsigned long long>(clients[1].positions_received));
  return failures == 0 ? 0 : 1;
}
