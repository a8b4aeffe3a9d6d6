/* SPDX-License-Identifier: MIT */
/* File: tests/consumer_c/main.c
 *
 * An engine's view of lwc through its C API: every contract once, with the errors a C caller handles.
 * Exits non-zero at the first disagreement, so `./lwc package` fails loudly. */
#include <lwc.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                                                    \
  do {                                                                                                  \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "consumer_c: %s:%d: %s failed (last error: %s)\n", __FILE__, __LINE__, #cond,   \
              lwc_last_error());                                                                        \
      ++failures;                                                                                       \
    }                                                                                                   \
  } while (0)

struct prepare_state {
  int calls;
  int fail_at;
};

static int prepare(void* user, const lwc_chunk_run* run, uint64_t* snapshot) {
  struct prepare_state* s = (struct prepare_state*)user;
  int call = s->calls++;
  if (call == s->fail_at) return LWC_UNAVAILABLE; /* e.g. the mesh baker is busy */
  *snapshot = (uint64_t)(run->x_last - run->x_first + 1);
  return LWC_OK;
}

static void decompose_and_cover(void) {
  lwc_chunk_point p;
  int64_t cell = 5;
  lwc_chunk_span span;
  int nonempty = -1;
  uint64_t n = 0;
  EXPECT(lwc_split(-1, 1000, &p) == LWC_OK && p.chunk == -1 && p.local == 999);
  EXPECT(lwc_split(INT64_MIN, 3, &p) == LWC_OK && p.local >= 0 && p.local < 3);
  EXPECT(lwc_split(7, 0, &p) == LWC_INVALID_ARGUMENT && strstr(lwc_last_error(), "D5") != NULL);
  EXPECT(lwc_split(7, 16, NULL) == LWC_INVALID_ARGUMENT);
  EXPECT(lwc_cell_of(-0.0, 0.5, &cell) == LWC_OK && cell == 0);
  EXPECT(lwc_cell_of(-4.9e-324, 2.0, &cell) == LWC_OK && cell == -1);
  cell = 5;
  EXPECT(lwc_cell_of(NAN, 1.0, &cell) == LWC_INVALID_ARGUMENT && cell == 5);
  EXPECT(lwc_cell_of(1e300, 1e-300, &cell) == LWC_OUT_OF_RANGE && cell == 5);
  EXPECT(lwc_cover(-1000, 0, 1000, &span, &nonempty) == LWC_OK && nonempty == 1 && span.first == -1 &&
         span.last == -1);
  EXPECT(lwc_cover_closed(INT64_MIN, INT64_MAX, 1, &span, &nonempty) == LWC_OK);
  EXPECT(lwc_count(span, &n) == LWC_OUT_OF_RANGE);
  EXPECT(lwc_cover(5, 5, 16, &span, &nonempty) == LWC_OK && nonempty == 0);
}

static void broadphase(void) {
  const lwc_box2 boxes[3] = {{{0, 0}, {10, 2}}, {{9, 0.5}, {9.5, 1.5}}, {{20, 20}, {21, 21}}};
  lwc_grid_config config = lwc_grid_config_default();
  size_t count = 0;
  lwc_pair* pairs = NULL;
  lwc_stats stats;
  lwc_persistent_grid2* grid = NULL;
  lwc_handle wall, prop;
  lwc_contact began[4];
  lwc_update_stats us;
  const lwc_box2 near_wall = {{9, 0}, {10, 1}};
  config.cell_size = 2.0;
  /* Ask for the count, then fill a buffer of exactly that size. */
  EXPECT(lwc_find_pairs2(boxes, 3, &config, NULL, 0, &count, NULL) == LWC_BUFFER_TOO_SMALL && count == 1);
  pairs = malloc(count * sizeof *pairs);
  EXPECT(pairs != NULL);
  if (pairs != NULL) {
    EXPECT(lwc_find_pairs2(boxes, 3, &config, pairs, count, &count, &stats) == LWC_OK);
    EXPECT(count == 1 && pairs[0].a == 0 && pairs[0].b == 1 && stats.memberships == 14); /* 12 + 1 + 1 */
    free(pairs);
  }
  EXPECT(lwc_persistent_grid2_create(&config, NULL, NULL, &grid) == LWC_OK);
  EXPECT(lwc_persistent_grid2_insert(grid, &boxes[0], 0, lwc_filter_default(), &wall) == LWC_OK);
  EXPECT(lwc_persistent_grid2_insert(grid, &boxes[2], 0, lwc_filter_default(), &prop) == LWC_OK);
  EXPECT(lwc_persistent_grid2_update(grid, &us) == LWC_OK && us.began == 0);
  EXPECT(lwc_persistent_grid2_move(grid, prop, &near_wall, LWC_MOTION_TELEPORT) == LWC_OK);
  EXPECT(lwc_persistent_grid2_update(grid, &us) == LWC_OK && us.began == 1);
  EXPECT(lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began, 4, &count) == LWC_OK && count == 1 &&
         began[0].a.slot == wall.slot && began[0].b.slot == prop.slot);
  EXPECT(lwc_persistent_grid2_remove(grid, prop) == LWC_OK);
  EXPECT(lwc_persistent_grid2_remove(grid, prop) == LWC_NOT_FOUND);
  EXPECT(lwc_persistent_grid2_destroy(grid) == LWC_OK);
  EXPECT(lwc_persistent_grid2_destroy(grid) == LWC_INVALID_ARGUMENT); /* destroyed once */
}

/* docs/c_api.md, "Use": a frame of an engine's broad phase through the persistent grid (payloads, filter
 * bits, float boxes, events, a query, a ray), and the batch form over the engine's own AABB array. */
struct aabb {
  float lower[2];
  int proxy;
  float upper[2];
};

static void engine_frame(void) {
  lwc_grid_config config = lwc_grid_config_default();
  lwc_persistent_grid2* grid = NULL;
  const lwc_float_box2 wall = {{0, 0}, {10, 2}}, crate = {{12, 0}, {13, 1}}, pushed = {{9, 0}, {10, 1}};
  const lwc_filter debris = {2, ~(uint64_t)2};
  const lwc_box2 blast = {{8, -1}, {11, 3}};
  const lwc_segment2 ray = {{-5, 1}, {20, 1}};
  const struct aabb aabbs[3] = {{{0, 0}, 7, {10, 2}}, {{9, 0.5f}, 8, {9.5f, 1.5f}}, {{20, 20}, 9, {21, 21}}};
  const lwc_box_view view = {aabbs[0].lower, aabbs[0].upper, 3, sizeof(struct aabb), LWC_REAL_FLOAT};
  lwc_handle w, c;
  lwc_contact began[16];
  lwc_query_hit hits[16];
  lwc_ray_hit first[16];
  lwc_pair_list* list = NULL;
  const lwc_pair* pairs = NULL;
  size_t n = 0;
  config.cell_size = 2.0;
  EXPECT(lwc_persistent_grid2_create(&config, NULL, NULL, &grid) == LWC_OK);
  EXPECT(lwc_persistent_grid2_insertf(grid, &wall, 1001, lwc_filter_default(), &w) == LWC_OK);
  EXPECT(lwc_persistent_grid2_insertf(grid, &crate, 1002, debris, &c) == LWC_OK);
  EXPECT(lwc_persistent_grid2_update(grid, NULL) == LWC_OK);
  EXPECT(lwc_persistent_grid2_movef(grid, c, &pushed, LWC_MOTION_TELEPORT) == LWC_OK);
  EXPECT(lwc_persistent_grid2_update(grid, NULL) == LWC_OK);
  EXPECT(lwc_persistent_grid2_events(grid, LWC_EVENTS_BEGAN, began, 16, &n) == LWC_OK && n == 1 &&
         began[0].user_a == 1001 && began[0].user_b == 1002);
  EXPECT(lwc_persistent_grid2_query(grid, &blast, hits, 16, &n) == LWC_OK && n == 2 && hits[0].handle.slot == w.slot &&
         hits[1].user == 1002);
  EXPECT(lwc_persistent_grid2_raycast(grid, &ray, first, 16, &n) == LWC_OK && n == 2 && first[0].t == 0.2 &&
         first[1].handle.slot == c.slot);
  EXPECT(lwc_persistent_grid2_destroy(grid) == LWC_OK);
  EXPECT(lwc_pair_list_create(&list) == LWC_OK);
  EXPECT(lwc_find_pairs2_view(&view, &config, list, NULL) == LWC_OK);
  EXPECT(lwc_pair_list_pairs(list, &pairs, &n) == LWC_OK && n == 1 && pairs[0].a == 0 && pairs[0].b == 1);
  EXPECT(lwc_pair_list_destroy(list) == LWC_OK);
}

static void rebase(void) {
  const lwc_view_config config = lwc_view_config_default();
  const int64_t origin[2] = {0, 0};
  const int64_t cell[2] = {5, 0};
  const double offset[2] = {512.0, 0.0};
  lwc_origin_coordinator2* view = NULL;
  lwc_world_position2 observer;
  lwc_rebase_plan2 plan;
  lwc_rebased2 done;
  lwc_render_point2 r;
  lwc_late_result2 late;
  int planned = -1;
  int64_t x, y;
  EXPECT(lwc_origin_coordinator2_create(1024, &config, origin, 0, &view) == LWC_OK);
  EXPECT(lwc_world_grid_normalize2(1024, cell, offset, &observer) == LWC_OK);
  EXPECT(lwc_origin_coordinator2_start_late(view, &observer, LWC_LATE_RELOCATABLE, &late) == LWC_OK);
  EXPECT(lwc_origin_coordinator2_plan(view, &observer, &plan, &planned) == LWC_FAILED_PRECONDITION);
  for (x = 4; x <= 6; ++x) {
    for (y = -1; y <= 1; ++y) {
      const int64_t c[2] = {x, y};
      EXPECT(lwc_origin_coordinator2_load(view, c) == LWC_OK);
    }
  }
  EXPECT(lwc_origin_coordinator2_plan(view, &observer, &plan, &planned) == LWC_OK && planned == 1);
  EXPECT(lwc_origin_coordinator2_commit(view, &plan, &done) == LWC_OK && done.version == 1);
  EXPECT(lwc_origin_coordinator2_commit(view, &plan, &done) == LWC_ABORTED); /* a replayed plan */
  EXPECT(lwc_origin_coordinator2_to_render(view, &observer, &r) == LWC_OK && r.at[0] == 512.0f);
  EXPECT(lwc_origin_coordinator2_place_late(view, &late, &r) == LWC_OK && r.at[0] == 512.0f && r.version == 1);
  EXPECT(lwc_origin_coordinator2_destroy(view) == LWC_OK);
}

static void commit(void) {
  lwc_committer* c = NULL;
  struct prepare_state failing = {0, 1};
  struct prepare_state fine = {0, -1};
  lwc_commit_report report;
  lwc_batch_info info;
  lwc_batch_entry entries[4];
  size_t count = 0;
  EXPECT(lwc_committer_create(16, &c) == LWC_OK);
  EXPECT(lwc_committer_mark(c, (lwc_int2){-1, -1}) == LWC_OK);
  EXPECT(lwc_committer_mark(c, (lwc_int2){0, 0}) == LWC_OK);
  EXPECT(lwc_committer_mark(c, (lwc_int2){0, 64}) == LWC_OK);
  EXPECT(lwc_committer_commit(c, prepare, &failing, LWC_RUN_BUDGET_UNLIMITED, &report) == LWC_UNAVAILABLE);
  EXPECT(lwc_committer_published(c, &info, entries, 4, &count) == LWC_OK && info.sequence == 0 && count == 0);
  EXPECT(lwc_committer_commit(c, prepare, &fine, LWC_RUN_BUDGET_UNLIMITED, &report) == LWC_OK);
  EXPECT(report.runs_published == 3 && report.chunks_pending == 0);
  EXPECT(lwc_committer_published(c, &info, entries, 4, &count) == LWC_OK && info.sequence == 1 && count == 3);
  EXPECT(lwc_committer_destroy(c) == LWC_OK);
}

int main(void) {
  EXPECT(lwc_abi_version() == LWC_ABI_VERSION);
  decompose_and_cover();
  broadphase();
  engine_frame();
  rebase();
  commit();
  printf("consumer_c: lwc.h ABI %d, %s\n", lwc_abi_version(), failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
