# SPDX-License-Identifier: MIT
# File: tests/python/test_lwc.py
#
# The Python ctypes binding (bindings/python/lwc.py) against the installed liblwc_c.so, with oracles
# written differently from the library: Python's own floor division for split (D1-D3), exact fractions for
# cell_of (D9), brute force for find_pairs (B1-B4) and the persistent grid's events (E1). Standard library
# only. `./lwc package` runs it as
#   LWC_PYTHON_DIR=<installed prefix>/share/lwc/python python3 -m unittest discover -s tests/python
import math
import os
import random
import sys
import unittest
from fractions import Fraction

sys.path.insert(0, os.environ.get("LWC_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                                  "bindings", "python")))
import lwc  # noqa: E402

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
EXTREMES = [INT64_MIN, INT64_MIN + 1, -1001, -1000, -999, -1, 0, 1, 999, 1000, INT64_MAX - 1, INT64_MAX]


def any_int64(rng):
    return rng.choice(EXTREMES) if rng.random() < 0.3 else rng.randint(INT64_MIN, INT64_MAX)


class Decompose(unittest.TestCase):
    def test_abi_version(self):
        self.assertEqual(lwc.abi_version(), lwc.ABI_VERSION)

    def test_split_is_floor_division(self):
        self.assertEqual(lwc.split(-1, 1000), (-1, 999))  # the truncating-division example
        rng = random.Random(20261129)
        sizes = [1, 2, 3, 16, 1000, 1 << 62, INT64_MAX]
        for _ in range(3000):
            x, s = any_int64(rng), rng.choice(sizes + [rng.randint(1, INT64_MAX)])
            self.assertEqual(lwc.split(x, s), (x // s, x % s), (x, s))  # Python's // is the floor
        xs = [any_int64(rng) for _ in range(100)]
        self.assertEqual(lwc.split_all(xs, 1000), [(x // 1000, x % 1000) for x in xs])

    def test_bad_size_and_range(self):
        with self.assertRaises(lwc.LwcError) as e:
            lwc.split(1, 0)
        self.assertEqual(e.exception.code, lwc.INVALID_ARGUMENT)
        self.assertEqual(e.exception.name, "LWC_INVALID_ARGUMENT")
        self.assertIn("D5", e.exception.message)
        with self.assertRaises(OverflowError):  # never wrapped by ctypes
            lwc.split(1 << 63, 16)
        with self.assertRaises(lwc.OutOfRange):
            lwc.split(-(1 << 63) - 1, 16)

    def test_cell_of_is_the_exact_floor(self):
        self.assertEqual(lwc.cell_of(-0.0, 0.5), 0)
        self.assertEqual(lwc.cell_of(-5e-324, 2.0), -1)  # floor(v / h) in floats would say 0
        rng = random.Random(7)
        for _ in range(3000):
            h = rng.choice([0.5, 2.0, 0.1, 3.0, 1e-300, 5e-324, rng.uniform(1e-3, 1e3)])
            v = rng.choice([rng.uniform(-1e6, 1e6), rng.randint(-1000, 1000) * h, -0.0, 5e-324, -5e-324,
                            rng.uniform(-1e20, 1e20)])
            exact = math.floor(Fraction(v) / Fraction(h))
            if INT64_MIN <= exact <= INT64_MAX:
                self.assertEqual(lwc.cell_of(v, h), exact, (v.hex(), h.hex()))
            else:
                with self.assertRaises(lwc.LwcError) as e:
                    lwc.cell_of(v, h)
                self.assertEqual(e.exception.code, lwc.OUT_OF_RANGE)
        for bad in (math.nan, math.inf, -math.inf):
            with self.assertRaises(lwc.LwcError) as e:
                lwc.cell_of(bad, 1.0)
            self.assertEqual(e.exception.code, lwc.INVALID_ARGUMENT)
        with self.assertRaises(lwc.LwcError) as e:
            lwc.cell_of_all([0.5, 1.5, math.nan], 1.0)
        self.assertIn("input 2", e.exception.message)
        self.assertEqual(lwc.cell_of_all([0.5, -0.5, 1e15], 0.5), [1, -1, 2 * 10 ** 15])


class Cover(unittest.TestCase):
    def test_cover_and_count(self):
        self.assertEqual(lwc.cover(-1000, 0, 1000), (-1, -1))
        self.assertIsNone(lwc.cover(INT64_MIN, INT64_MIN, 7))
        self.assertEqual(lwc.cover_closed(INT64_MIN, INT64_MAX, 1), (INT64_MIN, INT64_MAX))
        with self.assertRaises(lwc.LwcError) as e:
            lwc.count(INT64_MIN, INT64_MAX)  # 2^64 chunks
        self.assertEqual(e.exception.code, lwc.OUT_OF_RANGE)
        self.assertEqual(lwc.count(INT64_MIN, INT64_MAX - 1), (1 << 64) - 1)
        with self.assertRaises(lwc.LwcError):
            lwc.cover(1, 0, 16)  # reversed (C4)
        rng = random.Random(3)
        for _ in range(2000):
            a, s = any_int64(rng), rng.choice([1, 3, 16, 1000, INT64_MAX])
            b = min(INT64_MAX, a + rng.randint(1, 5000))
            self.assertEqual(lwc.cover(a, b, s), (a // s, (b - 1) // s) if b > a else None)  # a = INT64_MAX: empty


def overlaps(p, q):
    return all(p[0][k] <= q[1][k] and q[0][k] <= p[1][k] for k in range(2))


class Broadphase(unittest.TestCase):
    def test_find_pairs_is_brute_force(self):
        self.assertEqual(lwc.find_pairs2([((0, 0), (10, 2)), ((9, 0.5), (9.5, 1.5))], cell_size=2.0), [(0, 1)])
        rng = random.Random(11)
        for _ in range(200):
            boxes = []
            for _ in range(rng.randint(0, 25)):
                x, y = rng.randint(-20, 20) / 2, rng.randint(-20, 20) / 2
                boxes.append(((x, y), (x + rng.randint(0, 8) / 2, y + rng.randint(0, 8) / 2)))
            want = [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if overlaps(boxes[i], boxes[j])]
            self.assertEqual(lwc.find_pairs2(boxes, cell_size=rng.choice([0.5, 1.0, 3.0])), want)

    def test_bad_box_and_budget(self):
        with self.assertRaises(lwc.LwcError) as e:
            lwc.find_pairs2([((0, 0), (1, 1)), ((0, math.nan), (1, 1))])
        self.assertEqual(e.exception.code, lwc.INVALID_ARGUMENT)
        self.assertIn("box 1", e.exception.message)
        with self.assertRaises(lwc.LwcError) as e:
            lwc.find_pairs2([((0, 0), (1, 1))] * 3, max_pairs=2)
        self.assertEqual(e.exception.code, lwc.RESOURCE_EXHAUSTED)

    def test_persistent_grid_events_are_the_pair_set_differences(self):
        rng = random.Random(5)
        with lwc.PersistentGrid2(cell_size=1.0) as grid:
            live, before = {}, set()
            for _ in range(60):
                op = rng.random()
                if op < 0.4 or not live:
                    x, y = rng.randint(-10, 10), rng.randint(-10, 10)
                    box = ((x, y), (x + rng.randint(0, 3), y + rng.randint(0, 3)))
                    live[tuple(grid.insert(box))] = box
                elif op < 0.75:
                    h = rng.choice(list(live))
                    x, y = rng.randint(-10, 10), rng.randint(-10, 10)
                    live[h] = ((x, y), (x + rng.randint(0, 3), y + rng.randint(0, 3)))
                    grid.move(h, live[h])
                else:
                    h = rng.choice(list(live))
                    grid.remove(h)
                    del live[h]
                    with self.assertRaises(lwc.LwcError) as e:
                        grid.remove(h)  # stale at once (E3)
                    self.assertEqual(e.exception.code, lwc.NOT_FOUND)
                if rng.random() < 0.4:
                    events = grid.update()
                    items = sorted(live.items())
                    now = {(a, b) for i, (a, p) in enumerate(items) for (b, q) in items[i + 1:] if overlaps(p, q)}
                    self.assertEqual({(c.a, c.b) for c in grid.pairs()}, now)
                    self.assertEqual({(c.a, c.b) for c in events.began}, now - before)
                    self.assertEqual({(c.a, c.b) for c in events.ended}, before - now)
                    self.assertEqual(events.swept, [])
                    self.assertEqual(events.began, sorted(events.began))  # canonical order
                    before = now


class Rebase(unittest.TestCase):
    def test_plan_commit_and_late_results(self):
        with lwc.OriginCoordinator2(1024) as view:
            observer = view.position((5, 0), (512.0, -1e-17))
            self.assertEqual(list(observer.cell), [5, 0])  # -1e-17 rounds onto cell 0's origin (R1)
            late = view.start_late(observer)
            baked = view.start_late(observer, baked=True)
            with self.assertRaises(lwc.LwcError) as e:
                view.plan(observer)
            self.assertEqual(e.exception.code, lwc.FAILED_PRECONDITION)  # R6
            for x in (4, 5, 6):
                for y in (-1, 0, 1):
                    view.load((x, y))
            plan = view.plan(observer)
            self.assertIsNotNone(plan)
            self.assertEqual(view.commit(plan), ((5, 0), 1))
            with self.assertRaises(lwc.LwcError) as e:
                view.commit(plan)  # replayed (R8)
            self.assertEqual(e.exception.code, lwc.ABORTED)
            self.assertEqual(view.origin(), ((5, 0), 1))
            self.assertEqual(view.to_render(observer), ((512.0, 0.0), 1))
            self.assertEqual(view.place_late(late), ((512.0, 0.0), 1))  # from the anchor (R9)
            with self.assertRaises(lwc.LwcError) as e:
                view.place_late(baked)
            self.assertEqual(e.exception.code, lwc.ABORTED)
            far = view.position((INT64_MAX, 0), (0.0, 0.0))
            with self.assertRaises(lwc.LwcError) as e:
                view.to_render(far)
            self.assertEqual(e.exception.code, lwc.OUT_OF_RANGE)  # outside the bubble (R5)


class Commit(unittest.TestCase):
    def test_failing_prepare_publishes_nothing(self):
        with lwc.Committer(16) as c:
            for x, y in [(0, 0), (15, 0), (16, 0), (0, 32), (-1, -1)]:
                c.mark(x, y)
            self.assertEqual(c.pending_chunks(), 4)
            self.assertEqual(c.pending_runs(), [(-1, -1, -1), (0, 0, 1), (2, 0, 0)])
            calls = []

            def failing(run):
                calls.append(run)
                if len(calls) == 2:
                    raise RuntimeError("the baker is busy")
                return 1

            with self.assertRaises(lwc.LwcError) as e:
                c.commit(failing)
            self.assertEqual(e.exception.code, lwc.UNKNOWN)
            self.assertIsInstance(e.exception.__cause__, RuntimeError)
            self.assertIn("T4", e.exception.message)
            self.assertEqual(len(calls), 2)  # no run prepared after the failure
            self.assertEqual(c.published(), (0, 0, []))
            self.assertEqual(c.pending_chunks(), 4)

            def unavailable(run):
                raise lwc.LwcError(14, "not now")

            with self.assertRaises(lwc.Unavailable) as e:
                c.commit(unavailable)
            self.assertEqual(e.exception.code, 14)
            report = c.commit(lambda run: run[2] - run[1] + 1, run_budget=2)
            self.assertEqual(report["runs_published"], 2)
            self.assertEqual(report["chunks_pending"], 1)
            sequence, _, entries = c.published()
            self.assertEqual(sequence, 1)
            self.assertEqual(entries, [((-1, -1, -1), 1), ((0, 0, 1), 2)])
            with self.assertRaises(lwc.LwcError):
                c.commit(lambda run: 0, run_budget=0)  # RunBudget >= 1 (T8)


class Handles(unittest.TestCase):
    def test_destroyed_once(self):
        grid = lwc.PersistentGrid2()
        grid.close()
        grid.close()  # the wrapper destroys once
        with self.assertRaises(lwc.LwcError) as e:
            lwc._check(lwc._lib.lwc_persistent_grid2_destroy(lwc._V(0x1234)))  # never issued (F5)
        self.assertEqual(e.exception.code, lwc.INVALID_ARGUMENT)
        self.assertIn("F5", e.exception.message)


if __name__ == "__main__":
    unittest.main()
