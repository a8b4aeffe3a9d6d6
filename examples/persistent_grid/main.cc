// SPDX-License-Identifier: MIT
// File: examples/persistent_grid/main.cc
//
// The persistent broad phase in an engine's frame loop (docs/broadphase.md, E1-E12), with only the public
// API: a top-down level where a player walks east, collects a pickup, fires a bullet at a squad of enemies
// and stops at a wall. Every frame the engine moves what moved, asks update() for the contact events since
// the previous frame, and reacts to them by the user data it stored with each box (an index into its own
// entity list). Filter bits say which kinds may touch (bullets never hit the player, pickups only the
// player); a pair predicate keeps the two enemies of one squad apart although their boxes overlap. A radar
// query lists what is near the player, and a ray cast from the player decides line of sight.
//
// The program checks what an engine relies on — each event once, at the frame its boxes begin to overlap
// (judged with lwc::overlaps on the engine's own boxes), filtered pairs never reported, the radar equal to
// a scan of the entity list, the wall blocking the ray — and exits non-zero if any of it fails, so it runs
// as a test in every preset, the `engine` one (-fno-exceptions -fno-rtti) included. docs/broadphase.md
// quotes the frame loop below (scripts/api.py keeps the quote equal to this file).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

import lwc;

namespace {

// What the engine's entities are, as filter bits (E8).
enum Kind : std::uint64_t { kPlayer = 1, kEnemy = 2, kBullet = 4, kWall = 8, kPickup = 16 };

struct Entity {
  Kind kind = kPlayer;
  int squad = 0;          // enemies of one squad never collide with each other (the pair predicate)
  lwc::Box2 box{};
  double velocity_x = 0;  // metres per frame
  lwc::Handle handle{};
  bool alive = true;
};

// What may touch what: (a.group & b.mask) && (b.group & a.mask).
lwc::Filter filter_of(Kind kind) {
  switch (kind) {
    case kPlayer: return {.group = kPlayer, .mask = kEnemy | kWall | kPickup};
    case kEnemy: return {.group = kEnemy, .mask = kPlayer | kBullet | kWall};
    case kBullet: return {.group = kBullet, .mask = kEnemy | kWall};
    case kWall: return {.group = kWall, .mask = kPlayer | kEnemy | kBullet};
    case kPickup: return {.group = kPickup, .mask = kPlayer};
  }
  return {};
}

// The pair predicate (E8): asked only for pairs whose filter bits pass; the user data are entity indexes.
bool different_squads(void* context, lwc::UserData lower, lwc::UserData higher) {
  const auto& entities = *static_cast<const std::vector<Entity>*>(context);
  const Entity& a = entities[lower];
  const Entity& b = entities[higher];
  return a.squad == 0 || a.squad != b.squad;
}

lwc::Box2 box_at(double x, double y, double w, double h) { return {{x, y}, {x + w, y + h}}; }

lwc::Box2 moved(const lwc::Box2& b, double dx) {
  return {{b.min[0] + dx, b.min[1]}, {b.max[0] + dx, b.max[1]}};
}

std::array<double, 2> centre(const lwc::Box2& b) {
  return {(b.min[0] + b.max[0]) / 2, (b.min[1] + b.max[1]) / 2};
}

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  std::vector<Entity> world = {
      {.kind = kPlayer, .box = box_at(0, 0, 1, 1), .velocity_x = 0.5},
      {.kind = kWall, .box = box_at(12, -10, 1, 20)},
      {.kind = kEnemy, .squad = 7, .box = box_at(6, 3, 1, 1)},
      {.kind = kEnemy, .squad = 7, .box = box_at(6.5, 3.5, 1, 1)},  // overlaps its squad mate
      {.kind = kEnemy, .squad = 9, .box = box_at(20, 0, 1, 1)},    // behind the wall
      {.kind = kPickup, .box = box_at(3, 0, 0.5, 1)},
  };
  constexpr std::size_t kPlayerId = 0, kWallId = 1, kEnemyA = 2, kEnemyB = 3, kEnemyBehind = 4, kPickupId = 5;

  // quote: create
  // Cells of 4 m; the default budgets; the pair predicate sees the engine's entity list as its context.
  const lwc::GridConfig config{.cell_size = lwc::CellSize::of<4.0>()};
  absl::StatusOr<lwc::PersistentGrid<2>> created =
      lwc::PersistentGrid<2>::create(config, lwc::PairFilter{.fn = different_squads, .context = &world});
  if (!created.ok()) {
    std::printf("create: %s\n", created.status().ToString().c_str());
    return 1;
  }
  lwc::PersistentGrid<2>& grid = *created;
  for (std::size_t id = 0; id < world.size(); ++id) {
    absl::StatusOr<lwc::Handle> h = grid.insert(world[id].box, lwc::UserData{id}, filter_of(world[id].kind));
    if (!h.ok()) {
      std::printf("insert entity %zu: %s\n", id, h.status().ToString().c_str());
      return 1;
    }
    world[id].handle = *h;
  }
  // end quote: create

  lwc::ContactEvents events;  // reused every frame: a warm grid and warm lists allocate nothing (E12)
  int pickups_collected = 0, enemy_hits = 0, wall_stops = 0, squad_pairs_reported = 0;
  int collected_at = -1, first_touch_at = -1;  // frames
  std::size_t bullet = 0;                      // 0: no bullet fired yet

  for (int frame = 0; frame < 40; ++frame) {

    // quote: frame-loop
    // 1. Move what moved. A bullet is fast: it moves kSwept, so a contact it would tunnel through is
    //    reported too (E6).
    for (Entity& e : world) {
      if (!e.alive || e.velocity_x == 0) continue;
      e.box = moved(e.box, e.velocity_x);
      const lwc::Motion how = e.kind == kBullet ? lwc::Motion::kSwept : lwc::Motion::kTeleport;
      if (absl::Status s = grid.move(e.handle, e.box, how); !s.ok()) {
        std::printf("move: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    if (frame == 2) {  // fire east from the player
      const lwc::Box2 b = box_at(world[kPlayerId].box.max[0], 3.4, 0.2, 0.2);
      world.push_back({.kind = kBullet, .box = b, .velocity_x = 2.5});
      bullet = world.size() - 1;
      absl::StatusOr<lwc::Handle> h = grid.insert(b, lwc::UserData{bullet}, filter_of(kBullet));
      if (!h.ok()) return 1;
      world[bullet].handle = *h;
    }

    // 2. The events since the previous frame, each pair once, in canonical order (E1).
    if (absl::Status s = grid.update_into(events); !s.ok()) {
      std::printf("update: %s\n", s.ToString().c_str());
      return 1;
    }

    // 3. React by user data: the grid hands back the indexes the engine gave it (E7).
    auto react = [&](const lwc::Contact& c) {
      Entity& a = world[c.user_a];
      Entity& b = world[c.user_b];
      Entity& other = a.kind == kPlayer || a.kind == kBullet ? b : a;
      Entity& self = &other == &a ? b : a;
      absl::Status removed = absl::OkStatus();
      if (self.kind == kPlayer && other.kind == kPickup) {
        ++pickups_collected;
        collected_at = frame;
        other.alive = false;
        removed = grid.remove(other.handle);  // its pairs end at the next update
      } else if (self.kind == kPlayer && other.kind == kWall) {
        ++wall_stops;
        self.velocity_x = 0;
      } else if (self.kind == kBullet && self.alive) {
        if (other.kind == kEnemy) ++enemy_hits;
        self.alive = false;
        removed = grid.remove(self.handle);
      }
      if (a.kind == kEnemy && b.kind == kEnemy && a.squad == b.squad) ++squad_pairs_reported;
      return removed.ok();
    };
    for (const lwc::Contact& c : events.began) {
      if (!react(c)) return 1;
    }
    for (const lwc::Contact& c : events.swept) {  // met within the step: a candidate for CCD
      if (!react(c)) return 1;
    }

    // 4. Radar: every box within 8 m of the player, as last given (E11). Filters are not applied.
    const std::array<double, 2> eye = centre(world[kPlayerId].box);
    const lwc::Box2 radar = box_at(eye[0] - 8, eye[1] - 8, 16, 16);
    int enemies_near = 0;
    absl::Status queried = grid.query(radar, [&](lwc::Handle, lwc::UserData user) {
      if (world[user].kind == kEnemy) ++enemies_near;
      return true;  // keep going
    });
    if (!queried.ok()) return 1;

    // 5. Line of sight to the enemy behind the wall: the first wall or enemy the ray enters (E9: hits
    //    come in order of entry; the player's own box, pickups and bullets do not block sight).
    const std::array<double, 2> target = centre(world[kEnemyBehind].box);
    std::size_t first_hit = world.size();
    const auto sight = [&](lwc::Handle, lwc::UserData user, double /*t*/) {
      if (world[user].kind != kWall && world[user].kind != kEnemy) return true;
      first_hit = user;
      return false;  // the nearest is enough
    };
    absl::Status cast = grid.raycast(lwc::Segment<2>{.from = eye, .to = target}, sight);
    if (!cast.ok()) return 1;
    // end quote: frame-loop

    // What the engine relied on, judged from its own boxes.
    if (first_touch_at < 0 && lwc::overlaps(world[kPlayerId].box, world[kPickupId].box)) {
      first_touch_at = frame;
    }
    int scanned = 0;
    for (const Entity& e : world) {
      if (e.alive && e.kind == kEnemy && lwc::overlaps(e.box, radar)) ++scanned;
    }
    expect(enemies_near == scanned, "the radar query finds exactly the enemies a scan of the level finds");
    expect(first_hit == kWallId, "the wall blocks the line of sight to the enemy behind it");
  }

  expect(lwc::overlaps(world[kEnemyA].box, world[kEnemyB].box), "the squad mates' boxes overlap");
  expect(squad_pairs_reported == 0, "the pair predicate keeps a squad's enemies apart");
  expect(pickups_collected == 1, "the pickup is collected once");
  expect(collected_at >= 0 && collected_at == first_touch_at,
         "the pickup's contact begins at the frame the player's box first touches it");
  expect(!grid.box(world[kPickupId].handle).ok(), "a removed box's handle is stale (E3)");
  expect(enemy_hits == 1 && bullet != 0 && !world[bullet].alive, "the bullet hits one enemy and is gone");
  expect(wall_stops == 1, "the player stops at the wall, once");
  expect(world[kPlayerId].box.max[0] >= 12 && world[kPlayerId].box.max[0] <= 12.5,
         "the player stopped where it first touched the wall");
  std::printf("persistent_grid: %d boxes, pickup %d, enemy hits %d, wall stops %d: %s\n",
              static_cast<int>(grid.size()), pickups_collected, enemy_hits, wall_stops,
              failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
