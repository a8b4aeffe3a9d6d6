#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// File: examples/audit/node/split_tracer.js
//
// A Node.js engine's chunk addressing, traced for lwc-audit (docs/audit.md). World positions are int64
// (they arrive from the server and the save as decimal strings, read here as BigInt); the engine does
// its arithmetic in Number, as most JavaScript does:
//
//   naive    chunk = Math.floor(x / size), local = x - chunk * size, on Number(x): right while |x| < 2^53,
//            wrong beyond, where a double no longer holds every integer (and x / size rounds)
//   bigint   the same function on BigInt, with the floor correction: right everywhere
//
// usage: node split_tracer.js naive|bigint > trace.jsonl
// The inputs are fixed (no clock, no Math.random), so the output is byte-for-byte reproducible; the traces
// it makes are committed in examples/audit/traces/ and tests/audit_test.cc regenerates and compares them.
'use strict';

const kInt64Min = -(2n ** 63n);
const kInt64Max = 2n ** 63n - 1n;

// splitmix64: a fixed, portable stream of int64 values.
function* splitmix64(seed) {
  let state = BigInt.asUintN(64, seed);
  for (;;) {
    state = BigInt.asUintN(64, state + 0x9e3779b97f4a7c15n);
    let z = state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    yield BigInt.asIntN(64, z ^ (z >> 31n));
  }
}

// [x, size]: the truncating-division example's cases near the origin, the neighbourhood of 2^53, the int64
// ends, then random int64s and random values near +-2^53..2^62.
function inputs() {
  const cases = [
    [-1n, 1000n], [-1000n, 1000n], [-1001n, 1000n], [0n, 1000n], [999n, 1000n], [1000n, 1000n],
    [-1n, 16n], [-17n, 16n], [-4096n, 3n], [123456789n, 1000n],
    [2n ** 53n - 1n, 1000n], [2n ** 53n, 1000n], [2n ** 53n + 1n, 1000n], [-(2n ** 53n) - 1n, 1000n],
    [2n ** 53n + 3n, 1000n], [-(2n ** 53n) - 3n, 1000n], [2n ** 60n + 7n, 3n], [-(2n ** 62n) - 5n, 16n],
    [kInt64Max, 1000n], [kInt64Min, 1000n], [kInt64Min, 3n], [kInt64Max, 1n],
  ];
  const sizes = [1000n, 3n, 16n, 1024n];
  const random = splitmix64(20261129n);
  for (let i = 0; i < 24; ++i) cases.push([random.next().value, sizes[i % sizes.length]]);
  for (let i = 0; i < 16; ++i) {
    const magnitude = 2n ** BigInt(53 + (i % 10));
    const offset = BigInt.asIntN(20, random.next().value);
    cases.push([(i % 2 === 0 ? magnitude : -magnitude) + offset, sizes[i % sizes.length]]);
  }
  return cases;
}

function naiveSplit(x, size) {
  const xn = Number(x);
  const sn = Number(size);
  const chunk = Math.floor(xn / sn);
  return [chunk, xn - chunk * sn];
}

function bigintSplit(x, size) {
  let chunk = x / size;  // BigInt division truncates, like C
  let local = x % size;
  if (local < 0n) {
    chunk -= 1n;
    local += size;
  }
  return [chunk, local];
}

// The exact decimal text of an integer, Number or BigInt. JSON.stringify cannot write a BigInt, and
// writes a Number of 1e21 or more with an exponent; BigInt(n) converts an integral Number exactly.
function int(v) {
  if (typeof v === 'bigint') return v.toString();
  if (!Number.isInteger(v)) throw new Error(`not an integer: ${v}`);
  return BigInt(v).toString();
}

const mode = process.argv[2];
const split = { naive: naiveSplit, bigint: bigintSplit }[mode];
if (split === undefined) {
  process.stderr.write('usage: node split_tracer.js naive|bigint > trace.jsonl\n');
  process.exit(2);
}
const lines = inputs().map(([x, size]) => {
  const [chunk, local] = split(x, size);
  return `{"schema":1,"contract":"decompose","op":"split","in":{"x":${int(x)},"size":${int(size)}},` +
         `"out":{"chunk":${int(chunk)},"local":${int(local)}}}`;
});
process.stdout.write(lines.join('\n') + '\n');
