// SPDX-License-Identifier: MIT
/* File: examples/audit/c/split_tracer.c
 *
 * A C engine's chunk addressing, traced for lwc-audit (docs/audit.md). It splits with C's own operators,
 * chunk = x / size and local = x % size, which truncate toward zero: the bug of seed 000 (a position 1 mm
 * left of the origin lands in chunk 0 with local -1), and the one C#, Java, Go and Rust's `/` share.
 *
 *   split_tracer split           one "split" record per call of the truncating split
 *   split_tracer save            the chunk addresses a save file holds, written by the truncating split:
 *                                one "stored" record per asset (lwc-audit --migrate moves the misfiled ones)
 *   split_tracer floor N         N "split" records of a correct floor split (for measuring the audit)
 *
 * Inputs are fixed (splitmix64 from a constant seed), so the output is reproducible byte for byte; the
 * traces are committed in examples/audit/traces/ and tests/audit_test.cc regenerates and compares them.
 * Build: gcc -std=c11 -O2 -o split_tracer split_tracer.c
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
  memcpy(&v, &z, sizeof v); /* the two's complement reading, without an implementation-defined cast */
  return v;
}

static void truncating_split(int64_t x, int64_t size, int64_t* chunk, int64_t* local) {
  *chunk = x / size;
  *local = x % size;
}

static void floor_split(int64_t x, int64_t size, int64_t* chunk, int64_t* local) {
  *chunk = x / size;
  *local = x % size;
  if (*local < 0) {
    *chunk -= 1;
    *local += size;
  }
}

static void emit_split(int64_t x, int64_t size, int64_t chunk, int64_t local) {
  printf("{\"schema\":1,\"contract\":\"decompose\",\"op\":\"split\",\"in\":{\"x\":%" PRId64 ",\"size\":%" PRId64
         "},\"out\":{\"chunk\":%" PRId64 ",\"local\":%" PRId64 "}}\n",
         x, size, chunk, local);
}

static const int64_t kSizes[] = {1000, 3, 16, 1024};

/* The seed's cases near the origin, the int64 ends, then small and full-range random positions. */
static void trace_split(void) {
  static const int64_t seed_cases[][2] = {
      {-1, 1000}, {-1000, 1000}, {-1001, 1000}, {0, 1000}, {999, 1000}, {1000, 1000}, {-1, 16},
      {-17, 16},  {-4096, 3},    {-2000, 1000}, {INT64_MIN, 1000}, {INT64_MAX, 1000}, {INT64_MIN, 1},
  };
  for (size_t i = 0; i < sizeof seed_cases / sizeof seed_cases[0]; ++i) {
    int64_t chunk, local;
    truncating_split(seed_cases[i][0], seed_cases[i][1], &chunk, &local);
    emit_split(seed_cases[i][0], seed_cases[i][1], chunk, local);
  }
  for (int i = 0; i < 48; ++i) {
    const int64_t size = kSizes[i % 4];
    const int64_t x = i < 24 ? next_int64() % 100000 : next_int64();
    int64_t chunk, local;
    truncating_split(x, size, &chunk, &local);
    emit_split(x, size, chunk, local);
  }
}

/* A save file's asset table: each asset's position and the chunk key it was filed under (chunk and local,
 * as the engine computed them when saving). Some positions are negative multiples of the chunk width,
 * which truncation files correctly: a migration must leave those alone. */
static void trace_save(void) {
  const int64_t size = 1000;
  for (int id = 0; id < 40; ++id) {
    int64_t x;
    switch (id % 4) {
      case 0: x = next_int64() % 50000; break;                  /* near the origin, either sign */
      case 1: x = -(int64_t)(next_int64() & 0xff) * size; break; /* negative multiples: filed right */
      case 2: x = -1 - (next_int64() & 0x3ff); break;           /* just left of the origin */
      default: x = next_int64(); break;                         /* anywhere */
    }
    int64_t chunk, local;
    truncating_split(x, size, &chunk, &local);
    printf("{\"schema\":1,\"contract\":\"decompose\",\"op\":\"stored\",\"id\":\"asset-%d\",\"in\":{\"x\":%" PRId64
           ",\"size\":%" PRId64 "},\"stored\":{\"chunk\":%" PRId64 ",\"local\":%" PRId64 "}}\n",
           id, x, size, chunk, local);
  }
}

static void trace_floor(long long n) {
  for (long long i = 0; i < n; ++i) {
    const int64_t size = kSizes[i % 4];
    const int64_t x = (i & 1) ? next_int64() : next_int64() % 1000000;
    int64_t chunk, local;
    floor_split(x, size, &chunk, &local);
    emit_split(x, size, chunk, local);
  }
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "split") == 0) {
    trace_split();
  } else if (argc == 2 && strcmp(argv[1], "save") == 0) {
    trace_save();
  } else if (argc == 3 && strcmp(argv[1], "floor") == 0) {
    trace_floor(atoll(argv[2]));
  } else {
    fprintf(stderr, "usage: split_tracer split | save | floor N\n");
    return 2;
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
