// SPDX-License-Identifier: MIT
/* File: examples/audit/c/cover_tracer.c
 *
 * A C engine's range cover (which chunks does [min, max) touch?), traced for lwc-audit (docs/audit.md,
 * "cover"). Both variants floor correctly; they differ only at the exclusive end:
 *
 *   cover_tracer right           last = floor((max_exclusive - 1) / size): the last point's chunk
 *   cover_tracer off_by_one      last = floor(max_exclusive / size): the seed's trap. Whenever max_exclusive
 *                                is a multiple of the size it names one chunk too many, which holds no
 *                                point of the range: [-1000, 0) would load chunk 0 (C2 tightness)
 *
 * Each half-open record carries the count the engine derives from its span; every fifth random record is a
 * closed range [min, max_inclusive], which both variants cover correctly. Inputs are fixed (splitmix64
 * from a constant seed), so the output is reproducible byte for byte; the traces are committed in
 * examples/audit/traces/ and tests/audit_test.cc regenerates and compares them.
 * Build: gcc -std=c11 -O2 -o cover_tracer cover_tracer.c
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 20261129u;

/* splitmix64: a fixed, portable stream of 64-bit values. */
static int64_t next_int64(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  int64_t v;
  memcpy(&v, &z, sizeof v);
  return v;
}

/* floor(x / size) for size > 0: C's quotient truncates, so a negative non-multiple steps down once. */
static int64_t floor_div(int64_t x, int64_t size) {
  int64_t q = x / size;
  if (x % size != 0 && x < 0) q -= 1;
  return q;
}

static int off_by_one = 0;

static void emit_head(int64_t min, const char* max_key, int64_t max, int64_t size) {
  printf("{\"schema\":1,\"contract\":\"cover\",\"op\":\"cover\",\"in\":{\"min\":%" PRId64 ",\"%s\":%" PRId64
         ",\"size\":%" PRId64 "},",
         min, max_key, max, size);
}

/* Emits the span and its count: last - first + 1 in uint64, which only the whole int64 domain (2^64 chunks)
 * cannot hold; the engine reports that count as OutOfRange. */
static void emit_span(int64_t first, int64_t last) {
  if (first == INT64_MIN && last == INT64_MAX) {
    printf("\"out\":{\"first\":%" PRId64 ",\"last\":%" PRId64 ",\"count\":\"OutOfRange\"}}\n", first, last);
    return;
  }
  const uint64_t count = (uint64_t)last - (uint64_t)first + 1u;
  printf("\"out\":{\"first\":%" PRId64 ",\"last\":%" PRId64 ",\"count\":%" PRIu64 "}}\n", first, last, count);
}

static void cover(int64_t min, int64_t max_exclusive, int64_t size) {
  emit_head(min, "max_exclusive", max_exclusive, size);
  if (size <= 0 || min > max_exclusive) {
    printf("\"out\":{\"error\":\"InvalidArgument\"}}\n");
  } else if (min == max_exclusive) {
    printf("\"out\":{\"none\":true}}\n");
  } else {
    emit_span(floor_div(min, size), floor_div(off_by_one ? max_exclusive : max_exclusive - 1, size));
  }
}

static void cover_closed(int64_t min, int64_t max_inclusive, int64_t size) {
  emit_head(min, "max_inclusive", max_inclusive, size);
  if (size <= 0 || (max_inclusive < min && max_inclusive != min - 1)) {
    printf("\"out\":{\"error\":\"InvalidArgument\"}}\n");
  } else if (max_inclusive < min) {
    printf("\"out\":{\"none\":true}}\n");
  } else {
    emit_span(floor_div(min, size), floor_div(max_inclusive, size));
  }
}

static const int64_t kSizes[] = {1000, 3, 16, 1024};

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "off_by_one") == 0) {
    off_by_one = 1;
  } else if (!(argc == 2 && strcmp(argv[1], "right") == 0)) {
    fprintf(stderr, "usage: cover_tracer right | off_by_one\n");
    return 2;
  }
  /* The seed's ranges around the origin, empty, reversed and bad-size calls, and the int64 ends. */
  static const int64_t seed_cases[][3] = {
      {-1000, 0, 1000}, {0, 1000, 1000},  {-1, 1, 1000},  {-1001, -999, 1000}, {-1, 0, 16},
      {0, 0, 1000},     {5, 3, 1000},     {0, 10, 0},     {INT64_MIN, INT64_MAX, 1},
      {INT64_MIN, INT64_MAX, 1000},       {INT64_MAX - 1, INT64_MAX, 1000}, {INT64_MIN, INT64_MIN + 1, 1000},
  };
  for (size_t i = 0; i < sizeof seed_cases / sizeof seed_cases[0]; ++i) {
    cover(seed_cases[i][0], seed_cases[i][1], seed_cases[i][2]);
  }
  cover_closed(INT64_MIN, INT64_MAX, 1);
  cover_closed(-1000, -1, 1000);
  cover_closed(0, -1, 1000);
  cover_closed(5, 3, 1000);
  /* Small ranges near the origin; every third one ends on a multiple of the size. */
  for (int i = 0; i < 48; ++i) {
    const int64_t size = kSizes[i % 4];
    const int64_t min = next_int64() % 100000;
    int64_t max = min + (int64_t)((uint64_t)next_int64() % 5000u);
    if (i % 3 == 0) max = floor_div(max, size) * size;
    if (i % 5 == 1) {
      cover_closed(min, max, size);
    } else {
      cover(min, max, size);
    }
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
