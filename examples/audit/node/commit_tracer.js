#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// File: examples/audit/node/commit_tracer.js
//
// A Node.js engine's dirty-chunk committer (mark edited cells, then commit the dirty chunks as runs,
// preparing each run before publishing the batch), traced for lwc-audit as ordered event logs
// (docs/audit.md, "commit"). Cells are int64 (BigInt); chunks are floor-divided.
//
//   right               clears a batch's chunks only after every run prepared, and keeps the chunks
//                       marked meanwhile: right
//   clears_on_failure   takes the batch's chunks out of the dirty set when the commit starts ("they are
//                       being saved"), and does not put them back when a preparation fails: every chunk of
//                       a failed batch that was not marked again is lost (T4 all or nothing)
//
// Two committers (sessions "terrain" and "props") run interleaved, each with a failed preparation.
// usage: node commit_tracer.js right|clears_on_failure > trace.jsonl
// The inputs are fixed (no clock, no Math.random), so the output is byte-for-byte reproducible; the traces
// are committed in examples/audit/traces/ and tests/audit_test.cc regenerates and compares them.
'use strict';

const mode = process.argv[2];
if (mode !== 'right' && mode !== 'clears_on_failure') {
  process.stderr.write('usage: node commit_tracer.js right|clears_on_failure\n');
  process.exit(2);
}
const clearsFirst = mode === 'clears_on_failure';

const floorDiv = (a, b) => {
  const q = a / b;  // BigInt division truncates
  return a % b !== 0n && a < 0n ? q - 1n : q;
};

const seqs = new Map();
function emit(session, op, fields) {
  const seq = seqs.get(session) ?? 0;
  seqs.set(session, seq + 1);
  let line = `{"schema":1,"contract":"commit","session":"${session}","seq":${seq},"op":"${op}"`;
  if (fields.in) line += `,"in":${fields.in}`;
  if (fields.out) line += `,"out":${fields.out}`;
  process.stdout.write(line + '}\n');
}
const pair = (a) => `[${a[0]},${a[1]}]`;
const runsJson = (runs) => `[${runs.map((r) => `[${r.y},${r.x0},${r.x1}]`).join(',')}]`;

class Committer {
  constructor(name, size) {
    this.name = name;
    this.size = size;
    this.dirty = new Map();  // "x,y" -> [x, y]
    this.sequence = 0n;
    this.markedDuring = null;  // a Set of keys while a commit prepares
    emit(name, 'open', { in: `{"chunk_size":${size}}` });
  }

  mark(cell) {
    const chunk = [floorDiv(cell[0], this.size), floorDiv(cell[1], this.size)];
    const key = `${chunk[0]},${chunk[1]}`;
    this.dirty.set(key, chunk);
    if (this.markedDuring) this.markedDuring.add(key);
    emit(this.name, 'mark', { in: `{"cell":${pair(cell)}}`, out: `{"chunk":${pair(chunk)}}` });
  }

  runs() {
    const chunks = [...this.dirty.values()].sort((a, b) =>
      a[1] !== b[1] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const runs = [];
    for (const [x, y] of chunks) {
      const last = runs[runs.length - 1];
      if (last && last.y === y && last.x1 + 1n === x) {
        last.x1 = x;
      } else {
        runs.push({ y, x0: x, x1: x });
      }
    }
    return runs;
  }

  pending() {
    emit(this.name, 'pending', { out: `{"runs":${runsJson(this.runs())}}` });
  }

  clear(runs) {
    for (const r of runs) {
      for (let x = r.x0; x <= r.x1; ++x) {
        const key = `${x},${r.y}`;
        if (!this.markedDuring.has(key)) this.dirty.delete(key);
      }
    }
  }

  // prepare(run, i) returns false when the preparation of the i-th run fails; duringPrepare(i) may mark.
  commit(maxRuns, prepare) {
    emit(this.name, 'commit', { in: `{"max_runs":${maxRuns}}` });
    const all = this.runs();
    const batch = maxRuns > 0 ? all.slice(0, maxRuns) : all;
    this.markedDuring = new Set();
    if (clearsFirst) this.clear(batch);
    for (let i = 0; i < batch.length; ++i) {
      emit(this.name, 'prepare', { in: `{"run":[${batch[i].y},${batch[i].x0},${batch[i].x1}]}` });
      if (!prepare(batch[i], i)) {
        emit(this.name, 'prepare_failed', {});
        this.markedDuring = null;
        return;
      }
    }
    if (batch.length > 0) this.sequence += 1n;
    if (!clearsFirst) this.clear(batch);
    this.markedDuring = null;
    emit(this.name, 'publish', { out: `{"runs":${runsJson(batch)},"sequence":${this.sequence}}` });
  }
}

const terrain = new Committer('terrain', 16n);
const props = new Committer('props', 1000n);

// Edits either side of the origin and at the int64 ends.
for (const cell of [[-1n, -1n], [0n, 0n], [15n, 0n], [16n, 0n], [-17n, 0n], [40n, 33n], [-(2n ** 63n), 5n]]) {
  terrain.mark(cell);
}
for (const cell of [[-1n, 0n], [-1001n, 0n], [999n, 0n], [2n ** 63n - 1n, -1n], [5000n, 7000n]]) props.mark(cell);
terrain.pending();
props.pending();

// terrain: a budget of 2 runs, all prepared; a cell of the first run is edited while it is prepared.
terrain.commit(2, (run, i) => {
  if (i === 0) terrain.mark([run.x0 * 16n, run.y * 16n]);
  return true;
});
terrain.pending();

// props: the second preparation fails (its asset server is down); a cell is edited meanwhile.
props.commit(0, (run, i) => {
  if (i === 0) props.mark([123n, 456n]);
  return i < 1;
});
props.pending();

// terrain: more edits, then a commit whose third preparation fails.
for (const cell of [[100n, 100n], [116n, 100n], [-300n, -300n]]) terrain.mark(cell);
terrain.pending();
terrain.commit(0, (run, i) => i < 2);
terrain.pending();

// Both retry, and succeed.
props.commit(0, () => true);
terrain.commit(0, () => true);
props.pending();
terrain.pending();
props.commit(0, () => true);  // nothing pending: publishes nothing
props.pending();
emit('props', 'end', {});
emit('terrain', 'end', {});
