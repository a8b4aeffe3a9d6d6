# SPDX-License-Identifier: MIT
# File: bench/python_bench.py
#
# The Python binding's overhead (bindings/python/lwc.py) against the C call it makes, on the same boxes, in
# one process, interleaved, medians of repeated runs (docs/performance.md, "Python binding"):
#   python   lwc.find_pairs2(boxes) with the boxes as an array('d') (x0, y0, x1, y1 per box): argument checks,
#            the view of the array, one broad phase into a pair list, the copy into the result's array('I')
#   c        lwc_find_pairs2 on the same memory into a caller buffer sized once, through ctypes (the call
#            itself: ctypes adds about a microsecond)
#   list     lwc.find_pairs2 with the boxes as a list of ((x0, y0), (x1, y1)) tuples (for reference)
# The world is the broad-phase bench's uniform one (bench/c_api_bench.cc): sides 0.5-2 m at 4 m^2 per box,
# cell 2 m, drawn here by Python's random. Goal (issue 29): python / c <= 1.2 at 100,000 boxes.
#
#   LWC_C_LIBRARY=build/release/liblwc_c.so python3 bench/python_bench.py [--boxes N] [--repetitions R]
import argparse
import ctypes
import os
import random
import statistics
import sys
import time
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python"))
os.environ.setdefault("LWC_C_LIBRARY", os.path.join(HERE, "..", "build", "release", "liblwc_c.so"))
import lwc  # noqa: E402


def uniform(n, seed):
    rng = random.Random(seed)
    side = (4.0 * n) ** 0.5
    flat = array("d")
    for _ in range(n):
        x, y = rng.uniform(0, side), rng.uniform(0, side)
        flat.extend((x, y, x + rng.uniform(0.5, 2.0), y + rng.uniform(0.5, 2.0)))
    return flat


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boxes", type=int, default=100_000)
    parser.add_argument("--repetitions", type=int, default=21)
    parser.add_argument("--list", action="store_true", help="also time the list-of-tuples input")
    args = parser.parse_args()

    flat = uniform(args.boxes, 1000 + args.boxes)
    n = len(flat) // 4
    config = lwc._lib.lwc_grid_config_default()
    config.cell_size = 2.0
    fn = lwc._lib.lwc_find_pairs2
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(lwc.GridConfig), ctypes.c_void_p,
                   ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]
    count = ctypes.c_size_t()
    code = fn(flat.buffer_info()[0], n, ctypes.byref(config), None, 0, ctypes.byref(count), None)
    assert code == lwc.BUFFER_TOO_SMALL, code
    buffer = (lwc.Pair * count.value)()
    boxes = [((flat[i], flat[i + 1]), (flat[i + 2], flat[i + 3])) for i in range(0, len(flat), 4)]

    def python_call():
        return lwc.find_pairs2(flat, cell_size=2.0)

    def c_call():
        code = fn(flat.buffer_info()[0], n, ctypes.byref(config), buffer, len(buffer), ctypes.byref(count), None)
        assert code == lwc.OK, code

    def list_call():
        return lwc.find_pairs2(boxes, cell_size=2.0)

    want = python_call()
    c_call()
    assert len(want) == count.value and all(want[i] == (buffer[i].a, buffer[i].b) for i in range(0, len(want), 997))
    calls = {"python": python_call, "c": c_call}
    if args.list:
        calls["list"] = list_call
        assert list_call() == want
    times = {name: [] for name in calls}
    for _ in range(args.repetitions):  # interleaved, so that the machine's load falls on every call alike
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    print(f"{n} boxes, {len(want)} pairs, {args.repetitions} repetitions, medians:")
    for name, m in medians.items():
        print(f"  {name:7s} {m * 1e3:9.2f} ms   (min {min(times[name]) * 1e3:.2f}, max {max(times[name]) * 1e3:.2f})")
    print(f"python / c = {medians['python'] / medians['c']:.3f}   (goal <= 1.2)")
    if "list" in medians:
        print(f"list / c   = {medians['list'] / medians['c']:.3f}")


if __name__ == "__main__":
    main()
