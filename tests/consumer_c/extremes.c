/* SPDX-License-Identifier: MIT */
/* File: tests/consumer_c/extremes.c
 *
 * The C API at the contracts' extreme values, built with the engine's flags (`./lwc package` builds it
 * once per flag set of its matrix: -ffast-math, -ffinite-math-only, ...). lwc's code is in the archive,
 * compiled with lwc's flags, but it runs in the consumer's process: under -ffast-math gcc links startup
 * code that sets flush-to-zero and denormals-are-zero, so these are the cases where that mode would show
 * (subnormal coordinates, sizes and offsets) and the NaN and infinity refusals. The expected values are
 * the contracts' exact answers (docs/decompose.md D9, docs/broadphase.md B1/B6, docs/rebase.md R4/R5).
 * Values are made from their bits through a volatile, so the consumer's own flags cannot fold them.
 * Prints the number of checks; exits non-zero on any failure. */
#include <lwc.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int checks = 0;
static int failures = 0;

#define EXPECT(cond)                                                                                    \
  do {                                                                                                  \
    ++checks;                                                                                           \
    if (!(cond)) {                                                                                      \
      fprintf(stderr, "extremes_c: %s:%d: %s failed (last error: %s)\n", __FILE__, __LINE__, #cond,   \
              lwc_last_error());                                                                        \
      ++failures;                                                                                       \
    }                                                                                                   \
  } while (0)

static double d(uint64_t bits) {
  volatile uint64_t v = bits;
  uint64_t b = v;
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}
static uint32_t float_bits(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

#define DENORM_MIN 0x0000000000000001u
#define NEG_DENORM_MIN 0x8000000000000001u
#define QUIET_NAN 0x7ff8000000000000u
#define POS_INF 0x7ff0000000000000u
#define NEG_INF 0xfff0000000000000u

static int64_t cell(double v, double h, int expect_status) {
  int64_t c = 12345;
  int s = lwc_cell_of(v, h, &c);
  EXPECT(s == expect_status);
  return c;
}

/* D9: the table and the subnormal cases, exact answers. */
static void decompose(void) {
  const double half = d(0x3fe0000000000000u);
  const double tenth = d(0x3fb999999999999au);
  const double two = d(0x4000000000000000u);
  const double tiny = d(DENORM_MIN);
  EXPECT(cell(d(QUIET_NAN), half, LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(d(POS_INF), half, LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(d(NEG_DENORM_MIN), two, LWC_OK) == -1);
  EXPECT(cell(tiny, two, LWC_OK) == 0);
  EXPECT(cell(half, tenth, LWC_OK) == 4);
  EXPECT(cell(d(0x8000000000000000u), half, LWC_OK) == 0);
  /* Subnormal cell sizes: 3 * 2^-1074 / 2^-1073 = 1.5, -2^-1074 / 2^-1074 = -1 exactly. */
  EXPECT(cell(d(3), d(2), LWC_OK) == 1);
  EXPECT(cell(d(NEG_DENORM_MIN), tiny, LWC_OK) == -1);
  EXPECT(cell(d(0x000fffffffffffffu), tiny, LWC_OK) == 0x000fffffffffffff);
  EXPECT(cell(d(0x3ff0000000000000u), tiny, LWC_OUT_OF_RANGE) == 12345);
  /* Cell sizes that are not finite and positive (B6 / D9): zero, -0, a negative subnormal, NaN, inf. */
  EXPECT(cell(half, d(0), LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(half, d(0x8000000000000000u), LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(half, d(NEG_DENORM_MIN), LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(half, d(QUIET_NAN), LWC_INVALID_ARGUMENT) == 12345);
  EXPECT(cell(half, d(POS_INF), LWC_INVALID_ARGUMENT) == 12345);
  {
    double vs[3];
    int64_t out[3];
    vs[0] = d(NEG_DENORM_MIN);
    vs[1] = tiny;
    vs[2] = d(0x8000000000000000u);
    EXPECT(lwc_cell_of_all(vs, 3, two, out) == LWC_OK && out[0] == -1 && out[1] == 0 && out[2] == 0);
    vs[1] = d(QUIET_NAN);
    EXPECT(lwc_cell_of_all(vs, 3, two, out) == LWC_INVALID_ARGUMENT);
  }
}

static lwc_box2 box(double lo, double hi) {
  lwc_box2 b;
  b.min[0] = b.min[1] = lo;
  b.max[0] = b.max[1] = hi;
  return b;
}

/* B6: a NaN or infinite bound is refused; B1/B3: boxes with subnormal bounds pair exactly as their values
 * say (closed boxes: touching counts), which denormals-are-zero compares would get wrong. */
static void broadphase(void) {
  lwc_grid_config config = lwc_grid_config_default();
  lwc_pair pairs[8];
  size_t count = 99;
  lwc_box2 boxes[2];
  const uint64_t bad[] = {QUIET_NAN, POS_INF, NEG_INF};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    boxes[0] = box(d(0), d(0x3ff0000000000000u));
    boxes[1] = boxes[0];
    boxes[1].max[1] = d(bad[i]);
    EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_INVALID_ARGUMENT);
    boxes[1] = box(d(bad[i]), d(bad[i]));
    EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_INVALID_ARGUMENT);
  }
  /* [-2^-1074, -2^-1074] and [2^-1074, 2^-1074] are apart; under DAZ both read as 0 and would touch. */
  boxes[0] = box(d(NEG_DENORM_MIN), d(NEG_DENORM_MIN));
  boxes[1] = box(d(DENORM_MIN), d(DENORM_MIN));
  count = 99;
  EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_OK && count == 0);
  /* [0, 2^-1074] and [2^-1074, 1] touch at 2^-1074. */
  boxes[0] = box(d(0), d(DENORM_MIN));
  boxes[1] = box(d(DENORM_MIN), d(0x3ff0000000000000u));
  count = 99;
  EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_OK && count == 1);
  /* [2 * 2^-1074, 1] starts after [0, 2^-1074] ends. */
  boxes[1] = box(d(2), d(0x3ff0000000000000u));
  count = 99;
  EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_OK && count == 0);
  /* A subnormal cell size, boxes a few subnormals wide. */
  config.cell_size = d(DENORM_MIN);
  boxes[0] = box(d(0), d(3));
  boxes[1] = box(d(3), d(5));
  count = 99;
  EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_OK && count == 1);
  boxes[1] = box(d(4), d(5));
  count = 99;
  EXPECT(lwc_find_pairs2(boxes, 2, &config, pairs, 8, &count, NULL) == LWC_OK && count == 0);
}

/* R4 (one rounding) and R5 (the bubble's edge) at a subnormal offset. */
static void rebase(void) {
  lwc_view_config config = lwc_view_config_default();
  const int64_t origin[2] = {0, 0};
  lwc_origin_coordinator2* unit = NULL;
  lwc_origin_coordinator2* small = NULL;
  lwc_world_position2 p;
  lwc_render_point2 r;
  config.bubble_units = (int64_t)1 << 25;
  EXPECT(lwc_origin_coordinator2_create(1, &config, origin, 0, &unit) == LWC_OK);
  p.cell[0] = p.cell[1] = (1 << 24) + 1;
  p.offset[0] = d(DENORM_MIN);
  p.offset[1] = d(0);
  /* 2^24 + 1 + 2^-1074 rounds once, up to 2^24 + 2; the tie 2^24 + 1 rounds to even, 2^24. */
  EXPECT(lwc_origin_coordinator2_to_render(unit, &p, &r) == LWC_OK && float_bits(r.at[0]) == 0x4b800001u &&
         float_bits(r.at[1]) == 0x4b800000u);
  config.bubble_units = 32;
  EXPECT(lwc_origin_coordinator2_create(16, &config, origin, 0, &small) == LWC_OK);
  p.cell[0] = 2;
  p.cell[1] = -2;
  p.offset[0] = p.offset[1] = d(0);
  EXPECT(lwc_origin_coordinator2_to_render(small, &p, &r) == LWC_OK);
  p.cell[1] = 0;
  p.offset[0] = d(DENORM_MIN);
  EXPECT(lwc_origin_coordinator2_to_render(small, &p, &r) == LWC_OUT_OF_RANGE);
  {
    const int64_t c[2] = {0, 0};
    double off[2];
    lwc_world_position2 q;
    off[0] = d(NEG_DENORM_MIN); /* R1: cell -1, offset 16 - 2^-1074 rounds to 16: normalised to cell 0, 0 */
    off[1] = d(DENORM_MIN);
    EXPECT(lwc_world_grid_normalize2(16, c, off, &q) == LWC_OK && q.cell[0] == 0 && q.offset[0] == 0 &&
           q.cell[1] == 0 && memcmp(&q.offset[1], &off[1], sizeof off[1]) == 0);
    off[0] = d(QUIET_NAN);
    EXPECT(lwc_world_grid_normalize2(16, c, off, &q) == LWC_INVALID_ARGUMENT);
  }
  lwc_origin_coordinator2_destroy(unit);
  lwc_origin_coordinator2_destroy(small);
}

int main(void) {
  decompose();
  broadphase();
  rebase();
  printf("extremes_c: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
