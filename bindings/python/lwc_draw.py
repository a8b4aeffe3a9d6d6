# SPDX-License-Identifier: MIT
# File: bindings/python/lwc_draw.py      Installed as share/lwc/python/lwc_draw.py, beside lwc.py
#
# Pictures of a broad-phase scene from Python: lwc_draw_svg2 of the C API (capi/include/lwc.h, "lwc.draw";
# docs/draw.md) through ctypes. Errors are lwc.LwcError, like every other lwc call from Python.
#
#   import lwc_draw
#   svg = lwc_draw.svg2([((0, 0), (1, 1)), ((1, 1), (2, 2))], missed=[(0, 1)], cell_size=1.0,
#                       title="a corner touch")
#   open("scene.svg", "w").write(svg)
import ctypes

import lwc

__all__ = ["svg2", "style_default"]

_lib = lwc._lib  # the library lwc.py found ($LWC_C_LIBRARY, or the installed package's lib/)
_P, _f64, _u32, _size, _int = ctypes.POINTER, ctypes.c_double, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_int


def _struct(name, fields):
    return type(name, (ctypes.Structure,), {"_fields_": fields})


Box2 = _struct("Box2", [("min", _f64 * 2), ("max", _f64 * 2)])
Pair = _struct("Pair", [("a", _u32), ("b", _u32)])
GridConfig = _struct("GridConfig", [("cell_size", _f64), ("max_cells_per_box", ctypes.c_int64),
                                    ("max_memberships", ctypes.c_int64), ("max_pairs", ctypes.c_int64),
                                    ("oversize", _int)])
Ray2 = _struct("Ray2", [("from_", _f64 * 2), ("to", _f64 * 2)])
View2 = _struct("View2", [("origin", _f64 * 2), ("cell_size", _f64), ("bubble", _f64)])
Scene2 = _struct("Scene2", [("boxes", _P(Box2)), ("box_count", _size), ("grid", _P(GridConfig)), ("cells", _int),
                            ("pairs", _P(Pair)), ("pair_count", _size), ("reference_cells", _int),
                            ("missed", _P(Pair)), ("missed_count", _size), ("extra", _P(Pair)),
                            ("extra_count", _size), ("query", _P(Box2)), ("query_hits", _P(_u32)),
                            ("query_hit_count", _size), ("ray", _P(Ray2)), ("ray_hits", _P(_u32)),
                            ("ray_hit_count", _size), ("view", _P(View2)), ("title", ctypes.c_char_p)])
Style = _struct("Style", [("width", _int), ("height", _int), ("dense_boxes", _size), ("max_items", _size),
                          ("bin_pixels", _int)])
_lib.lwc_draw_style_default.restype, _lib.lwc_draw_style_default.argtypes = Style, []
_lib.lwc_draw_svg2.restype = _int
_lib.lwc_draw_svg2.argtypes = [_P(Scene2), _P(Style), ctypes.c_char_p, _size, _P(_size)]
_BUFFER_TOO_SMALL = 100


def style_default():
    """lwc::draw::Style{} as a dict: width, height, dense_boxes, max_items, bin_pixels."""
    s = _lib.lwc_draw_style_default()
    return {f: getattr(s, f) for f, _ in Style._fields_}


def _boxes(items):
    out = (Box2 * len(items))()
    for i, ((x0, y0), (x1, y1)) in enumerate(items):
        out[i] = Box2((_f64 * 2)(x0, y0), (_f64 * 2)(x1, y1))
    return out


def _pairs(items):
    out = (Pair * len(items))()
    for i, (a, b) in enumerate(items):
        out[i] = Pair(a, b)
    return out


def _ids(items):
    return (_u32 * len(items))(*items)


def svg2(boxes, *, cell_size=None, cells=True, pairs=(), reference_cells=False, missed=(), extra=(), query=None,
         query_hits=(), ray=None, ray_hits=(), view=None, title="", **style):
    """The SVG (str) of a 2-D scene. boxes: [((min_x, min_y), (max_x, max_y)), ...]; cell_size: the grid's h
    (cell lines, and each box's cells if `cells`), None for no grid; pairs, missed, extra: [(i, j), ...];
    query: a box; ray: ((x0, y0), (x1, y1)); hits: box indices; view: ((x, y), cell_size, bubble); style:
    width, height, dense_boxes, max_items, bin_pixels. Raises lwc.LwcError (InvalidArgument) naming what
    cannot be drawn; an int outside uint32 for an index raises OverflowError first (ctypes would wrap it)."""
    for i in [v for p in (*pairs, *missed, *extra) for v in p] + list(query_hits) + list(ray_hits):
        if not 0 <= i < 1 << 32:
            raise OverflowError(f"index {i} is outside uint32")
    keep = []  # the arrays must outlive the call

    def array(items, make):
        a = make(list(items))
        keep.append(a)
        return a, len(items)

    scene = Scene2()
    scene.boxes, scene.box_count = array(boxes, _boxes)
    if cell_size is not None:
        config = _lib.lwc_grid_config_default()  # lwc.py set its restype (lwc.GridConfig)
        grid = GridConfig(cell_size, config.max_cells_per_box, config.max_memberships, config.max_pairs,
                          config.oversize)
        keep.append(grid)
        scene.grid = ctypes.pointer(grid)
    scene.cells = int(bool(cells))
    scene.pairs, scene.pair_count = array(pairs, _pairs)
    scene.reference_cells = int(bool(reference_cells))
    scene.missed, scene.missed_count = array(missed, _pairs)
    scene.extra, scene.extra_count = array(extra, _pairs)
    if query is not None:
        q = _boxes([query])
        keep.append(q)
        scene.query = q
    scene.query_hits, scene.query_hit_count = array(query_hits, _ids)
    if ray is not None:
        r = Ray2((_f64 * 2)(*ray[0]), (_f64 * 2)(*ray[1]))
        keep.append(r)
        scene.ray = ctypes.pointer(r)
    scene.ray_hits, scene.ray_hit_count = array(ray_hits, _ids)
    if view is not None:
        v = View2((_f64 * 2)(*view[0]), view[1], view[2])
        keep.append(v)
        scene.view = ctypes.pointer(v)
    scene.title = title.encode()
    s = _lib.lwc_draw_style_default()
    for key, value in style.items():
        if key not in dict(Style._fields_):
            raise TypeError(f"svg2: unknown style {key!r} (width, height, dense_boxes, max_items, bin_pixels)")
        setattr(s, key, value)
    size = _size(0)
    code = _lib.lwc_draw_svg2(ctypes.byref(scene), ctypes.byref(s), None, 0, ctypes.byref(size))
    if code != _BUFFER_TOO_SMALL:
        raise lwc.LwcError(code, _lib.lwc_last_error().decode())
    buffer = ctypes.create_string_buffer(size.value + 1)
    code = _lib.lwc_draw_svg2(ctypes.byref(scene), ctypes.byref(s), buffer, len(buffer), ctypes.byref(size))
    if code != 0:
        raise lwc.LwcError(code, _lib.lwc_last_error().decode())
    return buffer.raw[:size.value].decode()
