#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// File: examples/audit/node/rebase_tracer.js
//
// A Node.js engine's floating origin (a view whose origin cell moves with the camera once it is far
// enough, onto a neighbourhood of loaded cells), traced for lwc-audit as ordered event logs (docs/audit.md,
// "rebase"). Cells are int64 (BigInt); offsets and render values are doubles, rendered to floats with
// Math.fround. The inputs keep every intermediate exact in a double, and units_per_render_unit is a power
// of two, so fround rounds once: the floats are the nearest ones, as R4 asks.
//
//   right              checks the barrier when the plan is made AND when it is committed
//   barrier_at_plan    checks it only when the plan is made: if streaming unloads a barrier cell between
//                      plan and commit, the origin moves onto a hole (R6 barrier)
//
// Two views (sessions "camera", 3-D, and "minimap", 2-D) run interleaved.
// usage: node rebase_tracer.js right|barrier_at_plan > trace.jsonl
// The inputs are fixed, so the output is byte-for-byte reproducible; the traces are committed in
// examples/audit/traces/ and tests/audit_test.cc regenerates and compares them.
'use strict';

const mode = process.argv[2];
if (mode !== 'right' && mode !== 'barrier_at_plan') {
  process.stderr.write('usage: node rebase_tracer.js right|barrier_at_plan\n');
  process.exit(2);
}
const checkAtCommit = mode === 'right';

const seqs = new Map();
function emit(session, op, fields) {
  const seq = seqs.get(session) ?? 0;
  seqs.set(session, seq + 1);
  let line = `{"schema":1,"contract":"rebase","session":"${session}","seq":${seq},"op":"${op}"`;
  if (fields.in) line += `,"in":${fields.in}`;
  if (fields.out) line += `,"out":${fields.out}`;
  process.stdout.write(line + '}\n');
}
const list = (a) => `[${a.join(',')}]`;
// A double as JSON: integers are written with ".0" so that they read as reals, not int64s.
const real = (v) => (Number.isInteger(v) ? `${v}.0` : `${v}`);
const reals = (a) => `[${a.map(real).join(',')}]`;
const abs = (v) => (v < 0n ? -v : v);

class View {
  constructor(name, origin, cfg) {
    this.name = name;
    this.origin = origin;
    this.version = 0n;
    this.cfg = cfg;
    this.loaded = new Set();
    emit(name, 'open', {
      in: `{"origin":${list(origin)},"version":0,"cell_size":${cfg.size},"threshold_cells":${cfg.threshold},` +
        `"barrier_radius":${cfg.radius},"units_per_render_unit":${cfg.d},"bubble_units":${cfg.bubble}}`,
    });
  }

  load(cell) {
    this.loaded.add(cell.join(','));
    emit(this.name, 'load', { in: `{"cell":${list(cell)}}` });
  }

  unload(cell) {
    this.loaded.delete(cell.join(','));
    emit(this.name, 'unload', { in: `{"cell":${list(cell)}}` });
  }

  // The barrier cells around `target` that are not loaded.
  missing(target) {
    const r = BigInt(this.cfg.radius);
    const out = [];
    const walk = (axis, cell) => {
      if (axis === target.length) {
        if (!this.loaded.has(cell.join(','))) out.push(cell);
        return;
      }
      for (let k = -r; k <= r; ++k) walk(axis + 1, [...cell, target[axis] + k]);
    };
    walk(0, []);
    return out;
  }

  plan(cell, offset) {
    const input = `{"cell":${list(cell)},"offset":${reals(offset)}}`;
    const far = cell.some((c, a) => abs(c - this.origin[a]) >= BigInt(this.cfg.threshold));
    if (!far) {
      emit(this.name, 'plan', { in: input, out: '{"none":true}' });
      return null;
    }
    if (this.missing(cell).length > 0) {
      emit(this.name, 'plan', { in: input, out: '{"error":"FailedPrecondition"}' });
      return null;
    }
    const plan = { from: this.origin, target: cell, version: this.version };
    emit(this.name, 'plan', {
      in: input,
      out: `{"from":${list(plan.from)},"target":${list(plan.target)},"version":${plan.version}}`,
    });
    return plan;
  }

  commit(plan) {
    const input = `{"from":${list(plan.from)},"target":${list(plan.target)},"version":${plan.version}}`;
    let error = null;
    if (plan.version !== this.version) {
      error = 'Aborted';
    } else if (plan.from.some((c, a) => c !== this.origin[a])) {
      error = 'InvalidArgument';
    } else if (checkAtCommit && this.missing(plan.target).length > 0) {
      error = 'FailedPrecondition';
    }
    if (error) {
      emit(this.name, 'commit', { in: input, out: `{"error":"${error}"}` });
      return;
    }
    this.origin = plan.target;
    this.version += 1n;
    emit(this.name, 'commit', { in: input, out: `{"origin":${list(this.origin)},"version":${this.version}}` });
  }

  // The render value of one position: exact in a double for these inputs, then rounded once to a float.
  render(cell, offset) {
    const units = cell.map((c, a) => Number((c - this.origin[a]) * BigInt(this.cfg.size)) + offset[a]);
    if (units.some((u) => Math.abs(u) > this.cfg.bubble)) return '{"error":"OutOfRange"}';
    return `{"at":${reals(units.map((u) => Math.fround(u / this.cfg.d)))},"version":${this.version}}`;
  }

  toRender(cell, offset) {
    emit(this.name, 'to_render', { in: `{"cell":${list(cell)},"offset":${reals(offset)}}`, out: this.render(cell, offset) });
  }

  late(cell, offset, startedVersion, placement) {
    let out;
    if (startedVersion > this.version) {
      out = '{"error":"InvalidArgument"}';
    } else if (placement === 'baked' && startedVersion !== this.version) {
      out = '{"error":"Aborted"}';
    } else {
      out = this.render(cell, offset);
    }
    emit(this.name, 'late', {
      in: `{"cell":${list(cell)},"offset":${reals(offset)},"started_version":${startedVersion},"placement":"${placement}"}`,
      out,
    });
  }

  view() {
    const loaded = [...this.loaded].map((k) => `[${k}]`).join(',');
    emit(this.name, 'view', { out: `{"origin":${list(this.origin)},"version":${this.version},"loaded":[${loaded}]}` });
  }

  end() {
    emit(this.name, 'end', {});
  }
}

// The neighbourhood of radius r around `center`, loaded.
function loadAround(view, center, r) {
  const walk = (axis, cell) => {
    if (axis === center.length) return view.load(cell);
    for (let k = -r; k <= r; ++k) walk(axis + 1, [...cell, center[axis] + BigInt(k)]);
  };
  walk(0, []);
}

const camera = new View('camera', [0n, 0n, 0n], { size: 1024, threshold: 2, radius: 1, d: 128, bubble: 2 ** 24 });
const minimap = new View('minimap', [-5n, 7n], { size: 4096, threshold: 3, radius: 1, d: 64, bubble: 2 ** 30 });

loadAround(camera, [0n, 0n, 0n], 1);
loadAround(minimap, [-5n, 7n], 1);
camera.toRender([0n, 0n, 0n], [12.5, 1023.75, 0]);
camera.toRender([-1n, 2n, 0n], [0.5, 3, 1000]);
minimap.toRender([-4n, 7n], [4095.5, 0.25]);
camera.plan([1n, 0n, 0n], [5, 5, 5]);  // inside the threshold: nothing to do
camera.plan([3n, 0n, 0n], [5, 5, 5]);  // far, but the barrier around (3, 0, 0) is not loaded
const ticket = camera.version;

// The camera moves to (3, 0, 0): the engine streams its neighbourhood in, plans and commits.
loadAround(camera, [3n, 0n, 0n], 1);
const first = camera.plan([3n, 0n, 0n], [5, 5, 5]);
camera.commit(first);
camera.commit(first);  // replayed: stale
camera.toRender([3n, 0n, 0n], [5, 5, 5]);
camera.toRender([0n, 0n, 0n], [12.5, 1023.75, 0]);
camera.toRender([20000n, 0n, 0n], [0, 0, 0]);  // outside the bubble
camera.late([1n, 1n, 1n], [7.25, 0, 512], ticket, 'relocatable');
camera.late([1n, 1n, 1n], [7.25, 0, 512], ticket, 'baked');  // stale after the rebase
camera.view();

// minimap: moves far east, plans; streaming evicts a barrier cell before the commit.
loadAround(minimap, [1n, 7n], 1);
const east = minimap.plan([1n, 7n], [2048, 2048]);
minimap.toRender([1n, 7n], [2048, 2048]);
minimap.unload([2n, 8n]);
minimap.commit(east);
minimap.view();
minimap.end();

// camera again: a second move, with the same eviction race.
loadAround(camera, [6n, 1n, 0n], 1);
const second = camera.plan([6n, 1n, 0n], [1, 2, 3]);
camera.unload([5n, 0n, -1n]);
camera.commit(second);
camera.end();
