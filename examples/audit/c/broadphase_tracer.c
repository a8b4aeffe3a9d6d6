// SPDX-License-Identifier: MIT
/* File: examples/audit/c/broadphase_tracer.c
 *
 * A C engine's naive broad phase (every pair of 2-D boxes tested, closed boxes: touching boxes overlap),
 * traced for lwc-audit (docs/audit.md, "broadphase"). Its box validation is the textbook one, isnan() and
 * isinf() on each bound and min > max on each axis, and the engine refuses a call with an invalid box, as
 * B6 requires. One source, two builds:
 *
 *   clang-19 -O2               refuses every box with a NaN or infinite bound, or min > max
 *   clang-19 -O2 -ffast-math   -ffinite-math-only lets the compiler assume no NaN or infinity exists: it
 *                              folds isnan() and isinf() to 0 (clang says so: "use of NaN is undefined
 *                              behavior due to the currently enabled floating-point options"), so every
 *                              box with a NaN or infinite bound is accepted and paired, and a probe with
 *                              one answered; min > max is still refused. The README's fast-math table
 *                              shows lwc's own find_pairs accepting a NaN box this way before issue 22.
 *
 * The boxes come from text (strtod), as a broken physics step or a file would hand them over: a NaN a
 * compiler cannot see. The trace writer tests NaN and infinity on the bits, never with isnan(), which the
 * fast-math build folds (the bits are what lwc's own tests use, lwc/exact_fp.h). Each record is one call:
 * the boxes and the pairs, or "error" when the engine refused the call. Inputs are fixed, so each build's
 * output is reproducible byte for byte on Debian's clang-19; the traces are committed in
 * examples/audit/traces/ (c_broadphase_precise.jsonl, c_broadphase_fast_math.jsonl) and
 * tests/audit_test.cc rebuilds both, regenerates and compares them.
 * Build: clang-19 -std=c11 -O2 [-ffast-math -Wno-nan-infinity-disabled] -o broadphase_tracer broadphase_tracer.c
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double min[2];
  double max[2];
} Box;

enum { kMaxBoxes = 8 };

/* The engine: B6's validation, then every pair i < j, lower index first, in lexicographic order. The
 * validation is a function of its own, as an engine's often is (kept so by noinline: which of the
 * fast-math build's rewrites applies depends on what the optimiser sees, and the trace must not). */
static __attribute__((noinline)) int extent_is_valid(double lo, double hi) {
  if (isnan(lo) || isnan(hi)) return 0;
  if (isinf(lo) || isinf(hi)) return 0;
  if (lo > hi) return 0;
  return 1;
}

static int box_is_valid(const Box* b) { return extent_is_valid(b->min[0], b->max[0]) && extent_is_valid(b->min[1], b->max[1]); }

static int overlaps(const Box* a, const Box* b) {
  return a->min[0] <= b->max[0] && b->min[0] <= a->max[0] && a->min[1] <= b->max[1] && b->min[1] <= a->max[1];
}

/* Returns the number of pairs written to pairs (2 ints each), or -1 when a box is invalid. */
static int find_pairs(const Box* boxes, int n, int* pairs) {
  for (int i = 0; i < n; ++i) {
    if (!box_is_valid(&boxes[i])) return -1;
  }
  int count = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (overlaps(&boxes[i], &boxes[j])) {
        pairs[2 * count] = i;
        pairs[2 * count + 1] = j;
        ++count;
      }
    }
  }
  return count;
}

/* Returns the number of ids of boxes overlapping the probe written to ids, or -1 when a box is invalid. */
static int query(const Box* boxes, int n, const Box* probe, int* ids) {
  if (!box_is_valid(probe)) return -1;
  for (int i = 0; i < n; ++i) {
    if (!box_is_valid(&boxes[i])) return -1;
  }
  int count = 0;
  for (int i = 0; i < n; ++i) {
    if (overlaps(&boxes[i], probe)) ids[count++] = i;
  }
  return count;
}

/* The trace writer: a real as JSON (docs/audit.md, "Numbers"), NaN and infinities as strings, decided on
 * the bits. Every finite value here is a multiple of 1/4, so %.17g writes it exactly. */
static void put_real(double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const int all_ones = ((bits >> 52) & 0x7ff) == 0x7ff;
  const int fraction = (bits & ((UINT64_C(1) << 52) - 1)) != 0;
  if (all_ones && fraction) {
    fputs("\"NaN\"", stdout);
  } else if (all_ones) {
    fputs((bits >> 63) ? "\"-Infinity\"" : "\"Infinity\"", stdout);
  } else {
    printf("%.17g", v);
  }
}

static void put_box(const Box* b) {
  putchar('[');
  put_real(b->min[0]);
  putchar(',');
  put_real(b->min[1]);
  putchar(',');
  put_real(b->max[0]);
  putchar(',');
  put_real(b->max[1]);
  putchar(']');
}

static void put_boxes(const Box* boxes, int n) {
  fputs("\"boxes\":[", stdout);
  for (int i = 0; i < n; ++i) {
    if (i > 0) putchar(',');
    put_box(&boxes[i]);
  }
  putchar(']');
}

/* A box set as text, "min_x min_y max_x max_y; ...", read with strtod as an engine reads a level file. */
static int parse_boxes(const char* text, Box* boxes) {
  int n = 0;
  const char* p = text;
  while (*p != '\0' && n < kMaxBoxes) {
    char* end;
    boxes[n].min[0] = strtod(p, &end);
    boxes[n].min[1] = strtod(end, &end);
    boxes[n].max[0] = strtod(end, &end);
    boxes[n].max[1] = strtod(end, &end);
    ++n;
    while (*end == ' ' || *end == ';') ++end;
    p = end;
  }
  return n;
}

static void trace_find_pairs(const char* text) {
  Box boxes[kMaxBoxes];
  int pairs[kMaxBoxes * kMaxBoxes];
  const int n = parse_boxes(text, boxes);
  const int count = find_pairs(boxes, n, pairs);
  fputs("{\"schema\":1,\"contract\":\"broadphase\",\"op\":\"find_pairs\",\"in\":{", stdout);
  put_boxes(boxes, n);
  fputs("},\"out\":{", stdout);
  if (count < 0) {
    fputs("\"error\":\"invalid box\"", stdout);
  } else {
    fputs("\"pairs\":[", stdout);
    for (int i = 0; i < count; ++i) printf("%s[%d,%d]", i > 0 ? "," : "", pairs[2 * i], pairs[2 * i + 1]);
    putchar(']');
  }
  fputs("}}\n", stdout);
}

static void trace_query(const char* text, const char* probe_text) {
  Box boxes[kMaxBoxes];
  Box probe;
  int ids[kMaxBoxes];
  const int n = parse_boxes(text, boxes);
  parse_boxes(probe_text, &probe);
  const int count = query(boxes, n, &probe, ids);
  fputs("{\"schema\":1,\"contract\":\"broadphase\",\"op\":\"query\",\"in\":{", stdout);
  put_boxes(boxes, n);
  fputs(",\"probe\":", stdout);
  put_box(&probe);
  fputs("},\"out\":{", stdout);
  if (count < 0) {
    fputs("\"error\":\"invalid box\"", stdout);
  } else {
    fputs("\"ids\":[", stdout);
    for (int i = 0; i < count; ++i) printf("%s%d", i > 0 ? "," : "", ids[i]);
    putchar(']');
  }
  fputs("}}\n", stdout);
}

int main(void) {
  /* Four unit tiles sharing edges and a corner, and a small box inside tile 0. */
  static const char kTiles[] = "0 0 1 1; 1 0 2 1; 0 1 1 2; 1 1 2 2; 0.25 0.25 0.5 0.5";
  trace_find_pairs(kTiles);
  /* The same set, one bound broken as a diverging physics step leaves it. */
  trace_find_pairs("0 0 1 1; 1 0 2 1; nan 1 1 2; 1 1 2 2; 0.25 0.25 0.5 0.5");  /* NaN min_x */
  trace_find_pairs("0 0 1 1; 1 0 2 1; 0 1 nan 2; 1 1 2 2; 0.25 0.25 0.5 0.5");  /* NaN max_x */
  trace_find_pairs("0 0 1 1; 1 0 2 inf; 0 1 1 2; 1 1 2 2; 0.25 0.25 0.5 0.5");  /* +inf max_y */
  trace_find_pairs("-inf 0 1 1; 1 0 2 1; 0 1 1 2; 1 1 2 2; 0.25 0.25 0.5 0.5"); /* -inf min_x */
  trace_find_pairs("0 0 1 1; 2 0 1 1; 0 1 1 2; 1 1 2 2; 0.25 0.25 0.5 0.5");    /* min_x > max_x */
  trace_find_pairs("0 nan 1 1; 0 nan 1 1");                                      /* two NaN min_y */
  trace_find_pairs("0.5 0.5 0.75 0.75; 3 3 4 4");
  /* Queries: a probe on the shared corner (1, 1), then probes with a broken bound. */
  trace_query(kTiles, "1 1 1 1");
  trace_query(kTiles, "nan 0 1 1");
  trace_query(kTiles, "0 0 inf 1");
  trace_query("0 0 1 1; nan 0 1 1", "0 0 1 1");
  return fflush(stdout) == 0 ? 0 : 1;
}
