# SPDX-License-Identifier: MIT
# File: tests/pictures/check_pages.py   CTest: pictures/browser (label browser; ./lwc pictures)
#
# What a person sees: every picture the build made — the audit's page of every committed example trace
# (examples/audit/traces/, the engines' included), lwc.draw's scenes,
# the benchmark page — rendered by Debian's chromium, headless, then looked at:
#   - no console error, no uncaught exception, nothing that failed to load;
#   - pixels of the expected colour where the scene says the finding is: the place where a missed pair's
#     boxes meet, the gap of an extra pair, a chunk that is expected, given, missing or extra, a run or a
#     barrier cell that is missing, where a late result belongs and where it landed, a query hit, a ray's
#     entry point, each point of a benchmark's ratio line.
# Those places are computed here from the scene itself (the trace's record, the scene's JSON, the
# benchmark's JSON), with this file's own brute force and exact arithmetic, and the layout rules of
# docs/draw.md and scripts/bench_report.py; the page is asked only where its plot areas are. Then the check
# is turned on pictures that are deliberately wrong — drawings shifted by a few pixels, scaled by 10%,
# blanked — and each of those must fail, so that the check itself is known to see.
#
#   check_pages.py --build BUILD_DIR --source SOURCE_DIR [--png OUT_DIR]
# Exit 0 when every check passes, 1 when one fails, 77 (CTest's skip) when chromium is not installed.
import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser  # noqa: E402
import png  # noqa: E402

SKIP = 77
# docs/draw.md's palette (draw/svg.cppm): what each finding is drawn in.
MISSED, EXTRA, HIT, PAIR, RAY, INK = (214, 39, 40), (255, 127, 14), (44, 160, 44), (31, 119, 180), (148, 103, 189), (26, 26, 26)
TOLERANCE = 48  # per channel: antialiasing at the edge of a marker


def hex_colour(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def real(v):
    """A trace's real: a JSON number, a hex float string, NaN or an infinity."""
    if isinstance(v, str):
        if v in ("NaN", "Infinity", "-Infinity"):
            return float(v.replace("Infinity", "inf"))
        return float.fromhex(v)
    return float(v)


# ---------------------------------------------------------------------------------------------------
# Layout rules, restated from docs/draw.md.

def framed(region, unit):
    """The window of a region of interest: a point widened to a square of side `unit`, then every side
    extended by an eighth of the larger extent."""
    x0, y0, x1, y1 = region
    if x0 == x1 and y0 == y1:
        x0, y0, x1, y1 = x0 - unit / 2, y0 - unit / 2, x1 + unit / 2, y1 + unit / 2
    pad = max(x1 - x0, y1 - y0) / 8
    return x0 - pad, y0 - pad, x1 + pad, y1 + pad


def world_to_plot(window, width, height):
    x0, y0, x1, y1 = window
    s = min(width / (x1 - x0), height / (y1 - y0))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return lambda x, y: (width / 2 + (x - cx) * s, height / 2 - (y - cy) * s)


def bounds(boxes, points=()):
    xs = [b[0] for b in boxes] + [b[2] for b in boxes] + [p[0] for p in points]
    ys = [b[1] for b in boxes] + [b[3] for b in boxes] + [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


class Slots:
    """The chunk line's and the run grid's axis: shown values sorted, breaks between non-neighbours."""

    def __init__(self, values):
        self.values = sorted(set(values))
        self.breaks, b = [], 0
        for i, v in enumerate(self.values):
            if i and v - self.values[i - 1] > 1:
                b += 1
            self.breaks.append(b)

    def index(self, v):
        return self.values.index(v)


def neighbours(v):
    return [x for x in (v - 1, v, v + 1) if -2**63 <= x < 2**63]


def chunk_layout(chunks, width, height):
    slots = Slots(chunks)
    w = (width - 60 - 28 * slots.breaks[-1]) / len(slots.values)
    left = lambda k: 30 + slots.index(k) * w + 28 * slots.breaks[slots.index(k)]  # noqa: E731
    return slots, w, left, height - 60


def run_layout(runs, width, height):
    xs, ys = [], []
    for y, a, b in runs:
        xs += neighbours(a) + neighbours(b)
        ys += neighbours(y)
    for v in (xs, ys):
        if v and max(v) - min(v) <= 40:
            v += list(range(min(v), max(v)))
    cols, rows = Slots(xs or [0]), Slots(ys or [0])
    c = min((width - 80 - 16 * cols.breaks[-1]) / len(cols.values),
            (height - 50 - 16 * rows.breaks[-1]) / len(rows.values), 40)
    col_x = lambda x: 60 + cols.index(x) * c + 16 * cols.breaks[cols.index(x)]  # noqa: E731
    row_y = lambda y: height - 30 - (rows.index(y) + 1) * c - 16 * rows.breaks[rows.index(y)]  # noqa: E731
    return c, col_x, row_y


# ---------------------------------------------------------------------------------------------------
# Independent oracles.

def meet(a, b):
    """The closed intersection of two 2-D boxes [x0, y0, x1, y1], or None."""
    i = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return i if i[0] <= i[2] and i[1] <= i[3] else None


def overlapping_pairs(boxes):
    d = len(boxes[0]) // 2
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
            if all(max(boxes[i][k], boxes[j][k]) <= min(boxes[i][d + k], boxes[j][d + k]) for k in range(d))]


def ray_entry(box, ray):
    """The slab method: the entry fraction of the segment into the box, or None."""
    enter, leave = 0.0, 1.0
    for k in range(2):
        d = ray[2 + k] - ray[k]
        if d == 0:
            if not box[k] <= ray[k] <= box[2 + k]:
                return None
            continue
        t1, t2 = sorted(((box[k] - ray[k]) / d, (box[2 + k] - ray[k]) / d))
        enter, leave = max(enter, t1), min(leave, t2)
        if leave < enter:
            return None
    return enter


# ---------------------------------------------------------------------------------------------------

class Checker:
    def __init__(self, page, name):
        self.page, self.name = page, name
        self.failures, self.checked = [], 0

    def expect(self, plot, x, y, colour, what):
        """The plot-area pixel (x, y) must show `colour` (within TOLERANCE), at it or within 2 pixels."""
        self.checked += 1
        px, py = plot["x"] + x, plot["y"] + y
        if not (plot["x"] <= px < plot["x"] + plot["width"] and plot["y"] <= py < plot["y"] + plot["height"]):
            self.failures.append(f"{self.name}: {what}: ({x:.1f}, {y:.1f}) is outside the plot")
            return
        image = png.read(self.page.screenshot(math.floor(px) - 2, math.floor(py) - 2, 5, 5))
        seen = [image.at(i, j) for j in range(image.height) for i in range(image.width)]
        if not any(all(abs(p[k] - colour[k]) <= TOLERANCE for k in range(3)) for p in seen):
            centre = seen[len(seen) // 2]
            self.failures.append(f"{self.name}: {what}: expected rgb{colour} at ({x:.1f}, {y:.1f}) of the plot, "
                                 f"saw rgb{centre}")


# Where a plot area is on the page: its <svg class="lwc-plot"> attributes inside the picture's root <svg>,
# whose box is its CSS layout box. (A nested <svg>'s own getBoundingClientRect is the box of what it draws,
# which moves with the drawing; its attributes do not.)
PLOT_RECT = """(p => { const r = p.ownerSVGElement.getBoundingClientRect();
  return {x: r.left + window.scrollX + p.x.baseVal.value, y: r.top + window.scrollY + p.y.baseVal.value,
          width: p.width.baseVal.value, height: p.height.baseVal.value, data: Object.assign({}, p.dataset)}; })"""


def plots_of(page):
    """Every figure (audit page) with its plot areas, and the page's text of its example."""
    return json.loads(page.eval("""JSON.stringify([...document.querySelectorAll('figure.drawing')].map(f => ({
        data: Object.assign({}, f.dataset),
        plots: [...f.querySelectorAll('svg.lwc-plot')].map(%s),
        text: f.closest('.example') ? f.closest('.example').querySelector('pre').textContent : ''})))""" % PLOT_RECT))


def session_before(lines, line_no):
    """The events of the session of line `line_no` before it."""
    rec = lines[line_no - 1]
    return [lines[i] for i in range(line_no - 1)
            if lines[i].get("session") == rec.get("session") and lines[i].get("contract") == rec.get("contract")]


def check_audit_figure(c, fig, lines):
    data, plot = fig["data"], fig["plots"][0] if fig["plots"] else None
    if plot is None:
        c.failures.append(f"{c.name}: figure of line {data.get('line')} has no plot")
        return
    rec = lines[int(data["line"]) - 1]
    kind = data["kind"]
    w, h = plot["width"], plot["height"]
    if kind in ("missed-pair", "extra-pair", "pairs") and data.get("dims") == "2":
        boxes = [[real(v) for v in b] for b in rec["in"]["boxes"]]
        cell = real(rec["in"].get("h", 1.0))
        given = {tuple(sorted(p)) for p in rec["out"]["pairs"]}
        if kind == "pairs":
            missed = [p for p in overlapping_pairs(boxes) if p not in given]
            if not missed:
                return
            a, b = missed[0]
            to = world_to_plot(framed(bounds(boxes), cell), w, h)
        else:
            a, b = (int(v) for v in data["pair"].split())
            overlap = meet(boxes[a], boxes[b]) is not None
            if overlap != (kind == "missed-pair") or ((a, b) in given) == (kind == "missed-pair"):
                c.failures.append(f"{c.name}: line {data['line']}: pair ({a}, {b}) is drawn as {kind}, but the boxes "
                                  f"{'do' if overlap else 'do not'} overlap and the record {'gives' if (a, b) in given else 'omits'} it")
                return
            u = bounds([boxes[a], boxes[b]])
            to = world_to_plot(framed((u[0] - cell / 2, u[1] - cell / 2, u[2] + cell / 2, u[3] + cell / 2), cell), w, h)
        i = meet(boxes[a], boxes[b])
        if i is not None:
            c.expect(plot, *to((i[0] + i[2]) / 2, (i[1] + i[3]) / 2), MISSED, f"line {data['line']}: where boxes {a} and {b} meet")
        else:
            gap = []
            for k in range(2):
                lo_a, hi_a, lo_b, hi_b = boxes[a][k], boxes[a][2 + k], boxes[b][k], boxes[b][2 + k]
                gap.append((hi_a + lo_b) / 2 if hi_a < lo_b else (hi_b + lo_a) / 2 if hi_b < lo_a
                           else (max(lo_a, lo_b) + min(hi_a, hi_b)) / 2)
            c.expect(plot, *to(*gap), EXTRA, f"line {data['line']}: the gap between boxes {a} and {b}")
    elif kind in ("chunks", "cells"):
        check_chunk_line(c, plot, rec, data)
    elif kind == "cover":
        check_cover(c, plot, rec, data)
    elif kind == "runs":
        check_runs(c, plot, fig["text"], data)
    elif kind == "barrier":
        check_barrier(c, plot, rec, session_before(lines, int(data["line"])), data)
    elif kind == "render":
        check_render(c, plot, rec, session_before(lines, int(data["line"])), data)
    elif kind == "grid-update":
        check_grid_update(c, plot, fig["text"], session_before(lines, int(data["line"])), data)


def bands_check(c, plot, chunks, bands, ticks, line):
    slots, w, left, axis = chunk_layout(chunks, plot["width"], plot["height"])
    for first, last, row, colour, what in bands:
        shown = [v for v in slots.values if first <= v <= last]
        if not shown:
            continue
        x0 = left(shown[0]) - (14 if shown[0] > first else 0) + 1
        c.expect(plot, x0 + 4, axis - 40 - 20 * row + 3, colour, f"line {line}: {what}")
    for chunk, fraction, colour, what in ticks:
        c.expect(plot, left(chunk) + fraction * w, axis + 20, colour, f"line {line}: {what}")


def check_chunk_line(c, plot, rec, data):
    line = data["line"]
    if data["kind"] == "cells":
        v, hh = real(rec["in"]["v"]), real(rec["in"]["h"])
        expected = math.floor(Fraction(v) / Fraction(hh))
        given = rec["out"]["cell"]
        chunks = neighbours(expected) + neighbours(given)
        bands = [(expected, expected, 0, HIT, f"the expected cell {expected}")]
        if given != expected:
            bands.append((given, given, 1, MISSED, f"the given cell {given}"))
        bands_check(c, plot, chunks, bands, [], line)
        return
    op = rec["op"]
    if op in ("split", "stored"):
        x, size = rec["in"]["x"], rec["in"]["size"]
        section = rec["out"] if op == "split" else rec["stored"]
        given, local = section["chunk"], section.get("local")
    else:
        xs = rec["in"]["p" if op == "split_axes" else "xs"]
        size = rec["in"]["size"]
        wrong = [i for i, x in enumerate(xs) if (x // size, x % size) != (rec["out"]["chunk"][i], rec["out"]["local"][i])]
        x, given, local = xs[wrong[0]], rec["out"]["chunk"][wrong[0]], rec["out"]["local"][wrong[0]]
    expected = x // size  # Python's // is the floor
    if str(expected) != data.get("chunk") or str(x) != data.get("x"):
        c.failures.append(f"{c.name}: line {line}: the drawing is of x = {data.get('x')}, chunk {data.get('chunk')}; "
                          f"the record's x = {x} lies in chunk {expected}")
        return
    chunks = neighbours(expected) + neighbours(given)
    bands = [(expected, expected, 0, HIT, f"the expected chunk {expected}")]
    if given != expected:
        bands.append((given, given, 1, MISSED, f"the given chunk {given}"))
    ticks = []
    slots, w, _, _ = chunk_layout(chunks, plot["width"], plot["height"])
    rebuilt = given * size + local if local is not None else x
    far = rebuilt == x or abs((rebuilt - x) / size) * w > 6 or not -2**63 <= rebuilt < 2**63
    if far:  # x's own tick, unless the answer's tick lies on it
        ticks.append((expected, (x - expected * size) / size, HIT, f"x = {x}"))
    bands_check(c, plot, chunks, bands, ticks, line)


def check_cover(c, plot, rec, data):
    i, o = rec["in"], rec["out"]
    size, lo = i["size"], i["min"]
    closed = "max_inclusive" in i
    hi = i["max_inclusive"] if closed else i["max_exclusive"]
    last_point = hi if closed else hi - 1
    expected = None if last_point < lo else (lo // size, last_point // size)
    given = (o["first"], o["last"]) if "first" in o else None
    chunks = neighbours(lo // size) + neighbours(hi // size)
    for span in (expected, given):
        if span:
            if span[1] - span[0] <= 8:
                chunks += list(range(span[0], span[1] + 1))
            chunks += neighbours(span[0]) + neighbours(span[1])
    bands = []
    if expected:
        bands.append((expected[0], expected[1], 0, HIT, "the expected chunks"))
    if given:
        bands.append((given[0], given[1], 1, PAIR, "the given chunks"))
    for a, b, colour, what in ((expected, given, MISSED, "a missing chunk"), (given, expected, EXTRA, "an extra chunk")):
        if not a:
            continue
        rest = [(a[0], a[1])] if not b or b[1] < a[0] or a[1] < b[0] else \
            [r for r in ((a[0], b[0] - 1), (b[1] + 1, a[1])) if r[0] <= r[1]]
        bands += [(f, l, 2, colour, what) for f, l in rest]
    bands_check(c, plot, chunks, bands, [], data["line"])


def runs_in(text, label):
    import re
    part = text.split(label, 1)[1].split("\n", 1)[0] if label in text else ""
    return [tuple(int(v) for v in m) for m in re.findall(r"\(row (-?\d+), x (-?\d+)\.\.(-?\d+)\)", part)]


def runs_minus(a, b):
    """The chunks of runs a that are not in runs b, as runs."""
    out = []
    for y, f, l in a:
        left = [(f, l)]
        for yy, cf, cl in b:
            if yy != y:
                continue
            left = [piece for lo, hi in left
                    for piece in ([(lo, hi)] if cl < lo or hi < cf else
                                  [r for r in ((lo, cf - 1), (cl + 1, hi)) if r[0] <= r[1]])]
        out += [(y, lo, hi) for lo, hi in left]
    return out


def check_runs(c, plot, text, data):
    want, got = runs_in(text, "expected "), runs_in(text, "got ")
    # The grid's columns and rows come from every set drawn: given, missing, extra, expected.
    cell, col_x, row_y = run_layout(got + runs_minus(want, got) + runs_minus(got, want) + want, plot["width"],
                                    plot["height"])
    chunks = lambda runs: {(y, x) for y, a, b in runs for x in range(a, b + 1) if b - a < 64}  # noqa: E731
    # Each run's two ends, just inside the corners of its fill (inset 3 pixels), so that a run drawn a few
    # pixels off shows white or its neighbour there.
    for runs, colour, what in ((runs_minus(want, got), MISSED, "missing"), (got, PAIR, "given")):
        for y, a, b in runs[:4]:
            if abs(b - a) > 64:
                continue
            c.expect(plot, col_x(a) + 5, row_y(y) + 5, colour, f"line {data['line']}: {what} run ({y}, {a}..{b}), its start")
            c.expect(plot, col_x(b) + cell - 5, row_y(y) + cell - 5, colour, f"line {data['line']}: {what} run ({y}, {a}..{b}), its end")


def check_barrier(c, plot, rec, before, data):
    opened = next(e for e in before if e["op"] == "open")
    r = opened["in"]["barrier_radius"]
    loaded = set()
    for e in before:
        if e["op"] == "load":
            loaded.add(tuple(e["in"]["cell"]))
        elif e["op"] == "unload":
            loaded.discard(tuple(e["in"]["cell"]))
    target = rec["in"]["target"] if rec["op"] == "commit" else rec["out"]["target"]
    cells = [(x, y) for y in range(target[1] - r, target[1] + r + 1) for x in range(target[0] - r, target[0] + r + 1)]
    runs = [(y, target[0] - r, target[0] + r) for y in range(target[1] - r, target[1] + r + 1)]
    for y in range(target[1] - r, target[1] + r + 1):  # the loaded and unloaded stretches of each row
        start = target[0] - r
        for x in range(target[0] - r, target[0] + r + 1):
            here = tuple([x, y] + list(target[2:])) in loaded
            if x == target[0] + r or (tuple([x + 1, y] + list(target[2:])) in loaded) != here:
                runs.append((y, start, x))
                start = x + 1
    cell, col_x, row_y = run_layout(runs, plot["width"], plot["height"])
    for x, y in cells:
        full = tuple([x, y] + list(target[2:]))
        colour, what = (PAIR, "loaded") if full in loaded else (MISSED, "not loaded")
        c.expect(plot, col_x(x) + 5, row_y(y) + 5, colour, f"line {data['line']}: cell ({x}, {y}) {what}")
        c.expect(plot, col_x(x) + cell - 5, row_y(y) + cell - 5, colour, f"line {data['line']}: cell ({x}, {y}) {what}")


def id_pairs(text):
    import re
    return {tuple(sorted(int(v) for v in m)) for m in re.findall(r"\((-?\d+), (-?\d+)\)", text)}


def check_grid_update(c, plot, text, before, data):
    """The live boxes of the session; each event of `expected` and not of `got` (or the reverse) between two
    live boxes: both boxes outlined red (orange), checked at the middle of each box's left edge."""
    h, live = 1.0, {}
    for e in before:
        if e["op"] == "grid_create":
            h = real(e["in"]["h"])
        elif e["op"] in ("grid_add", "grid_move") and "error" not in e.get("out", {}):
            live[e["in"]["id"]] = [real(v) for v in e["in"]["box"]]
        elif e["op"] == "grid_remove" and "error" not in e.get("out", {}):
            live.pop(e["in"]["id"], None)
    lines = text.split("\n")
    want = id_pairs(next((l for l in lines if l.startswith("expected")), ""))
    got = id_pairs(next((l for l in lines if l.startswith("got")), ""))
    to = world_to_plot(framed(bounds(list(live.values())), h), plot["width"], plot["height"])
    for pairs, colour, what in ((want - got, MISSED, "missed"), (got - want, EXTRA, "extra")):
        for a, b in sorted(pairs):
            if a in live and b in live:
                for i in (a, b):
                    box = live[i]
                    x, y = to(box[0], (box[1] + box[3]) / 2)
                    c.expect(plot, x, y, colour, f"line {data['line']}: {what} event ({a}, {b}), box {i}'s left edge")


def check_render(c, plot, rec, before, data):
    opened = next(e for e in before if e["op"] == "open")["in"]
    origin = opened["origin"]
    for e in before:
        if e["op"] == "commit" and "origin" in e.get("out", {}):
            origin = e["out"]["origin"]
    size, units = opened["cell_size"], opened["units_per_render_unit"]
    at = [(rec["in"]["cell"][k] - origin[k]) * size + real(rec["in"]["offset"][k]) for k in range(2)]
    points = [(at, HIT, "the position")]
    if "at" in rec.get("out", {}):
        points.append(([real(v) * units for v in rec["out"]["at"][:2]], MISSED, "where the engine placed it"))
    to = world_to_plot(framed(bounds([], [p for p, _, _ in points] + [(0.0, 0.0)]), 1.0), plot["width"], plot["height"])
    for p, colour, what in points:
        c.expect(plot, *to(*p), colour, f"line {data['line']}: {what} at ({p[0]}, {p[1]})")


def check_audit_page(b, path, trace, name):
    page = b.page(path)
    c = Checker(page, name)
    with open(trace, encoding="utf-8") as f:
        lines = [json.loads(t) if t.strip() else {} for t in f.read().split("\n")]
    for fig in plots_of(page):
        check_audit_figure(c, fig, lines)
    return page, c


def check_scene(b, path, scene, name):
    page = b.page(path)
    c = Checker(page, name)
    plots = json.loads(page.eval("JSON.stringify([...document.querySelectorAll('svg.lwc-plot')].map(%s))" % PLOT_RECT))
    with open(scene, encoding="utf-8") as f:
        s = json.load(f)
    base = os.path.basename(scene)
    if base == "scene_small.json":
        plot = plots[0]
        boxes, q, ray = s["boxes"], s["query"], s["ray"]
        hits = [i for i, box in enumerate(boxes) if meet(box, q)]
        if hits != s["query_hits"]:
            c.failures.append(f"{name}: lwc's query hits {s['query_hits']} differ from brute force {hits}")
        points = [tuple(ray[:2]), tuple(ray[2:])] + [tuple(p) for p in s["points"]]
        to = world_to_plot(framed(bounds(boxes + [q], points), s["cell_size"]), plot["width"], plot["height"])
        for i in hits:
            m = meet(boxes[i], q)
            c.expect(plot, *to((m[0] + m[2]) / 2, (m[1] + m[3]) / 2), HIT, f"query hit {i}")
        entered = sorted((t, i) for i, box in enumerate(boxes) if (t := ray_entry(box, ray)) is not None)
        if [i for _, i in entered] != s["ray_hits"]:
            c.failures.append(f"{name}: lwc's ray hits {s['ray_hits']} differ from the slab test's {entered}")
        for t, i in entered:
            c.expect(plot, *to(ray[0] + t * (ray[2] - ray[0]), ray[1] + t * (ray[3] - ray[1])), RAY, f"ray entry into box {i}")
    elif base == "scene_dense.json":
        plot = plots[0]
        q, ray = s["query"], s["ray"]
        to = world_to_plot(framed(bounds([s["bounds"], q], [tuple(ray[:2]), tuple(ray[2:])]), 4.0), plot["width"], plot["height"])
        for box in s["query_hit_boxes"][:6]:
            m = meet(box, q)
            if m is None:
                c.failures.append(f"{name}: box {box} is listed as a query hit but does not meet the query")
                continue
            c.expect(plot, *to((m[0] + m[2]) / 2, (m[1] + m[3]) / 2), HIT, f"query hit {box}")
        c.expect(plot, *to(ray[0], ray[1]), RAY, "the ray's start")
    elif base == "scene_3d.json":
        plot = next(p for p in plots if p["data"].get("axes") == "x y")
        flat = [[b[0], b[1], b[3], b[4]] for b in s["boxes"]]
        q = [s["query"][0], s["query"][1], s["query"][3], s["query"][4]]
        hits = [i for i, box in enumerate(s["boxes"]) if all(max(box[k], s["query"][k]) <= min(box[3 + k], s["query"][3 + k]) for k in range(3))]
        if hits != s["query_hits"]:
            c.failures.append(f"{name}: lwc's 3-D query hits {s['query_hits']} differ from brute force {hits}")
        to = world_to_plot(framed(bounds(flat + [q]), s["cell_size"]), plot["width"], plot["height"])
        for i in hits:
            m = meet(flat[i], q)
            c.expect(plot, *to((m[0] + m[2]) / 2, (m[1] + m[3]) / 2), HIT, f"query hit {i} (x-y projection)")
    return page, c


# The bench page's geometry (scripts/bench_report.py).
BENCH_AXES, BENCH_SIZE = (0.11, 0.13, 0.56, 0.77), (640, 400)
BENCH_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]


def tint(colour):
    """A series' line: its colour 45% over white (scripts/bench_report.py)."""
    return tuple(round(0.45 * c + 0.55 * 255) for c in hex_colour(colour))


def bench_ratios(doc):
    """{group: [(impl, base, [(arg, ratio)])]} from a Google Benchmark JSON, computed here."""
    times = {}
    for b in doc["benchmarks"]:
        name = b.get("run_name", b["name"])
        family, _, args = name.partition("/")
        if "." not in family:
            continue
        group, impl = family.split(".", 1)
        arg = float(args.split("/")[-1]) if args else 1.0
        t = b["real_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                times.setdefault((group, impl, arg), []).append(("median", t))
        else:
            times.setdefault((group, impl, arg), []).append(("run", t))
    med = {}
    for key, v in times.items():
        agg = [t for kind, t in v if kind == "median"]
        med[key] = agg[0] if agg else statistics.median(t for _, t in v)
    out = {}
    for group in sorted({k[0] for k in med}):
        impls = sorted({k[1] for k in med if k[0] == group})
        lines = []
        for base in [i for i in impls if i.startswith("baseline")]:
            for impl in [i for i in impls if not i.startswith("baseline")]:
                args = sorted({k[2] for k in med if k[:2] == (group, impl)} & {k[2] for k in med if k[:2] == (group, base)})
                pts = [(a, med[(group, impl, a)] / med[(group, base, a)]) for a in args if med[(group, base, a)] > 0]
                if pts:
                    lines.append((impl, base, pts))
        if lines:
            out[group] = lines
    return out


def check_bench(b, path, bench_json, name):
    page = b.page(path, width=1400)
    c = Checker(page, name)
    with open(bench_json, encoding="utf-8") as f:
        groups = bench_ratios(json.load(f))
    # The image's layout position (offsetLeft/Top: a CSS transform of the image does not move it).
    figures = json.loads(page.eval("""JSON.stringify([...document.querySelectorAll('figure.plot')].map(f => {
        const img = f.querySelector('img'); let x = 0, y = 0;
        for (let e = img; e; e = e.offsetParent) { x += e.offsetLeft; y += e.offsetTop; }
        return {group: f.dataset.group, x: x, y: y, width: img.offsetWidth, height: img.offsetHeight}; }))"""))
    if sorted(f["group"] for f in figures) != sorted(groups):
        c.failures.append(f"{name}: plots for {sorted(f['group'] for f in figures)}, groups in the JSON {sorted(groups)}")
    for fig in figures:
        lines = groups.get(fig["group"], [])
        if not lines:
            continue
        args = [a for _, _, p in lines for a, _ in p]
        x_min, x_max = min(args) / 2, max(args) * 2
        y_max = 1.2 * max(1.0, max(r for _, _, p in lines for _, r in p))
        left, bottom, aw, ah = (BENCH_AXES[0] * BENCH_SIZE[0], BENCH_AXES[1] * BENCH_SIZE[1],
                                BENCH_AXES[2] * BENCH_SIZE[0], BENCH_AXES[3] * BENCH_SIZE[1])
        where = lambda a, r: (left + (math.log(a) - math.log(x_min)) / (math.log(x_max) - math.log(x_min)) * aw,  # noqa: E731
                              BENCH_SIZE[1] - bottom - r / y_max * ah)
        placed = [(where(a, r), i) for i, (_, _, p) in enumerate(lines) for a, r in p]
        for (x, y), i in placed:
            # Where a later series' marker covers this one, the later colour is what shows.
            top = max(j for (xx, yy), j in placed if abs(xx - x) < 10 and abs(yy - y) < 10)
            impl, base, _ = lines[top]
            c.expect(fig, x, y, hex_colour(BENCH_COLOURS[top % len(BENCH_COLOURS)]),
                     f"{fig['group']}: the point of {impl} / {base} at ({x:.0f}, {y:.0f})")
        for i, (impl, base, _) in enumerate(lines):  # the line between two points, away from every marker
            mine = [xy for xy, j in placed if j == i]
            for (x0, y0), (x1, y1) in zip(mine, mine[1:]):
                mx, my = (x0 + x1) / 2, (y0 + y1) / 2
                if min(math.hypot(mx - xx, my - yy) for (xx, yy), _ in placed) > 14:
                    c.expect(fig, mx, my, tint(BENCH_COLOURS[i % len(BENCH_COLOURS)]),
                             f"{fig['group']}: the line of {impl} / {base} at ({mx:.0f}, {my:.0f})")
    return page, c


# ---------------------------------------------------------------------------------------------------

WRONG = {  # a deliberately wrong copy of a page: CSS that moves, scales or hides what the drawings show
    "shifted": "svg.lwc-plot > *, figure.plot img { transform: translate(9px, 7px); }",
    "scaled": "svg.lwc-plot > *, figure.plot img { transform-origin: 0 0; transform: scale(1.1); }",
    "blank": "svg.lwc-plot > *:not(rect:first-child), figure.plot img { visibility: hidden; }",
}


def wrong_copy(path, how, directory):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    style = f"<style>{WRONG[how]}</style>"
    text = text.replace("</head>", style + "</head>", 1) if "</head>" in text else \
        text.replace(">", f"><style xmlns=\"http://www.w3.org/2000/svg\">{WRONG[how]}</style>", 1)
    out = os.path.join(directory, f"{how}-{os.path.basename(path)}")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def main():
    parser = argparse.ArgumentParser(description="render every generated picture in chromium and look at it")
    parser.add_argument("--build", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--png", help="write each page's rendering here (default BUILD/pictures/png)")
    args = parser.parse_args()
    if not browser.find_chromium():
        print("pictures/browser: SKIPPED: chromium is not installed (Debian: apt-get install chromium; ./lwc setup "
              "installs it)")
        return SKIP
    pictures = os.path.join(args.build, "pictures")
    out_png = args.png or os.path.join(pictures, "png")
    os.makedirs(out_png, exist_ok=True)
    traces = {}
    for d in ("examples/audit/traces", "examples/audit/traces/engines"):
        for t in os.listdir(os.path.join(args.source, d)):
            if t.endswith(".jsonl"):
                traces[t[:-6]] = os.path.join(args.source, d, t)
    jobs = []  # (check function, page, its scene, name)
    for name in sorted(traces):
        page = os.path.join(pictures, "audit", name + ".html")
        if not os.path.exists(page):
            print(f"FAIL: no page for the committed trace {traces[name]} ({page})")
            return 1
        jobs.append((check_audit_page, page, traces[name], "audit/" + name))
    for scene in ("small", "dense", "3d"):
        jobs.append((check_scene, os.path.join(pictures, f"scene_{scene}.svg"),
                     os.path.join(pictures, f"scene_{scene}.json"), f"scene_{scene}"))
    bench_page = os.path.join(pictures, "bench.html")
    if os.path.exists(bench_page):
        jobs.append((check_bench, bench_page, os.path.join(args.source, "tests/pictures/bench_sample.json"), "bench"))
    else:
        print("pictures/browser: no bench.html (python3-matplotlib missing at build time): the benchmark page is not checked")
    failures, checked = [], 0
    with browser.Browser() as b:
        for check, page_path, scene, name in jobs:
            page, c = check(b, page_path, scene, name)
            errors = page.console_errors()
            failures += [f"{name}: console: {e}" for e in errors] + c.failures
            checked += c.checked
            with open(os.path.join(out_png, name.replace("/", "_") + ".png"), "wb") as f:
                f.write(page.screenshot(0, 0, page.full_width(), page.full_height()))
            print(f"{name}: {c.checked} pixels checked, {len(c.failures)} wrong, {len(errors)} console errors")
        # The check must see a wrong picture: each kind of picture, shifted, scaled or blanked, fails.
        scratch = tempfile.mkdtemp(prefix="lwc-wrong-")
        try:
            for check, page_path, scene, name in jobs:
                if name not in ("audit/fcl_spatial_hash", "audit/c_cover_off_by_one", "audit/node_naive",
                                "audit/node_rebase_barrier_at_plan", "audit/late_relocatable_from_old_origin",
                                "audit/grid_ignores_set_filter", "scene_small",
                                "bench"):
                    continue
                for how in WRONG:
                    _, c = check(b, wrong_copy(page_path, how, scratch), scene, f"{how} {name}")
                    if c.checked == 0 or not c.failures:
                        failures.append(f"{name}: the {how} copy passed {c.checked} checks: this test cannot see that "
                                        "picture")
                    else:
                        print(f"{how} {name}: {len(c.failures)} of {c.checked} checks fail, as they must")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"pictures/browser: {len(jobs)} pages, {checked} pixels checked, {len(failures)} failures; renderings in {out_png}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
