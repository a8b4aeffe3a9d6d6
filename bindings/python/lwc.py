# SPDX-License-Identifier: MIT
# File: bindings/python/lwc.py      Installed as share/lwc/python/lwc.py
#
# lwc from Python through the C API (lwc.h, docs/c_api.md) and the standard library's ctypes: no third-
# party package, no compiler. The library is found from $LWC_C_LIBRARY, else relative to this file in the
# installed package (share/lwc/python -> lib/liblwc_c.so), so a moved package keeps working.
#
# Errors are exceptions here, as Python expects: LwcError carries the lwc_status code (abseil's number),
# its name and the library's message. An int outside int64 raises OverflowError before any call (ctypes
# would silently wrap it).
#
#   import lwc
#   lwc.split(-1, 1000)                 # (-1, 999)
#   lwc.cell_of(-0.0, 0.5)              # 0
#   lwc.find_pairs2([((0, 0), (10, 2)), ((9, 0.5), (9.5, 1.5))], cell_size=2.0)   # [(0, 1)]
import ctypes
import glob
import os

__all__ = ["LwcError", "abi_version", "split", "split_all", "cell_of", "cells_of", "cover", "cover_closed",
           "count", "find_pairs2", "PersistentGrid2", "OriginCoordinator2", "Committer", "ABI_VERSION"]

ABI_VERSION = 1  # LWC_ABI_VERSION of the lwc.h this module was written for

OK, INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED = 0, 3, 5, 8
FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNKNOWN, BUFFER_TOO_SMALL = 9, 10, 11, 2, 100
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _find_library():
    explicit = os.environ.get("LWC_C_LIBRARY")
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))  # <prefix>/share/lwc/python
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    for pattern in ("lib/liblwc_c.so", "lib64/liblwc_c.so", "lib/*/liblwc_c.so", "lib/liblwc_c.so.*"):
        found = sorted(glob.glob(os.path.join(prefix, pattern)))
        if found:
            return found[0]
    raise OSError(f"liblwc_c.so not found under {prefix}/lib; set LWC_C_LIBRARY")


_lib = ctypes.CDLL(_find_library())
_i64, _u64, _u32, _f64, _f32, _int, _size = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_double,
                                              ctypes.c_float, ctypes.c_int, ctypes.c_size_t)
_P = ctypes.POINTER


class LwcError(Exception):
    """A failed lwc call: .code (lwc_status, abseil's number), .name ("LWC_OUT_OF_RANGE"), .message."""

    def __init__(self, code, message):
        self.code = code
        self.name = _lib.lwc_status_name(code).decode()
        self.message = message
        super().__init__(f"{self.name}: {message}")


def _struct(name, fields):
    return type(name, (ctypes.Structure,), {"_fields_": fields})


ChunkPoint = _struct("ChunkPoint", [("chunk", _i64), ("local", _i64)])
Int2 = _struct("Int2", [("x", _i64), ("y", _i64)])
ChunkSpan = _struct("ChunkSpan", [("first", _i64), ("last", _i64)])
Box2 = _struct("Box2", [("min", _f64 * 2), ("max", _f64 * 2)])
Pair = _struct("Pair", [("a", _u32), ("b", _u32)])
GridConfig = _struct("GridConfig", [("cell_size", _f64), ("max_cells_per_box", _i64), ("max_memberships", _i64),
                                    ("max_pairs", _i64), ("oversize", _int)])
Stats = _struct("Stats", [(f, _i64) for f in ("boxes", "memberships", "occupied_cells", "pair_visits",
                                              "unique_candidates", "pairs", "levels", "coarse_boxes")])
Handle = _struct("Handle", [("slot", _u32), ("generation", _u32)])
Contact = _struct("Contact", [("a", Handle), ("b", Handle)])
Tracked2 = _struct("Tracked2", [("handle", Handle), ("box", Box2)])
UpdateStats = _struct("UpdateStats", [(f, _i64) for f in ("boxes", "memberships", "pairs", "dirty",
                                                          "memberships_touched", "pair_visits", "began", "ended",
                                                          "swept")])
WorldPosition2 = _struct("WorldPosition2", [("cell", _i64 * 2), ("offset", _f64 * 2)])
ViewConfig = _struct("ViewConfig", [(f, _i64) for f in ("threshold_cells", "barrier_radius",
                                                        "units_per_render_unit", "bubble_units")])
RenderPoint2 = _struct("RenderPoint2", [("at", _f32 * 2), ("version", _u64)])
RebasePlan2 = _struct("RebasePlan2", [("from_", _i64 * 2), ("target", _i64 * 2), ("expected_version", _u64)])
Rebased2 = _struct("Rebased2", [("origin", _i64 * 2), ("version", _u64)])
LateResult2 = _struct("LateResult2", [("anchor", WorldPosition2), ("started_version", _u64), ("placement", _int)])
ChunkRun = _struct("ChunkRun", [("y", _i64), ("x_first", _i64), ("x_last", _i64)])
CommitReport = _struct("CommitReport", [(f, _u64) for f in ("sequence", "generation", "runs_published",
                                                            "chunks_published", "chunks_cleared",
                                                            "chunks_pending")])
BatchEntry = _struct("BatchEntry", [("run", ChunkRun), ("snapshot", _u64)])
BatchInfo = _struct("BatchInfo", [("sequence", _u64), ("generation", _u64)])
PrepareFn = ctypes.CFUNCTYPE(_int, ctypes.c_void_p, _P(ChunkRun), _P(_u64))

_V = ctypes.c_void_p
_SIGNATURES = {
    "lwc_abi_version": (_int, []),
    "lwc_last_error": (ctypes.c_char_p, []),
    "lwc_status_name": (ctypes.c_char_p, [_int]),
    "lwc_split": (_int, [_i64, _i64, _P(ChunkPoint)]),
    "lwc_split_all": (_int, [_P(_i64), _size, _i64, _P(ChunkPoint)]),
    "lwc_cell_of": (_int, [_f64, _f64, _P(_i64)]),
    "lwc_cells_of": (_int, [_P(_f64), _size, _f64, _P(_i64)]),
    "lwc_cover": (_int, [_i64, _i64, _i64, _P(ChunkSpan), _P(_int)]),
    "lwc_cover_closed": (_int, [_i64, _i64, _i64, _P(ChunkSpan), _P(_int)]),
    "lwc_count": (_int, [ChunkSpan, _P(_u64)]),
    "lwc_grid_config_default": (GridConfig, []),
    "lwc_find_pairs2": (_int, [_P(Box2), _size, _P(GridConfig), _P(Pair), _size, _P(_size), _P(Stats)]),
    "lwc_persistent_grid2_create": (_int, [_P(GridConfig), _P(_V)]),
    "lwc_persistent_grid2_destroy": (_int, [_V]),
    "lwc_persistent_grid2_insert": (_int, [_V, _P(Box2), _P(Handle)]),
    "lwc_persistent_grid2_move": (_int, [_V, Handle, _P(Box2), _int]),
    "lwc_persistent_grid2_remove": (_int, [_V, Handle]),
    "lwc_persistent_grid2_update": (_int, [_V, _P(UpdateStats)]),
    "lwc_persistent_grid2_events": (_int, [_V, _int, _P(Contact), _size, _P(_size)]),
    "lwc_persistent_grid2_pairs": (_int, [_V, _P(Contact), _size, _P(_size)]),
    "lwc_view_config_default": (ViewConfig, []),
    "lwc_world_grid_normalize2": (_int, [_i64, _P(_i64), _P(_f64), _P(WorldPosition2)]),
    "lwc_origin_coordinator2_create": (_int, [_i64, _P(ViewConfig), _P(_i64), _u64, _P(_V)]),
    "lwc_origin_coordinator2_destroy": (_int, [_V]),
    "lwc_origin_coordinator2_load": (_int, [_V, _P(_i64)]),
    "lwc_origin_coordinator2_unload": (_int, [_V, _P(_i64)]),
    "lwc_origin_coordinator2_origin": (_int, [_V, _P(_i64), _P(_u64)]),
    "lwc_origin_coordinator2_plan": (_int, [_V, _P(WorldPosition2), _P(RebasePlan2), _P(_int)]),
    "lwc_origin_coordinator2_commit": (_int, [_V, _P(RebasePlan2), _P(Rebased2)]),
    "lwc_origin_coordinator2_to_render": (_int, [_V, _P(WorldPosition2), _P(RenderPoint2)]),
    "lwc_origin_coordinator2_start_late": (_int, [_V, _P(WorldPosition2), _int, _P(LateResult2)]),
    "lwc_origin_coordinator2_place_late": (_int, [_V, _P(LateResult2), _P(RenderPoint2)]),
    "lwc_committer_create": (_int, [_i64, _P(_V)]),
    "lwc_committer_destroy": (_int, [_V]),
    "lwc_committer_mark": (_int, [_V, Int2]),
    "lwc_committer_pending_chunks": (_int, [_V, _P(_size)]),
    "lwc_committer_pending_runs": (_int, [_V, _P(ChunkRun), _size, _P(_size)]),
    "lwc_committer_commit": (_int, [_V, PrepareFn, _V, _i64, _P(CommitReport)]),
    "lwc_committer_published": (_int, [_V, _P(BatchInfo), _P(BatchEntry), _size, _P(_size)]),
}
for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(_lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


def _check(code):
    if code != OK:
        raise LwcError(code, _lib.lwc_last_error().decode(errors="replace"))


def _int64(v):
    v = int(v)
    if not INT64_MIN <= v <= INT64_MAX:
        raise OverflowError(f"{v} is outside int64")
    return v


def _list(call, item_type):
    """Runs call(buffer, capacity, &count), growing the buffer on LWC_BUFFER_TOO_SMALL (F4)."""
    count = _size(0)
    code = call(None, 0, ctypes.byref(count))
    while code == BUFFER_TOO_SMALL:
        buffer = (item_type * count.value)()
        code = call(buffer, count.value, ctypes.byref(count))
        if code == OK:
            return list(buffer[:count.value])
    _check(code)
    return []


def abi_version():
    return _lib.lwc_abi_version()


# lwc.decompose ---------------------------------------------------------------------------------------

def split(x, size):
    """(chunk, local) with x == chunk * size + local, 0 <= local < size (D1-D4)."""
    p = ChunkPoint()
    _check(_lib.lwc_split(_int64(x), _int64(size), ctypes.byref(p)))
    return p.chunk, p.local


def split_all(xs, size):
    xs = [_int64(x) for x in xs]
    data = (_i64 * len(xs))(*xs)
    out = (ChunkPoint * len(xs))()
    _check(_lib.lwc_split_all(data, len(xs), _int64(size), out))
    return [(p.chunk, p.local) for p in out]


def cell_of(v, h):
    """The n with n * h <= v < (n + 1) * h, exactly (D9)."""
    out = _i64()
    _check(_lib.lwc_cell_of(float(v), float(h), ctypes.byref(out)))
    return out.value


def cells_of(vs, h):
    vs = [float(v) for v in vs]
    out = (_i64 * len(vs))()
    _check(_lib.lwc_cells_of((_f64 * len(vs))(*vs), len(vs), float(h), out))
    return list(out)


# lwc.cover -------------------------------------------------------------------------------------------

def _cover(fn, a, b, size):
    span, nonempty = ChunkSpan(), _int()
    _check(fn(_int64(a), _int64(b), _int64(size), ctypes.byref(span), ctypes.byref(nonempty)))
    return (span.first, span.last) if nonempty.value else None


def cover(min_, max_exclusive, size):
    """The chunk span (first, last) of [min, max_exclusive), or None when empty (C1-C5)."""
    return _cover(_lib.lwc_cover, min_, max_exclusive, size)


def cover_closed(min_, max_inclusive, size):
    return _cover(_lib.lwc_cover_closed, min_, max_inclusive, size)


def count(first, last):
    """The exact number of chunks of the span [first, last]; LwcError OUT_OF_RANGE above UINT64_MAX (C6)."""
    out = _u64()
    _check(_lib.lwc_count(ChunkSpan(_int64(first), _int64(last)), ctypes.byref(out)))
    return out.value


# lwc.broadphase --------------------------------------------------------------------------------------

def _config(cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels):
    c = _lib.lwc_grid_config_default()
    if cell_size is not None:
        c.cell_size = float(cell_size)
    if max_cells_per_box is not None:
        c.max_cells_per_box = _int64(max_cells_per_box)
    if max_memberships is not None:
        c.max_memberships = _int64(max_memberships)
    if max_pairs is not None:
        c.max_pairs = _int64(max_pairs)
    c.oversize = 1 if coarser_levels else 0
    return c


def _box(b):
    (x0, y0), (x1, y1) = b
    return Box2((_f64 * 2)(float(x0), float(y0)), (_f64 * 2)(float(x1), float(y1)))


def find_pairs2(boxes, cell_size=None, max_cells_per_box=None, max_memberships=None, max_pairs=None,
                coarser_levels=False):
    """Every overlapping pair (a, b), a < b, once, in canonical order (B1-B7). boxes: ((x0, y0), (x1, y1))."""
    c = _config(cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)
    data = (Box2 * len(boxes))(*[_box(b) for b in boxes])
    pairs = _list(lambda buf, cap, n: _lib.lwc_find_pairs2(data, len(boxes), ctypes.byref(c), buf, cap, n, None),
                  Pair)
    return [(p.a, p.b) for p in pairs]


def _handle(h):
    return Handle(*h)


def _contacts(items):
    return [((c.a.slot, c.a.generation), (c.b.slot, c.b.generation)) for c in items]


class _Owned:
    """An lwc handle, destroyed once: by close(), by `with`, or when collected."""
    _destroy = None

    def __init__(self):
        self._h = _V()

    def close(self):
        if self._h:
            _check(type(self)._destroy(self._h))
            self._h = _V()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None):
            type(self)._destroy(self._h)


class PersistentGrid2(_Owned):
    """The persistent grid (E1-E6): handles are (slot, generation) tuples."""
    _destroy = _lib.lwc_persistent_grid2_destroy

    def __init__(self, cell_size=None, max_cells_per_box=None, max_memberships=None, max_pairs=None,
                 coarser_levels=False):
        super().__init__()
        c = _config(cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)
        _check(_lib.lwc_persistent_grid2_create(ctypes.byref(c), ctypes.byref(self._h)))

    def insert(self, box):
        h = Handle()
        _check(_lib.lwc_persistent_grid2_insert(self._h, ctypes.byref(_box(box)), ctypes.byref(h)))
        return h.slot, h.generation

    def move(self, handle, box, swept=False):
        _check(_lib.lwc_persistent_grid2_move(self._h, _handle(handle), ctypes.byref(_box(box)), 1 if swept else 0))

    def remove(self, handle):
        _check(_lib.lwc_persistent_grid2_remove(self._h, _handle(handle)))

    def update(self):
        """Applies the pending operations; returns {"began": [...], "ended": [...], "swept": [...]}."""
        _check(_lib.lwc_persistent_grid2_update(self._h, None))
        return {name: _contacts(_list(lambda buf, cap, n, w=which: _lib.lwc_persistent_grid2_events(
            self._h, w, buf, cap, n), Contact)) for which, name in enumerate(("began", "ended", "swept"))}

    def pairs(self):
        return _contacts(_list(lambda buf, cap, n: _lib.lwc_persistent_grid2_pairs(self._h, buf, cap, n), Contact))


# lwc.rebase ------------------------------------------------------------------------------------------

def _cell(c):
    return (_i64 * 2)(_int64(c[0]), _int64(c[1]))


class OriginCoordinator2(_Owned):
    """A floating origin (R1-R9). Positions are ((cell_x, cell_y), (offset_x, offset_y)) tuples."""
    _destroy = _lib.lwc_origin_coordinator2_destroy

    def __init__(self, cell_size, origin=(0, 0), version=0, **view):
        super().__init__()
        self.cell_size = _int64(cell_size)
        config = _lib.lwc_view_config_default()
        for key, value in view.items():
            setattr(config, key, _int64(value))
        _check(_lib.lwc_origin_coordinator2_create(self.cell_size, ctypes.byref(config), _cell(origin),
                                                   int(version), ctypes.byref(self._h)))

    def position(self, cell, offset):
        """WorldGrid::normalize: the position nearest cell * size + offset, offsets in [0, size) (R1)."""
        p = WorldPosition2()
        _check(_lib.lwc_world_grid_normalize2(self.cell_size, _cell(cell), (_f64 * 2)(*map(float, offset)),
                                              ctypes.byref(p)))
        return p

    def load(self, cell):
        _check(_lib.lwc_origin_coordinator2_load(self._h, _cell(cell)))

    def unload(self, cell):
        _check(_lib.lwc_origin_coordinator2_unload(self._h, _cell(cell)))

    def origin(self):
        o, v = (_i64 * 2)(), _u64()
        _check(_lib.lwc_origin_coordinator2_origin(self._h, o, ctypes.byref(v)))
        return (o[0], o[1]), v.value

    def plan(self, observer):
        """A RebasePlan2, or None within the threshold; LwcError FAILED_PRECONDITION for a missing cell (R6)."""
        plan, planned = RebasePlan2(), _int()
        _check(_lib.lwc_origin_coordinator2_plan(self._h, ctypes.byref(observer), ctypes.byref(plan),
                                                 ctypes.byref(planned)))
        return plan if planned.value else None

    def commit(self, plan):
        done = Rebased2()
        _check(_lib.lwc_origin_coordinator2_commit(self._h, ctypes.byref(plan), ctypes.byref(done)))
        return (done.origin[0], done.origin[1]), done.version

    def to_render(self, p):
        r = RenderPoint2()
        _check(_lib.lwc_origin_coordinator2_to_render(self._h, ctypes.byref(p), ctypes.byref(r)))
        return (r.at[0], r.at[1]), r.version

    def start_late(self, anchor, baked=False):
        late = LateResult2()
        _check(_lib.lwc_origin_coordinator2_start_late(self._h, ctypes.byref(anchor), 1 if baked else 0,
                                                       ctypes.byref(late)))
        return late

    def place_late(self, late):
        r = RenderPoint2()
        _check(_lib.lwc_origin_coordinator2_place_late(self._h, ctypes.byref(late), ctypes.byref(r)))
        return (r.at[0], r.at[1]), r.version


# lwc.commit ------------------------------------------------------------------------------------------

class Committer(_Owned):
    """All-or-nothing commit of dirty chunks (T1-T8). prepare(run) returns an int snapshot (0 <= s < 2^64);
    an LwcError it raises fails the commit with its code, any other exception with UNKNOWN (T4)."""
    _destroy = _lib.lwc_committer_destroy

    def __init__(self, chunk_size):
        super().__init__()
        _check(_lib.lwc_committer_create(_int64(chunk_size), ctypes.byref(self._h)))

    def mark(self, x, y):
        _check(_lib.lwc_committer_mark(self._h, Int2(_int64(x), _int64(y))))

    def pending_chunks(self):
        n = _size()
        _check(_lib.lwc_committer_pending_chunks(self._h, ctypes.byref(n)))
        return n.value

    def pending_runs(self):
        runs = _list(lambda buf, cap, n: _lib.lwc_committer_pending_runs(self._h, buf, cap, n), ChunkRun)
        return [(r.y, r.x_first, r.x_last) for r in runs]

    def commit(self, prepare, run_budget=INT64_MAX):
        errors = []

        def trampoline(_user, run, snapshot):
            # No Python exception may unwind through C: it is kept and reported after the call.
            try:
                value = int(prepare((run.contents.y, run.contents.x_first, run.contents.x_last)))
                if not 0 <= value < (1 << 64):
                    raise OverflowError(f"snapshot {value} is outside uint64")
                snapshot[0] = value
                return OK
            except LwcError as e:
                errors.append(e)
                return e.code
            except Exception as e:  # noqa: BLE001 (any failure of the callback fails the commit, T4)
                errors.append(e)
                return UNKNOWN

        report = CommitReport()
        code = _lib.lwc_committer_commit(self._h, PrepareFn(trampoline), None, _int64(run_budget),
                                         ctypes.byref(report))
        if code != OK:
            error = LwcError(code, _lib.lwc_last_error().decode(errors="replace"))
            raise error from (errors[0] if errors else None)
        return {f: getattr(report, f) for f, _ in CommitReport._fields_}

    def published(self):
        """(sequence, generation, [((y, x_first, x_last), snapshot), ...]): one whole batch (T7)."""
        while True:
            info, n = BatchInfo(), _size()
            code = _lib.lwc_committer_published(self._h, ctypes.byref(info), None, 0, ctypes.byref(n))
            if code == OK:
                return info.sequence, info.generation, []
            if code != BUFFER_TOO_SMALL:
                _check(code)
            buffer = (BatchEntry * n.value)()
            code = _lib.lwc_committer_published(self._h, ctypes.byref(info), buffer, n.value, ctypes.byref(n))
            if code == OK:
                return info.sequence, info.generation, [((e.run.y, e.run.x_first, e.run.x_last), e.snapshot)
                                                        for e in buffer[:n.value]]
            if code != BUFFER_TOO_SMALL:  # another thread published a larger batch meanwhile: read again
                _check(code)
