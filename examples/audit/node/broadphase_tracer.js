#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// File: examples/audit/node/broadphase_tracer.js
//
// A Node.js engine's broad phase (sweep and prune on x: sort the boxes by min x, then test each box
// against the boxes whose x interval is still open), traced for lwc-audit (docs/audit.md, "broadphase").
//
//   right      closed boxes: two boxes that only touch (a.max == b.min) overlap, as lwc's contract says
//   strict     the common `a.max > b.min` test on every axis: touching boxes are missed (B1 completeness),
//              e.g. two tiles that share an edge never collide
//
// usage: node broadphase_tracer.js right|strict > trace.jsonl
// The inputs are fixed (a xorshift stream from a constant seed), so the output is byte-for-byte
// reproducible; the traces are committed in examples/audit/traces/ and tests/audit_test.cc regenerates
// and compares them.
'use strict';

const mode = process.argv[2];
if (mode !== 'right' && mode !== 'strict') {
  process.stderr.write('usage: node broadphase_tracer.js right|strict\n');
  process.exit(2);
}
const overlaps1 = mode === 'right' ? (a0, a1, b0, b1) => a0 <= b1 && b0 <= a1 : (a0, a1, b0, b1) => a0 < b1 && b0 < a1;

let state = 20261129;
function next() {  // xorshift32: a fixed, portable stream
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state;
}

// Sweep and prune on x; `boxes[i]` is [min..., max...] in `dims` dimensions.
function findPairs(boxes, dims) {
  const order = boxes.map((_, i) => i).sort((i, j) => boxes[i][0] - boxes[j][0] || i - j);
  const pairs = [];
  const open = [];
  for (const i of order) {
    const b = boxes[i];
    for (let k = open.length - 1; k >= 0; --k) {
      if (open[k][1] < b[0]) open.splice(k, 1);  // closed on the right: a box ending at b's start stays
    }
    for (const [j] of open) {
      const a = boxes[j];
      let all = true;
      for (let d = 0; d < dims; ++d) all = all && overlaps1(a[d], a[dims + d], b[d], b[dims + d]);
      if (all) pairs.push(i < j ? [i, j] : [j, i]);
    }
    open.push([i, b[dims]]);
  }
  pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return pairs;
}

const real = (v) => (Number.isInteger(v) ? `${v}.0` : `${v}`);
function emit(boxes, dims, h) {
  const pairs = findPairs(boxes, dims);
  process.stdout.write(
    `{"schema":1,"contract":"broadphase","op":"find_pairs","in":{"h":${real(h)},"boxes":[` +
      boxes.map((b) => `[${b.map(real).join(',')}]`).join(',') +
      `]},"out":{"pairs":[${pairs.map((p) => `[${p[0]},${p[1]}]`).join(',')}]}}\n`);
}

// Tiles on a grid: neighbours share edges exactly (touching), plus a few props inside them.
function tiles(n, size) {
  const boxes = [];
  for (let y = 0; y < n; ++y) {
    for (let x = 0; x < n; ++x) boxes.push([x * size, y * size, (x + 1) * size, (y + 1) * size]);
  }
  return boxes;
}

emit(tiles(3, 16), 2, 16);
emit([[0, 0, 1, 1], [1, 1, 2, 2], [2, 0, 3, 1], [0.5, 0.5, 0.75, 0.75]], 2, 1);  // corner contact counts
emit([[-1.5, -1.5, -1.5, 1.5, 1.5, 1.5], [1.5, -1, -1, 3, 1, 1], [3, 3, 3, 4, 4, 4]], 3, 2);
// Random boxes on a coarse lattice (so that contacts happen), 2-D and 3-D.
for (let round = 0; round < 12; ++round) {
  const dims = round % 3 === 2 ? 3 : 2;
  const boxes = [];
  const count = 4 + (next() % 12);
  for (let i = 0; i < count; ++i) {
    const lo = [];
    const hi = [];
    for (let d = 0; d < dims; ++d) {
      const a = (next() % 16) - 8;
      lo.push(a * 0.5);
      hi.push((a + 1 + (next() % 4)) * 0.5);
    }
    boxes.push([...lo, ...hi]);
  }
  emit(boxes, dims, 1);
}
