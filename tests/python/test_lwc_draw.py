# SPDX-License-Identifier: MIT
# File: tests/python/test_lwc_draw.py
#
# lwc_draw.py (pictures of a scene, docs/draw.md) against the shared library of the build or the installed
# package: the exact values in the titles, the missed pair's marker where the frame rule puts it (computed
# here), the refusals as lwc.LwcError.
import os
import re
import sys
import unittest

sys.path.insert(0, os.environ.get("LWC_PYTHON_DIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                                  "bindings", "python")))
import lwc  # noqa: E402
import lwc_draw  # noqa: E402


class Draw(unittest.TestCase):
    def test_p1_titles_carry_exact_values(self):
        svg = lwc_draw.svg2([((0.1, 0), (1, 2 ** 53))])
        self.assertIn("box 0: x [0.1 (0x1.999999999999ap-4) .. 1 (0x1p+0)], y [0 (0x0p+0) .. "
                      "9007199254740992 (0x1p+53)]", svg)

    def test_p2_the_missed_pair_is_marked_where_the_boxes_meet(self):
        svg = lwc_draw.svg2([((0, 0), (1, 1)), ((1, 0.5), (3, 2))], missed=[(0, 1)], width=400, height=300)
        plot = re.search(r'<svg class="lwc-plot" x="0" y="0" width="([\d.]+)" height="([\d.]+)"', svg)
        width, height = float(plot.group(1)), float(plot.group(2))
        # The frame rule (docs/draw.md): the union [0, 3] x [0, 2] padded by 3/8.
        x0, y0, x1, y1 = -3 / 8, -3 / 8, 3 + 3 / 8, 2 + 3 / 8
        s = min(width / (x1 - x0), height / (y1 - y0))
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        px, py = width / 2 + (1 - cx) * s, height / 2 - (0.75 - cy) * s  # the shared segment's centre
        marker = re.search(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="7" height="7" fill="#d62728"><title>missed pair '
                           r'\(0, 1\)', svg)
        self.assertAlmostEqual(float(marker.group(1)) + 3.5, px, delta=0.011)
        self.assertAlmostEqual(float(marker.group(2)) + 3.5, py, delta=0.011)

    def test_scene_with_everything(self):
        svg = lwc_draw.svg2([((0, 0), (4, 4)), ((3, 3), (5, 5))], cell_size=1.0, pairs=[(0, 1)], reference_cells=True,
                            query=((1, 1), (2, 2)), query_hits=[0], ray=((-1, 0.5), (6, 0.5)), ray_hits=[0],
                            view=((0, 0), 1.0, 3.0), title="everything")
        for what in ("reference cell of pair (0, 1): (3, 3) of level 0", "query hit: box 0",
                     "ray hit 0: box 0 entered at t = 0.14285714285714285", "render bubble: 3 (0x1.8p+1) units",
                     "cell (2, 2) of level 0"):
            self.assertIn(what, svg)

    def test_p3_refusals_are_lwc_errors(self):
        with self.assertRaises(lwc.LwcError) as e:
            lwc_draw.svg2([((0, 0), (1, 1)), ((2, 0), (1, 1))])
        self.assertEqual(e.exception.code, 3)
        self.assertIn("box 1", e.exception.message)
        with self.assertRaises(lwc.LwcError) as e:
            lwc_draw.svg2([((0, 0), (1, 1))], pairs=[(0, 5)])
        self.assertIn("pairs[0] = (0, 5)", e.exception.message)
        with self.assertRaises(lwc.LwcError) as e:
            lwc_draw.svg2([], width=10)
        self.assertIn("style.width 10", e.exception.message)
        with self.assertRaises(OverflowError):
            lwc_draw.svg2([((0, 0), (1, 1))], missed=[(0, 1 << 32)])
        with self.assertRaises(TypeError):
            lwc_draw.svg2([], colour="red")
        self.assertEqual(lwc_draw.style_default()["width"], 720)


if __name__ == "__main__":
    unittest.main()
