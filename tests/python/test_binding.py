# SPDX-License-Identifier: MIT
# File: tests/python/test_binding.py
#
# What the Python binding itself promises (docs/python.md, clauses P1-P6), against oracles written in plain
# Python: integer parameters refuse what is not an integer (P1), real parameters take exactly a double or
# refuse (P2), boxes come in through the buffer protocol as well as lists, read in place (P3), one broad
# phase per find_pairs (P4), the persistent grid in 2-D and 3-D with payloads, filters, queries and rays
# (P5), and one exception class per status code (P6). NumPy is used where it is installed, never needed.
# `./lwc package` runs this against the installed, moved package; CTest against the dev build.
import math
import os
import random
import sys
import unittest
from array import array
from fractions import Fraction

sys.path.insert(0, os.environ.get("LWC_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                                  "bindings", "python")))
import lwc  # noqa: E402

try:
    import numpy
except ImportError:  # NumPy is optional: its tests are skipped, saying so
    numpy = None
NO_NUMPY = f"NumPy is not importable by {sys.executable} (Debian: python3-numpy): NumPy inputs not tested"


def overlaps(p, q):
    return all(p[0][k] <= q[1][k] and q[0][k] <= p[1][k] for k in range(len(p[0])))


def brute_force(boxes):
    return [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if overlaps(boxes[i], boxes[j])]


def scene(rng, n, d, step=0.5):
    boxes = []
    for _ in range(n):
        low = [rng.randint(-20, 20) * step for _ in range(d)]
        boxes.append((tuple(low), tuple(v + rng.randint(0, 6) * step for v in low)))
    return boxes


def flat(boxes):
    return [v for low, high in boxes for v in (*low, *high)]


class P1_IntegersAreIntegers(unittest.TestCase):
    """Integer parameters take what operator.index takes; a float, a str, a bool is a TypeError."""

    def test_split_refuses_what_is_not_an_int(self):
        # (x, size, the value the message must name); today's truncating binding returned (0, 0),
        # (-1, 994), (-1, 993) and (0, 1) for the first four.
        for x, size, named in [(-0.5, 1000, "-0.5"), (-5, 999.9, "999.9"), ("-7", 1000, "'-7'"),
                               (True, 1000, "True"), (7, False, "False"), (1.0, 1000, "1.0"),
                               (None, 1000, "None"), (Fraction(1), 1000, "Fraction(1, 1)")]:
            with self.subTest(x=x, size=size):
                with self.assertRaises(TypeError) as e:
                    lwc.split(x, size)
                self.assertIsInstance(e.exception, lwc.WrongType)
                self.assertIsInstance(e.exception, lwc.InvalidArgument)  # one family: lwc.LwcError
                self.assertEqual(e.exception.code, lwc.INVALID_ARGUMENT)
                self.assertIn(f"({named})", e.exception.message)

    def test_the_message_names_the_parameter_and_points_at_cell_of(self):
        with self.assertRaises(lwc.WrongType) as e:
            lwc.split(-0.5, 1000)
        self.assertIn("lwc.split: x must be an int, not float (-0.5)", str(e.exception))
        self.assertIn("lwc.cell_of(-0.5", str(e.exception))  # what the caller meant: the exact cell
        self.assertEqual(lwc.cell_of(-0.5, 1000), -1)
        with self.assertRaises(lwc.WrongType) as e:
            lwc.split(-5, 999.9)
        self.assertIn("size must be an int, not float (999.9)", str(e.exception))

    def test_every_integer_parameter(self):
        calls = [lambda: lwc.split_all([1, 2.5], 16), lambda: lwc.split_all([1, True], 16),
                 lambda: lwc.split_all([1], "16"), lambda: lwc.cover(0.5, 3, 16), lambda: lwc.cover_closed(0, 3, 16.0),
                 lambda: lwc.count("0", 1), lambda: lwc.Committer(16.0), lambda: lwc.Committer(True),
                 lambda: lwc.find_pairs2([], max_pairs=1.5), lambda: lwc.PersistentGrid2(max_memberships="9"),
                 lambda: lwc.OriginCoordinator2(1024.0), lambda: lwc.OriginCoordinator2(1024, origin=(0.5, 0))]
        for i, call in enumerate(calls):
            with self.subTest(call=i):
                with self.assertRaises(lwc.WrongType):
                    call()
        with lwc.Committer(16) as c:
            with self.assertRaises(lwc.WrongType):
                c.mark(0.5, 0)
            with self.assertRaises(lwc.WrongType):
                c.commit(lambda run: 1, run_budget=2.0)

    def test_ints_of_any_kind_are_taken_exactly(self):
        class Index:
            def __index__(self):
                return -1

        self.assertEqual(lwc.split(Index(), 1000), (-1, 999))
        self.assertEqual(lwc.split_all(array("q", [-1, -1000, 1000]), 1000), [(-1, 999), (-1, 0), (1, 0)])
        self.assertEqual(lwc.split(lwc.INT64_MIN, lwc.INT64_MAX), (-2, lwc.INT64_MAX - 1))
        for x in (1 << 63, lwc.INT64_MIN - 1, 1 << 200):
            with self.assertRaises(lwc.OutOfRange) as e:  # never wrapped by ctypes
                lwc.split(x, 16)
            self.assertIsInstance(e.exception, OverflowError)
            self.assertIn(str(x), e.exception.message)

    @unittest.skipUnless(numpy, NO_NUMPY)
    def test_numpy_integers(self):
        self.assertEqual(lwc.split(numpy.int64(-1), numpy.int32(1000)), (-1, 999))
        self.assertEqual(lwc.split_all(numpy.array([-1, 5], dtype=numpy.int64), 4), [(-1, 3), (1, 1)])
        with self.assertRaises(lwc.WrongType):
            lwc.split(numpy.float64(-0.5), 1000)


class P2_RealsAreExactlyDoubles(unittest.TestCase):
    def test_reals_that_are_doubles(self):
        self.assertEqual(lwc.cell_of(-1, 0.5), -2)  # an int that is a double
        self.assertEqual(lwc.cell_of(Fraction(-1, 2), Fraction(1, 4)), -2)  # exact fractions
        self.assertEqual(lwc.cell_of(-0.0, 0.5), 0)
        self.assertEqual(lwc.cell_of_all(array("d", [-0.5, 0.5]), 0.5), [-1, 1])

    def test_reals_a_double_would_round_are_refused(self):
        for v in (2 ** 53 + 1, Fraction(1, 3), -(2 ** 64 + 1)):
            with self.subTest(v=v):
                with self.assertRaises(lwc.InvalidArgument) as e:
                    lwc.cell_of(v, 1.0)
                self.assertIn("not exactly a double", e.exception.message)
        with self.assertRaises(lwc.OutOfRange):
            lwc.cell_of(10 ** 400, 1.0)
        with self.assertRaises(lwc.InvalidArgument) as e:
            lwc.find_pairs2([((0, 0), (1, 2 ** 53 + 1))])
        self.assertIn("box 0 max[1]", e.exception.message)

    def test_str_and_bool_are_not_reals(self):
        for call in (lambda: lwc.cell_of("1.5", 1.0), lambda: lwc.cell_of(True, 1.0), lambda: lwc.cell_of(1, b"1"),
                     lambda: lwc.cell_of_all([0.5, "1"], 1.0), lambda: lwc.find_pairs2([((0, 0), (1, "1"))]),
                     lambda: lwc.find_pairs2([((0, 0), (1, 1))], cell_size="2"),
                     lambda: lwc.find_pairs2([((0, False), (1, 1))])):
            with self.assertRaises(lwc.WrongType):
                call()


class P3_BoxesThroughBuffers(unittest.TestCase):
    def test_every_input_form_gives_the_same_pairs(self):
        rng = random.Random(29)
        for d, find in ((2, lwc.find_pairs2), (3, lwc.find_pairs3)):
            for _ in range(40):
                boxes = scene(rng, rng.randint(0, 30), d)
                want = brute_force(boxes)
                values = flat(boxes)
                forms = {"list": boxes, "array d": array("d", values), "array f": array("f", values),
                         "memoryview": memoryview(array("d", values)),
                         "readonly": memoryview(array("d", values).tobytes()).cast("d"),
                         "strided": memoryview(array("d", [v for x in values for v in (x, -1.0)]))[::2]}
                for name, form in forms.items():
                    with self.subTest(d=d, form=name):
                        got = find(form, cell_size=rng.choice([0.5, 1.0, 3.0]))
                        self.assertEqual(got, want)
                        self.assertEqual(list(got), want)
                        self.assertEqual(got.stats.pairs, len(want))

    def test_float_boxes_are_their_floats(self):
        # 0.1 as a float is 0.100000001490116...: the float box reaches a box starting at 0.1000000001.
        values = [0, 0, 0.1, 1, 0.1000000001, 0, 1, 1]
        self.assertEqual(lwc.find_pairs2(array("d", values)), [])
        self.assertEqual(lwc.find_pairs2(array("f", values)), [(0, 1)])

    def test_bad_buffers(self):
        with self.assertRaises(lwc.WrongType):
            lwc.find_pairs2(array("i", [0, 0, 1, 1]))
        with self.assertRaises(lwc.InvalidArgument) as e:
            lwc.find_pairs2(array("d", [0, 0, 1]))
        self.assertIn("shape (3,)", e.exception.message)
        with self.assertRaises(lwc.InvalidArgument):
            lwc.find_pairs3(array("d", [0, 0, 1, 1]))
        with self.assertRaises(lwc.InvalidArgument) as e:
            lwc.find_pairs2([((0, 0), (1, 1)), ((0, 0, 0), (1, 1, 1))])
        self.assertIn("box 1", e.exception.message)
        with self.assertRaises(lwc.InvalidArgument) as e:
            lwc.find_pairs2(array("d", [0, 0, 1, 1, 0, math.nan, 1, 1]))
        self.assertIn("box 1", e.exception.message)  # the library's own B6 message

    def test_an_array_is_read_in_place(self):
        boxes = array("d", [0, 0, 1, 1, 5, 5, 6, 6])
        self.assertEqual(lwc.find_pairs2(boxes), [])
        boxes[4:8] = array("d", [0.5, 0.5, 2, 2])
        self.assertEqual(lwc.find_pairs2(boxes), [(0, 1)])
        boxes.append(0.0)  # not pinned by an earlier call
        boxes.pop()

    @unittest.skipUnless(numpy, NO_NUMPY)
    def test_numpy_arrays(self):
        rng = random.Random(31)
        for d, find in ((2, lwc.find_pairs2), (3, lwc.find_pairs3)):
            boxes = scene(rng, 60, d)
            want = brute_force(boxes)
            a = numpy.array(flat(boxes), dtype=numpy.float64).reshape(-1, 2 * d)
            wide = numpy.zeros((len(boxes), 2 * d + 3))
            wide[:, 1:2 * d + 1] = a
            forms = {"(n, 2d)": a, "(n, 2, d)": a.reshape(-1, 2, d), "flat": a.ravel(), "float32": a.astype("f4"),
                     "fortran": numpy.asfortranarray(a), "columns of a wider array": wide[:, 1:2 * d + 1],
                     "readonly": numpy.frombuffer(a.tobytes()).reshape(-1, 2 * d),
                     "big-endian": a.astype(">f8")}
            for name, form in forms.items():
                with self.subTest(d=d, form=name):
                    if name == "big-endian":
                        with self.assertRaises(lwc.WrongType):
                            find(form)
                        continue
                    self.assertEqual(find(form), want)
            reversed_boxes = boxes[::-1]
            self.assertEqual(find(a[::-1]), brute_force(reversed_boxes))  # negative strides: copied once
            got = find(a)
            pairs = numpy.frombuffer(got.array, numpy.uint32).reshape(-1, 2)
            self.assertEqual([tuple(map(int, p)) for p in pairs], want)
            with self.assertRaises(lwc.WrongType):
                find(a.astype(numpy.int64))


class P4_OneBroadPhasePerCall(unittest.TestCase):
    def test_find_pairs_makes_one_broad_phase_call(self):
        calls = []
        real = {name: getattr(lwc._lib, name) for name in ("lwc_find_pairs2_view", "lwc_find_pairs2")}

        def counting(name):
            def call(*args):
                calls.append(name)
                return real[name](*args)
            return call

        try:
            for name in real:
                setattr(lwc._lib, name, counting(name))
            boxes = [((0, 0), (float(i + 1), 1.0)) for i in range(300)]  # 44,850 pairs
            got = lwc.find_pairs2(boxes)
        finally:
            for name, fn in real.items():
                setattr(lwc._lib, name, fn)
        self.assertEqual(len(got), 300 * 299 // 2)
        self.assertEqual(calls, ["lwc_find_pairs2_view"])

    def test_budget_errors_come_from_that_one_call(self):
        with self.assertRaises(lwc.ResourceExhausted) as e:
            lwc.find_pairs2([((0, 0), (1, 1))] * 3, max_pairs=2)
        self.assertEqual(e.exception.code, lwc.RESOURCE_EXHAUSTED)


class P5_PersistentGrid(unittest.TestCase):
    def check_against_brute_force(self, d, seed):
        rng = random.Random(seed)
        groups = [lwc.Filter(), lwc.Filter(2, lwc.UINT64_MAX ^ 2), lwc.Filter(4, 1)]
        with (lwc.PersistentGrid2 if d == 2 else lwc.PersistentGrid3)(cell_size=1.0) as grid:
            live, before = {}, {}

            def box():
                low = [rng.randint(-8, 8) for _ in range(d)]
                return tuple(low), tuple(v + rng.randint(0, 3) for v in low)

            for step in range(80):
                op = rng.random()
                if op < 0.35 or not live:
                    b, user, f = box(), rng.randint(0, lwc.UINTPTR_MAX), rng.choice(groups)
                    live[grid.insert(b, user=user, filter=f)] = [b, user, f]
                elif op < 0.6:
                    h = rng.choice(list(live))
                    live[h][0] = box()
                    grid.move(h, live[h][0], swept=rng.random() < 0.3)
                elif op < 0.7:
                    h = rng.choice(list(live))
                    live[h][1] = rng.randint(0, 100)
                    grid.set_user_data(h, live[h][1])
                    self.assertEqual(grid.user_data(h), live[h][1])
                elif op < 0.8:
                    h = rng.choice(list(live))
                    live[h][2] = rng.choice(groups)
                    grid.set_filter(h, live[h][2])
                    self.assertEqual(grid.filter(h), live[h][2])
                else:
                    h = rng.choice(list(live))
                    grid.remove(h)
                    del live[h]
                    with self.assertRaises(lwc.NotFound):
                        grid.remove(h)  # stale at once (E3)
                    with self.assertRaises(LookupError):
                        grid.box(h)
                probe = box()
                want = sorted((h, v[1]) for h, v in live.items() if overlaps(v[0], probe))
                self.assertEqual(grid.query(probe), want)  # boxes as last given (E11), by slot
                if rng.random() < 0.3:
                    events = grid.update()
                    items = sorted(live.items())
                    now = {}
                    for i, (a, p) in enumerate(items):
                        for b, q in items[i + 1:]:
                            if overlaps(p[0], q[0]) and p[2].group & q[2].mask and q[2].group & p[2].mask:
                                now[(a, b)] = (p[1], q[1])
                    began = {(c.a, c.b): (c.user_a, c.user_b) for c in events.began}
                    ended = {(c.a, c.b): (c.user_a, c.user_b) for c in events.ended}
                    self.assertEqual(set(began), set(now) - set(before))
                    self.assertEqual(set(ended), set(before) - set(now))
                    for pair in began:
                        self.assertEqual(began[pair], now[pair])  # payloads as now (E7)
                    for pair in ended:
                        self.assertEqual(ended[pair], before[pair])  # as at the previous update
                    self.assertEqual({(c.a, c.b) for c in grid.pairs()}, set(now))
                    self.assertEqual(events.stats.boxes, len(live))
                    self.assertEqual(grid.size(), len(live))
                    self.assertEqual(grid.pending(), 0)
                    before = now

    def test_2d_against_brute_force(self):
        for seed in range(4):
            self.check_against_brute_force(2, seed)

    def test_3d_against_brute_force(self):
        for seed in range(4):
            self.check_against_brute_force(3, seed)

    def test_rays_float_boxes_and_handles(self):
        with lwc.PersistentGrid2(cell_size=2.0) as grid:
            wall = grid.insert(((0, 0), (10, 2)), user=1)
            prop = grid.insert(array("f", [12, 0, 13, 1]), user=2)  # a float box (E10)
            self.assertEqual(grid.update().began, [])
            grid.move(prop, array("f", [9, 0.5, 9.5, 1.5]))
            events = grid.update()
            self.assertEqual(events.began, [lwc.Contact(wall, prop, 1, 2)])
            self.assertEqual(grid.box(prop), ((9.0, 0.5), (9.5, 1.5)))
            hits = grid.raycast((-1, 1), (20, 1))
            self.assertEqual([h.handle for h in hits], [wall, prop])
            self.assertEqual(hits[0].t, 1 / 21)
            self.assertEqual(hits[1].user, 2)
            self.assertEqual(grid.raycast((-1, 5), (20, 5)), [])
            with self.assertRaises(lwc.InvalidArgument):
                grid.raycast((math.nan, 0), (1, 1))
            with self.assertRaises(lwc.OutOfRange):
                grid.insert(((0, 0), (1, 1)), user=-1)  # user data is uintptr_t
            with self.assertRaises(lwc.OutOfRange):
                grid.remove((1 << 32, 1))
            with self.assertRaises(lwc.WrongType):
                grid.remove("wall")
            for _ in range(40):  # lists larger than the grid's first buffers (F4 inside the binding)
                grid.insert(((0, 0), (1, 1)))
            self.assertEqual(len(grid.query(((0, 0), (1, 1)))), 41)
            self.assertEqual(len(grid.update().began), 41 * 40 // 2)
        with lwc.PersistentGrid3() as grid:
            a = grid.insert(((0, 0, 0), (1, 1, 1)), user=5)
            b = grid.insert(((1, 1, 1), (2, 2, 2)), user=6, filter=lwc.Filter(group=2, mask=2))
            self.assertEqual(grid.update().began, [])  # a's group 1 is not in b's mask
            grid.set_filter(b, lwc.Filter())
            self.assertEqual(grid.update().began, [lwc.Contact(a, b, 5, 6)])
            self.assertEqual([h.user for h in grid.raycast((-1, -1, -1), (3, 3, 3))], [5, 6])


class P6_OneExceptionClassPerCode(unittest.TestCase):
    NAMES = {1: "Cancelled", 2: "Unknown", 3: "InvalidArgument", 4: "DeadlineExceeded", 5: "NotFound",
             6: "AlreadyExists", 7: "PermissionDenied", 8: "ResourceExhausted", 9: "FailedPrecondition",
             10: "Aborted", 11: "OutOfRange", 12: "Unimplemented", 13: "Internal", 14: "Unavailable",
             15: "DataLoss", 16: "Unauthenticated", 100: "BufferTooSmall"}

    def classes(self):
        return {code: getattr(lwc, name) for code, name in self.NAMES.items()}

    def test_every_code_through_the_c_boundary(self):
        # A prepare callback that fails with a code fails the commit with it (T4): every code crosses C.
        for code, cls in self.classes().items():
            if code == 100:
                continue  # the C layer's own code, never a callback's: it counts as Unknown
            with self.subTest(code=code), lwc.Committer(16) as c:
                c.mark(0, 0)

                def failing(run):
                    raise cls(f"prepare failed with {cls.__name__}")

                with self.assertRaises(cls) as e:
                    c.commit(failing)
                self.assertIs(type(e.exception), cls)
                self.assertEqual(e.exception.code, code)
                self.assertEqual(c.pending_chunks(), 1)  # nothing published (T4)

    def test_constructors_and_names(self):
        for code, cls in self.classes().items():
            e = lwc.LwcError(code, "m")
            self.assertIs(type(e), cls)
            self.assertEqual(e.name, lwc._lib.lwc_status_name(code).decode())
            self.assertEqual(str(cls("m")), f"{e.name}: m")
            self.assertIsInstance(e, lwc.LwcError)
        self.assertIs(type(lwc.LwcError(42, "m")), lwc.LwcError)
        self.assertEqual(lwc.LwcError(42, "m").name, "LWC_UNKNOWN_CODE")
        self.assertTrue(issubclass(lwc.InvalidArgument, ValueError))
        self.assertTrue(issubclass(lwc.WrongType, TypeError))
        self.assertTrue(issubclass(lwc.NotFound, LookupError))
        self.assertTrue(issubclass(lwc.OutOfRange, OverflowError))
        import pickle
        e = pickle.loads(pickle.dumps(lwc.Aborted("stale plan")))
        self.assertIs(type(e), lwc.Aborted)
        self.assertEqual(e.message, "stale plan")

    def test_the_library_raises_each_class_it_can(self):
        with self.assertRaises(lwc.InvalidArgument):
            lwc.split(1, 0)
        with self.assertRaises(lwc.OutOfRange):
            lwc.count(lwc.INT64_MIN, lwc.INT64_MAX)
        with self.assertRaises(lwc.ResourceExhausted):
            lwc.find_pairs2([((0, 0), (100, 100))], cell_size=1.0, max_cells_per_box=4)
        with lwc.PersistentGrid2() as grid, self.assertRaises(lwc.NotFound):
            grid.move((0, 1), ((0, 0), (1, 1)))
        with lwc.OriginCoordinator3(1024) as view:
            observer = view.position((5, 0, 0), (512.0, 0.0, 0.0))
            with self.assertRaises(lwc.FailedPrecondition):
                view.plan(observer)  # the barrier is not loaded (R6)
            for x in (4, 5, 6):
                for y in (-1, 0, 1):
                    for z in (-1, 0, 1):
                        view.load((x, y, z))
            plan = view.plan(observer)
            self.assertEqual(view.commit(plan), ((5, 0, 0), 1))
            with self.assertRaises(lwc.Aborted):
                view.commit(plan)  # replayed (R8)
            self.assertEqual(view.to_render(observer), ((512.0, 0.0, 0.0), 1))
        with lwc.Committer(16) as c, self.assertRaises(lwc.Unknown):
            c.mark(0, 0)
            c.commit(lambda run: 1 / 0)


if __name__ == "__main__":
    unittest.main()
