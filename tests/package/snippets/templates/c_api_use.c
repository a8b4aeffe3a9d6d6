/* SPDX-License-Identifier: MIT */
/* File: tests/package/snippets/templates/c_api_use.c
 *
 * The program around docs/c_api.md's "Use" lines (scripts/snippets.py puts them at the marker below):
 * three boxes that overlap two by two, then the split and the pairs printed, so that the run checks
 * what the fragment computed. */
#include <stdio.h>
#include <stdlib.h>

#include <lwc.h>

int main(void) {
  const lwc_box2 boxes[] = {{{0, 0}, {2, 2}}, {{1, 1}, {3, 3}}, {{1.5, 0}, {4, 1.5}}};
  const size_t n = sizeof boxes / sizeof boxes[0];

  @SNIPPET@

  if (s != LWC_OK) {
    fprintf(stderr, "find_pairs: %s\n", lwc_last_error());
    return 1;
  }
  printf("chunk %lld, local %lld: %zu pairs\n", (long long)p.chunk, (long long)p.local, count);
  for (size_t i = 0; i < count; ++i) printf("%s(%u, %u)", i ? " " : "", (unsigned)pairs[i].a, (unsigned)pairs[i].b);
  printf("\n");
  free(pairs);
  return 0;
}
