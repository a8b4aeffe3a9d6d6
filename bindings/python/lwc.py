# SPDX-License-Identifier: MIT
# File: bindings/python/lwc.py      Installed as share/lwc/python/lwc.py
#
# lwc from Python through the C API (lwc.h, docs/c_api.md) and the standard library's ctypes: no third-
# party package, no compiler. The library is found from $LWC_C_LIBRARY, else relative to this file in the
# installed package (share/lwc/python -> lib/liblwc_c.so), so a moved package keeps working. Spec of what
# this layer adds: docs/python.md.
#
# Exact at the boundary: an integer parameter takes what operator.index takes (an int, a NumPy integer),
# and refuses a float, a str and a bool with lwc.WrongType (a TypeError); a real parameter takes a number
# that is exactly a double, and refuses a str, a bool and an int or Fraction that a double would round.
# Every error is an LwcError, one subclass per status code (lwc.InvalidArgument, lwc.OutOfRange, ...).
#
#   import lwc
#   lwc.split(-1, 1000)                 # (-1, 999)
#   lwc.cell_of(-0.5, 1000)             # -1: a real coordinate's cell; lwc.split(-0.5, 1000) is a TypeError
#   lwc.find_pairs2([((0, 0), (10, 2)), ((9, 0.5), (9.5, 1.5))], cell_size=2.0)   # Pairs([(0, 1)])
#   lwc.find_pairs2(array('d', [0, 0, 10, 2, 9, 0.5, 9.5, 1.5]), cell_size=2.0)    # the same, read in place
import collections
import collections.abc
import ctypes
import glob
import operator
import os
import sys
import threading
from array import array

__all__ = ["LwcError", "Cancelled", "Unknown", "InvalidArgument", "WrongType", "DeadlineExceeded", "NotFound",
           "AlreadyExists", "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
           "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated", "BufferTooSmall",
           "abi_version", "split", "split_all", "cell_of", "cell_of_all", "cover", "cover_closed", "count",
           "find_pairs2", "find_pairs3", "Pairs", "PersistentGrid2", "PersistentGrid3", "Handle", "Filter",
           "Contact", "QueryHit", "RayHit", "Events", "OriginCoordinator2", "OriginCoordinator3", "Committer",
           "ABI_VERSION"]

ABI_VERSION = 3  # LWC_ABI_VERSION of the lwc.h this module was written for

OK, INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED = 0, 3, 5, 8
FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNKNOWN, BUFFER_TOO_SMALL = 9, 10, 11, 2, 100
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


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


_path = _find_library()
_lib = ctypes.CDLL(_path)
_i64, _u64, _u32, _f64, _f32, _int, _size = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_double,
                                              ctypes.c_float, ctypes.c_int, ctypes.c_size_t)
_uptr = {8: ctypes.c_uint64, 4: ctypes.c_uint32}[ctypes.sizeof(ctypes.c_void_p)]  # uintptr_t
UINTPTR_MAX = (1 << (8 * ctypes.sizeof(_uptr))) - 1
_P = ctypes.POINTER
_V = ctypes.c_void_p
_lib.lwc_abi_version.restype, _lib.lwc_abi_version.argtypes = _int, []
if _lib.lwc_abi_version() != ABI_VERSION:
    # The structs below would not match the library's: refuse to load rather than corrupt memory.
    raise ImportError(f"{_path} has the C ABI {_lib.lwc_abi_version()}, this lwc.py needs {ABI_VERSION}")


# Errors --------------------------------------------------------------------------------------------------

class LwcError(Exception):
    """Every error lwc raises: .code (lwc_status: abseil's number), .name ("LWC_OUT_OF_RANGE"), .message.

    One subclass per code: LwcError(code, message) makes the subclass of that code, and a subclass takes the
    message alone (lwc.Unavailable("the baker is busy")). A prepare callback may raise one to fail a commit
    with its code."""
    code = None

    def __new__(cls, *args):
        if cls is LwcError and len(args) == 2:
            cls = _ERRORS.get(args[0], LwcError)
        return super().__new__(cls, *args)

    def __init__(self, *args):
        if len(args) == 2:
            code, message = args
        elif len(args) == 1 and type(self).code is not None:
            code, message = type(self).code, args[0]
        else:
            raise TypeError("LwcError(code, message), or a subclass with the message alone")
        self.code = operator.index(code)
        self.name = _lib.lwc_status_name(self.code).decode()
        self.message = str(message)
        super().__init__(f"{self.name}: {self.message}")

    def __reduce__(self):
        return LwcError, (self.code, self.message)


class Cancelled(LwcError):
    code = 1


class Unknown(LwcError):
    code = 2


class InvalidArgument(LwcError, ValueError):
    code = 3


class WrongType(InvalidArgument, TypeError):
    """An argument of a type lwc does not take: a float, str or bool where an integer belongs, a str or bool
    where a real number belongs, a buffer of the wrong item type. A TypeError, and an InvalidArgument (3)."""


class DeadlineExceeded(LwcError):
    code = 4


class NotFound(LwcError, LookupError):
    code = 5


class AlreadyExists(LwcError):
    code = 6


class PermissionDenied(LwcError):
    code = 7


class ResourceExhausted(LwcError):
    code = 8


class FailedPrecondition(LwcError):
    code = 9


class Aborted(LwcError):
    code = 10


class OutOfRange(LwcError, OverflowError):
    """A value outside what the contract can represent: a result not in int64, an int given outside int64."""
    code = 11


class Unimplemented(LwcError):
    code = 12


class Internal(LwcError):
    code = 13


class Unavailable(LwcError):
    code = 14


class DataLoss(LwcError):
    code = 15


class Unauthenticated(LwcError):
    code = 16


class BufferTooSmall(LwcError):
    code = 100


_ERRORS = {c.code: c for c in (Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound, AlreadyExists,
                               PermissionDenied, ResourceExhausted, FailedPrecondition, Aborted, OutOfRange,
                               Unimplemented, Internal, Unavailable, DataLoss, Unauthenticated, BufferTooSmall)}


def _check(code):
    if code != OK:
        raise LwcError(code, _lib.lwc_last_error().decode(errors="replace"))


# Arguments: exact or refused -------------------------------------------------------------------------------

def _int64(what, v, low=INT64_MIN, high=INT64_MAX, coordinate=False):
    """v as an int in [low, high], or WrongType / OutOfRange naming `what` and v. bool is refused: True is an
    int in Python, but a size or coordinate given as True is a bug, not a 1. A float coordinate's error
    points at cell_of, the exact cell of a real coordinate."""
    if isinstance(v, bool):
        raise WrongType(f"{what} must be an int, not bool ({v!r})")
    try:
        i = operator.index(v)
    except TypeError:
        hint = ""
        if coordinate and isinstance(v, float):
            hint = f"; a real coordinate's exact cell is lwc.cell_of({v!r}, cell_size)"
        raise WrongType(f"{what} must be an int, not {type(v).__name__} ({v!r}){hint}") from None
    if not low <= i <= high:
        bounds = {(INT64_MIN, INT64_MAX): "int64", (0, UINT64_MAX): "uint64"}.get((low, high), f"[{low}, {high}]")
        raise OutOfRange(f"{what} = {i} is outside {bounds}")
    return i


def _uint64(what, v):
    return _int64(what, v, 0, UINT64_MAX)


def _real(what, v):
    """v as the double equal to it, or WrongType (str, bytes, bool, no __float__) / InvalidArgument (a
    number a double would round: 2**53 + 1, Fraction(1, 3)) / OutOfRange (beyond the doubles)."""
    if type(v) is float:
        return v
    if isinstance(v, (bool, str, bytes)) or not (hasattr(type(v), "__float__") or hasattr(type(v), "__index__")):
        raise WrongType(f"{what} must be a real number, not {type(v).__name__} ({v!r})")
    try:
        f = float(v)
    except OverflowError:
        raise OutOfRange(f"{what} = {v!r} is beyond the largest double") from None
    if f != v and f == f:
        raise InvalidArgument(f"{what} = {v!r} is not exactly a double (the nearest is {f!r})")
    return f


def _reals(what, values, where):
    """array('d') of the real numbers `values` (a list), each exact as in _real; where(i) names item i."""
    try:
        out = array("d", values)
    except (TypeError, OverflowError):
        for i, v in enumerate(values):
            _real(f"{what}: {where(i)}", v)
        raise  # unreachable: _real refuses what array('d') refused
    types = set(map(type, values))
    if types and types != {float}:
        for i, v in enumerate(values):
            if type(v) is not float:
                _real(f"{what}: {where(i)}", v)
    return out


# Structs of lwc.h ----------------------------------------------------------------------------------------

def _struct(name, fields):
    return type(name, (ctypes.Structure,), {"_fields_": fields})


ChunkPoint = _struct("ChunkPoint", [("chunk", _i64), ("local", _i64)])
Point2 = _struct("Point2", [("x", _i64), ("y", _i64)])
ChunkSpan = _struct("ChunkSpan", [("first", _i64), ("last", _i64)])
_Box = {d: _struct(f"Box{d}", [("min", _f64 * d), ("max", _f64 * d)]) for d in (2, 3)}
_FloatBox = {d: _struct(f"FloatBox{d}", [("min", _f32 * d), ("max", _f32 * d)]) for d in (2, 3)}
_BoxView = _struct("BoxView", [("min", _V), ("max", _V), ("count", _size), ("stride", _size), ("real", _int)])
_REAL_DOUBLE, _REAL_FLOAT = 0, 1
Pair = _struct("Pair", [("a", _u32), ("b", _u32)])
GridConfig = _struct("GridConfig", [("cell_size", _f64), ("max_cells_per_box", _i64), ("max_memberships", _i64),
                                    ("max_pairs", _i64), ("oversize", _int)])
_Stats = _struct("Stats", [(f, _i64) for f in ("boxes", "memberships", "occupied_cells", "pair_visits",
                                               "unique_candidates", "pairs", "levels", "coarse_boxes")])
_Handle = _struct("Handle", [("slot", _u32), ("generation", _u32)])
_Filter = _struct("Filter", [("group", _u64), ("mask", _u64)])
_Contact = _struct("Contact", [("a", _Handle), ("b", _Handle), ("user_a", _uptr), ("user_b", _uptr)])
_Tracked = {d: _struct(f"Tracked{d}", [("handle", _Handle), ("box", _Box[d])]) for d in (2, 3)}
_Segment = {d: _struct(f"Segment{d}", [("from_", _f64 * d), ("to", _f64 * d)]) for d in (2, 3)}
_QueryHit = _struct("QueryHit", [("handle", _Handle), ("user", _uptr)])
_RayHit = _struct("RayHit", [("handle", _Handle), ("user", _uptr), ("t", _f64)])
_UpdateStats = _struct("UpdateStats", [(f, _i64) for f in ("boxes", "memberships", "pairs", "dirty",
                                                           "memberships_touched", "pair_visits", "began", "ended",
                                                           "swept")])
WorldPosition2 = _struct("WorldPosition2", [("cell", _i64 * 2), ("offset", _f64 * 2)])
WorldPosition3 = _struct("WorldPosition3", [("cell", _i64 * 3), ("offset", _f64 * 3)])
ViewConfig = _struct("ViewConfig", [(f, _i64) for f in ("threshold_cells", "barrier_radius",
                                                        "units_per_render_unit", "bubble_units")])
RenderPoint2 = _struct("RenderPoint2", [("at", _f32 * 2), ("version", _u64)])
RenderPoint3 = _struct("RenderPoint3", [("at", _f32 * 3), ("version", _u64)])
RebasePlan2 = _struct("RebasePlan2", [("from_", _i64 * 2), ("target", _i64 * 2), ("expected_version", _u64)])
RebasePlan3 = _struct("RebasePlan3", [("from_", _i64 * 3), ("target", _i64 * 3), ("expected_version", _u64)])
Rebased2 = _struct("Rebased2", [("origin", _i64 * 2), ("version", _u64)])
Rebased3 = _struct("Rebased3", [("origin", _i64 * 3), ("version", _u64)])
LateResult2 = _struct("LateResult2", [("anchor", WorldPosition2), ("started_version", _u64), ("placement", _int)])
LateResult3 = _struct("LateResult3", [("anchor", WorldPosition3), ("started_version", _u64), ("placement", _int)])
ChunkRun = _struct("ChunkRun", [("y", _i64), ("x_first", _i64), ("x_last", _i64)])
CommitReport = _struct("CommitReport", [(f, _u64) for f in ("sequence", "generation", "runs_published",
                                                            "chunks_published", "chunks_cleared",
                                                            "chunks_pending")])
BatchEntry = _struct("BatchEntry", [("run", ChunkRun), ("snapshot", _u64)])
BatchInfo = _struct("BatchInfo", [("sequence", _u64), ("generation", _u64)])
PrepareFn = ctypes.CFUNCTYPE(_int, _V, _P(ChunkRun), _P(_u64))

_SIGNATURES = {
    "lwc_last_error": (ctypes.c_char_p, []),
    "lwc_status_name": (ctypes.c_char_p, [_int]),
    "lwc_split": (_int, [_i64, _i64, _P(ChunkPoint)]),
    "lwc_split_all": (_int, [_V, _size, _i64, _V]),
    "lwc_cell_of": (_int, [_f64, _f64, _P(_i64)]),
    "lwc_cell_of_all": (_int, [_V, _size, _f64, _V]),
    "lwc_cover": (_int, [_i64, _i64, _i64, _P(ChunkSpan), _P(_int)]),
    "lwc_cover_closed": (_int, [_i64, _i64, _i64, _P(ChunkSpan), _P(_int)]),
    "lwc_count": (_int, [ChunkSpan, _P(_u64)]),
    "lwc_grid_config_default": (GridConfig, []),
    "lwc_filter_default": (_Filter, []),
    "lwc_pair_list_create": (_int, [_P(_V)]),
    "lwc_pair_list_destroy": (_int, [_V]),
    "lwc_pair_list_pairs": (_int, [_V, _P(_V), _P(_size)]),
    "lwc_view_config_default": (ViewConfig, []),
    "lwc_committer_create": (_int, [_i64, _P(_V)]),
    "lwc_committer_destroy": (_int, [_V]),
    "lwc_committer_mark": (_int, [_V, Point2]),
    "lwc_committer_pending_chunks": (_int, [_V, _P(_size)]),
    "lwc_committer_pending_runs": (_int, [_V, _P(ChunkRun), _size, _P(_size)]),
    "lwc_committer_commit": (_int, [_V, PrepareFn, _V, _i64, _P(CommitReport)]),
    "lwc_committer_published": (_int, [_V, _P(BatchInfo), _P(BatchEntry), _size, _P(_size)]),
}
for _d in (2, 3):
    _g = f"lwc_persistent_grid{_d}"
    _o = f"lwc_origin_coordinator{_d}"
    _WP, _RP = (WorldPosition2, RenderPoint2) if _d == 2 else (WorldPosition3, RenderPoint3)
    _Plan, _Done, _Late = (RebasePlan2, Rebased2, LateResult2) if _d == 2 else (RebasePlan3, Rebased3, LateResult3)
    _SIGNATURES.update({
        f"lwc_find_pairs{_d}_view": (_int, [_P(_BoxView), _P(GridConfig), _V, _P(_Stats)]),
        f"{_g}_create": (_int, [_P(GridConfig), _V, _V, _P(_V)]),
        f"{_g}_destroy": (_int, [_V]),
        f"{_g}_insert": (_int, [_V, _P(_Box[_d]), _uptr, _Filter, _P(_Handle)]),
        f"{_g}_insertf": (_int, [_V, _P(_FloatBox[_d]), _uptr, _Filter, _P(_Handle)]),
        f"{_g}_move": (_int, [_V, _Handle, _P(_Box[_d]), _int]),
        f"{_g}_movef": (_int, [_V, _Handle, _P(_FloatBox[_d]), _int]),
        f"{_g}_remove": (_int, [_V, _Handle]),
        f"{_g}_set_filter": (_int, [_V, _Handle, _Filter]),
        f"{_g}_set_user_data": (_int, [_V, _Handle, _uptr]),
        f"{_g}_refilter": (_int, [_V, _Handle]),
        f"{_g}_user_data": (_int, [_V, _Handle, _P(_uptr)]),
        f"{_g}_filter": (_int, [_V, _Handle, _P(_Filter)]),
        f"{_g}_update": (_int, [_V, _P(_UpdateStats)]),
        f"{_g}_events": (_int, [_V, _int, _P(_Contact), _size, _P(_size)]),
        f"{_g}_pairs": (_int, [_V, _P(_Contact), _size, _P(_size)]),
        f"{_g}_query": (_int, [_V, _P(_Box[_d]), _P(_QueryHit), _size, _P(_size)]),
        f"{_g}_queryf": (_int, [_V, _P(_FloatBox[_d]), _P(_QueryHit), _size, _P(_size)]),
        f"{_g}_raycast": (_int, [_V, _P(_Segment[_d]), _P(_RayHit), _size, _P(_size)]),
        f"{_g}_boxes": (_int, [_V, _P(_Tracked[_d]), _size, _P(_size)]),
        f"{_g}_box": (_int, [_V, _Handle, _P(_Box[_d])]),
        f"{_g}_size": (_int, [_V, _P(_i64)]),
        f"{_g}_pending": (_int, [_V, _P(_size)]),
        f"lwc_world_grid_normalize{_d}": (_int, [_i64, _P(_i64), _P(_f64), _P(_WP)]),
        f"{_o}_create": (_int, [_i64, _P(ViewConfig), _P(_i64), _u64, _P(_V)]),
        f"{_o}_destroy": (_int, [_V]),
        f"{_o}_load": (_int, [_V, _P(_i64)]),
        f"{_o}_unload": (_int, [_V, _P(_i64)]),
        f"{_o}_is_loaded": (_int, [_V, _P(_i64), _P(_int)]),
        f"{_o}_origin": (_int, [_V, _P(_i64), _P(_u64)]),
        f"{_o}_plan": (_int, [_V, _P(_WP), _P(_Plan), _P(_int)]),
        f"{_o}_commit": (_int, [_V, _P(_Plan), _P(_Done)]),
        f"{_o}_to_render": (_int, [_V, _P(_WP), _P(_RP)]),
        f"{_o}_start_late": (_int, [_V, _P(_WP), _int, _P(_Late)]),
        f"{_o}_place_late": (_int, [_V, _P(_Late), _P(_RP)]),
    })
for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(_lib, _name)
    _fn.restype, _fn.argtypes = _res, _args


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
    """(chunk, local) with x == chunk * size + local, 0 <= local < size (D1-D4). x and size are ints (a real
    coordinate's cell is cell_of's)."""
    p = ChunkPoint()
    _check(_lib.lwc_split(_int64("lwc.split: x", x, coordinate=True), _int64("lwc.split: size", size), ctypes.byref(p)))
    return p.chunk, p.local


def _int64s(what, xs):
    """array('q') of the ints `xs` (a sequence, or a buffer of int64), each as _int64 takes it."""
    if isinstance(xs, array) and xs.typecode in "ql" and xs.itemsize == 8:
        return xs
    xs = list(xs)
    try:
        out = array("q", xs)
    except (TypeError, OverflowError):
        for i, x in enumerate(xs):
            _int64(f"{what}[{i}]", x)
        raise
    if bool in set(map(type, xs)):
        _int64(f"{what}[{[type(x) for x in xs].index(bool)}]", True)
    return out


def split_all(xs, size):
    """[split(x, size) for x in xs], in one C call (D11)."""
    data = _int64s("lwc.split_all: xs", xs)
    out = (ChunkPoint * len(data))()
    _check(_lib.lwc_split_all(data.buffer_info()[0], len(data), _int64("lwc.split_all: size", size), out))
    return [(p.chunk, p.local) for p in out]


def cell_of(v, h):
    """The n with n * h <= v < (n + 1) * h, exactly (D9); v and h are real numbers, each exactly a double."""
    out = _i64()
    _check(_lib.lwc_cell_of(_real("lwc.cell_of: v", v), _real("lwc.cell_of: h", h), ctypes.byref(out)))
    return out.value


def cell_of_all(vs, h):
    """[cell_of(v, h) for v in vs], in one C call (D11); an array('d') is read in place."""
    data = vs if isinstance(vs, array) and vs.typecode == "d" else _reals("lwc.cell_of_all", list(vs),
                                                                           lambda i: f"vs[{i}]")
    out = array("q", bytes(8 * len(data)))
    _check(_lib.lwc_cell_of_all(data.buffer_info()[0], len(data), _real("lwc.cell_of_all: h", h), out.buffer_info()[0]))
    return out.tolist()


# lwc.cover -------------------------------------------------------------------------------------------

def _cover(name, fn, a, b, size):
    span, nonempty = ChunkSpan(), _int()
    _check(fn(_int64(f"lwc.{name}: min", a), _int64(f"lwc.{name}: max", b), _int64(f"lwc.{name}: size", size),
              ctypes.byref(span), ctypes.byref(nonempty)))
    return (span.first, span.last) if nonempty.value else None


def cover(min_, max_exclusive, size):
    """The chunk span (first, last) of [min, max_exclusive), or None when empty (C1-C5)."""
    return _cover("cover", _lib.lwc_cover, min_, max_exclusive, size)


def cover_closed(min_, max_inclusive, size):
    return _cover("cover_closed", _lib.lwc_cover_closed, min_, max_inclusive, size)


def count(first, last):
    """The exact number of chunks of the span [first, last]; OutOfRange above UINT64_MAX (C6)."""
    out = _u64()
    _check(_lib.lwc_count(ChunkSpan(_int64("lwc.count: first", first), _int64("lwc.count: last", last)),
                          ctypes.byref(out)))
    return out.value


# lwc.broadphase: boxes in ----------------------------------------------------------------------------

def _config(what, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels):
    c = _lib.lwc_grid_config_default()
    if cell_size is not None:
        c.cell_size = _real(f"{what}: cell_size", cell_size)
    if max_cells_per_box is not None:
        c.max_cells_per_box = _int64(f"{what}: max_cells_per_box", max_cells_per_box)
    if max_memberships is not None:
        c.max_memberships = _int64(f"{what}: max_memberships", max_memberships)
    if max_pairs is not None:
        c.max_pairs = _int64(f"{what}: max_pairs", max_pairs)
    c.oversize = 1 if coarser_levels else 0
    return c


_NATIVE = "<" if sys.byteorder == "little" else ">"
_REAL_OF = {"d": (_REAL_DOUBLE, 8), "f": (_REAL_FLOAT, 4)}


def _real_of_format(fmt):
    """(real, itemsize) of a buffer format of native doubles or floats ('d', '<f8', '=f', ...), or None."""
    if len(fmt) == 2 and fmt[0] in "@=" + _NATIVE:
        fmt = fmt[1:]
    if fmt in _REAL_OF:
        return _REAL_OF[fmt]
    if len(fmt) == 3 and fmt[0] in "|=" + _NATIVE and fmt[1:] in ("f8", "f4"):  # NumPy's typestr
        return _REAL_OF["d" if fmt[1:] == "f8" else "f"]
    return None


def _strided(what, d, address, shape, strides, itemsize, real):
    """The BoxView of boxes laid out as (n, 2d), (n, 2, d) or (2dn,) with these byte strides, or None when
    the layout is not one a view can read (the caller copies)."""
    if len(shape) == 1 and shape[0] % (2 * d) == 0 and strides[0] == itemsize:
        return _BoxView(address, address + d * itemsize, shape[0] // (2 * d), 2 * d * itemsize, real)
    if len(shape) == 2 and shape[1] == 2 * d and strides[1] == itemsize and strides[0] >= 0:
        return _BoxView(address, address + d * itemsize, shape[0], strides[0], real)
    if len(shape) == 3 and shape[1:] == (2, d) and strides[2] == itemsize and min(strides[:2]) >= 0:
        return _BoxView(address, address + strides[1], shape[0], strides[0], real)
    if len(shape) in (1, 2, 3):
        return None
    raise InvalidArgument(f"{what}: boxes of shape {tuple(shape)}: expected (n, {2 * d}), (n, 2, {d}) or "
                          f"({2 * d}n,)")


def _shape_error(what, d, shape):
    if not ((len(shape) == 1 and shape[0] % (2 * d) == 0) or (len(shape) == 2 and shape[1] == 2 * d) or
            (len(shape) == 3 and tuple(shape[1:]) == (2, d))):
        raise InvalidArgument(f"{what}: boxes of shape {tuple(shape)}: expected (n, {2 * d}), (n, 2, {d}) or "
                              f"({2 * d}n,) reals")


def _view(what, boxes, d):
    """(BoxView, keepalive): the boxes read in place where their memory allows it (an array('d') or
    array('f'), a NumPy array of float64 or float32 with contiguous corners, a writable contiguous buffer),
    else copied once into an array('d') (a list of ((min...), (max...)) corners, any other buffer)."""
    if isinstance(boxes, array):
        if boxes.typecode not in "df":
            raise WrongType(f"{what}: boxes are array('d') or array('f'), not array('{boxes.typecode}')")
        _shape_error(what, d, (len(boxes),))
        real, size = _REAL_OF[boxes.typecode]
        address = boxes.buffer_info()[0]
        return _BoxView(address, address + d * size, len(boxes) // (2 * d), 2 * d * size, real), boxes
    interface = getattr(boxes, "__array_interface__", None)
    if isinstance(interface, dict):  # NumPy (never imported here): its data pointer and strides
        kind = _real_of_format(interface.get("typestr", ""))
        if kind is None:
            raise WrongType(f"{what}: a NumPy array of {interface.get('typestr')} (boxes are float64 or float32)")
        real, size = kind
        shape = tuple(interface["shape"])
        _shape_error(what, d, shape)
        strides = interface.get("strides")
        if strides is None:  # C-contiguous
            strides, step = [], size
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= extent
        if interface.get("mask") is None and interface.get("offset", 0) == 0:
            view = _strided(what, d, interface["data"][0], shape, tuple(strides), size, real)
            if view is not None:
                return view, boxes
    try:
        memory = memoryview(boxes)
    except TypeError:
        memory = None
    if memory is not None:
        kind = _real_of_format(memory.format)
        if kind is None:
            raise WrongType(f"{what}: a buffer of format {memory.format!r} (boxes are doubles 'd' or floats 'f')")
        real, size = kind
        _shape_error(what, d, memory.shape)
        if memory.nbytes == 0:
            return _BoxView(None, None, 0, 0, real), memory
        if memory.c_contiguous and not memory.readonly:
            anchor = ctypes.c_char.from_buffer(memory)
            view = _strided(what, d, ctypes.addressof(anchor), memory.shape, memory.strides, size, real)
            return view, (anchor, memory)
        copy = array("d" if real == _REAL_DOUBLE else "f")
        copy.frombytes(memory.tobytes())  # C order, whatever the strides
        return _view(what, copy, d)
    flat = []
    for i, box in enumerate(boxes):
        try:
            low, high = box
            if len(low) != d or len(high) != d:
                raise ValueError
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what}: box {i} is {box!r}, not a (min, max) pair of {d}-coordinate "
                                  f"corners") from None
        flat.extend(low)
        flat.extend(high)
    copy = _reals(what, flat, lambda j: f"box {j // (2 * d)} {'max' if j % (2 * d) >= d else 'min'}[{j % d}]")
    return _view(what, copy, d)


# lwc.broadphase: find_pairs --------------------------------------------------------------------------

_PairStats = collections.namedtuple("PairStats", [f for f, _ in _Stats._fields_])


class Pairs(collections.abc.Sequence):
    """The pairs of find_pairs: a sequence of (a, b) tuples, a < b, in canonical order (B1-B4), held as one
    array('I') of a0, b0, a1, b1, ... (.array) without a Python object per pair; .stats: PairStats.
    Equal to any sequence of the same (a, b) pairs. NumPy: numpy.frombuffer(p.array, numpy.uint32)
    .reshape(-1, 2)."""
    __slots__ = ("array", "stats")

    def __init__(self, flat, stats):
        self.array = flat
        self.stats = stats

    def __len__(self):
        return len(self.array) // 2

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"pair {i} of {n}")
        return self.array[2 * i], self.array[2 * i + 1]

    def __iter__(self):
        it = iter(self.array)
        return zip(it, it)

    def __eq__(self, other):
        if isinstance(other, Pairs):
            return self.array == other.array
        if isinstance(other, collections.abc.Sequence) and not isinstance(other, (str, bytes)):
            return len(other) == len(self) and all(tuple(q) == p for p, q in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        shown = list(self[:8])
        return f"Pairs({shown!r})" if len(self) <= 8 else f"Pairs({shown!r} + {len(self) - 8} more)"


class _PairList:
    """An lwc_pair_list, one per thread, reused from call to call: its memory stays warm (F8) and holds the
    largest result the thread has had, until the thread ends."""
    _destroy = _lib.lwc_pair_list_destroy

    def __init__(self):
        self.h = _V()
        _check(_lib.lwc_pair_list_create(ctypes.byref(self.h)))

    def __del__(self):
        if getattr(self, "h", None):
            type(self)._destroy(self.h)


_local = threading.local()
_ZERO_PAIR = array("I", [0, 0])


def _find_pairs(d, boxes, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels):
    what = f"lwc.find_pairs{d}"
    config = _config(what, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)
    view, keep = _view(what, boxes, d)
    pairs = getattr(_local, "pairs", None)
    if pairs is None:
        pairs = _local.pairs = _PairList()
    stats, data, n = _Stats(), _V(), _size()
    # One broad phase, whatever the number of pairs (F8): the list is sized by the library.
    _check(getattr(_lib, f"lwc_find_pairs{d}_view")(ctypes.byref(view), ctypes.byref(config), pairs.h,
                                                     ctypes.byref(stats)))
    del keep
    _check(_lib.lwc_pair_list_pairs(pairs.h, ctypes.byref(data), ctypes.byref(n)))
    flat = _ZERO_PAIR * n.value  # one allocation, no temporary
    if n.value:
        ctypes.memmove(flat.buffer_info()[0], data.value, 8 * n.value)
    return Pairs(flat, _PairStats(*(getattr(stats, f) for f in _PairStats._fields)))


def find_pairs2(boxes, cell_size=None, max_cells_per_box=None, max_memberships=None, max_pairs=None,
                coarser_levels=False):
    """Every overlapping pair (a, b), a < b, once, in canonical order (B1-B7): Pairs. boxes: an array('d') or
    array('f') of x0, y0, x1, y1 per box, a NumPy array of shape (n, 4) or (n, 2, 2), any buffer of doubles or
    floats, or a sequence of ((x0, y0), (x1, y1)). Buffers are read in place (B13)."""
    return _find_pairs(2, boxes, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)


def find_pairs3(boxes, cell_size=None, max_cells_per_box=None, max_memberships=None, max_pairs=None,
                coarser_levels=False):
    """find_pairs2 in 3-D: x0, y0, z0, x1, y1, z1 per box, shape (n, 6) or (n, 2, 3), or ((x0, y0, z0),
    (x1, y1, z1))."""
    return _find_pairs(3, boxes, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)


# lwc.broadphase: the persistent grid -----------------------------------------------------------------

Handle = collections.namedtuple("Handle", "slot generation")
Filter = collections.namedtuple("Filter", "group mask", defaults=(1, UINT64_MAX))
Filter.__doc__ = "Filter bits (E8): two boxes are considered iff a.group & b.mask and b.group & a.mask."
Contact = collections.namedtuple("Contact", "a b user_a user_b")
QueryHit = collections.namedtuple("QueryHit", "handle user")
RayHit = collections.namedtuple("RayHit", "handle user t")
UpdateStats = collections.namedtuple("UpdateStats", [f for f, _ in _UpdateStats._fields_])
Events = collections.namedtuple("Events", "began ended swept stats")


def _handle(what, h):
    try:
        slot, generation = h
    except (TypeError, ValueError):
        raise WrongType(f"{what}: a handle is (slot, generation), not {h!r}") from None
    return _Handle(_int64(f"{what}: handle slot", slot, 0, 0xFFFFFFFF),
                   _int64(f"{what}: handle generation", generation, 0, 0xFFFFFFFF))


def _filter(what, f):
    if f is None:
        return _lib.lwc_filter_default()
    try:
        group, mask = f
    except (TypeError, ValueError):
        raise WrongType(f"{what}: a filter is lwc.Filter(group, mask), not {f!r}") from None
    return _Filter(_uint64(f"{what}: filter group", group), _uint64(f"{what}: filter mask", mask))


def _one_box(what, box, d):
    """(struct, is_float) of one box: a buffer of 2d floats goes as a float box (E10), anything else as
    doubles, each coordinate exact."""
    if isinstance(box, array) or hasattr(box, "__array_interface__") or isinstance(box, memoryview):
        view, keep = _view(what, box, d)
        if view.count != 1:
            raise InvalidArgument(f"{what}: {view.count} boxes given where one belongs")
        cls = _FloatBox[d] if view.real == _REAL_FLOAT else _Box[d]
        one = cls.from_buffer_copy(ctypes.string_at(view.min, ctypes.sizeof(cls) // 2) +
                                   ctypes.string_at(view.max, ctypes.sizeof(cls) // 2))
        del keep
        return one, view.real == _REAL_FLOAT
    try:
        low, high = box
        if len(low) != d or len(high) != d:
            raise ValueError
    except (TypeError, ValueError):
        raise InvalidArgument(f"{what}: box {box!r} is not a (min, max) pair of {d}-coordinate corners") from None
    return _Box[d]((_f64 * d)(*(_real(f"{what}: min[{k}]", v) for k, v in enumerate(low))),
                   (_f64 * d)(*(_real(f"{what}: max[{k}]", v) for k, v in enumerate(high)))), False


def _corner(what, p, d):
    try:
        if len(p) != d:
            raise ValueError
    except (TypeError, ValueError):
        raise InvalidArgument(f"{what}: {p!r} is not a point of {d} coordinates") from None
    return (_f64 * d)(*(_real(f"{what}[{k}]", v) for k, v in enumerate(p)))


def _contact(c):
    return Contact(Handle(c.a.slot, c.a.generation), Handle(c.b.slot, c.b.generation), c.user_a, c.user_b)


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


class _PersistentGrid(_Owned):
    """The persistent grid (E1-E12) of D-dimensional boxes: handles are Handle(slot, generation) tuples,
    user data an int in [0, UINTPTR_MAX] (an index into the caller's own table), filters lwc.Filter.

    Not here: the pair predicate of C++'s create(config, PairFilter) (lwc.h takes one): called for every
    candidate pair inside update, a Python callback would cost a call per pair and could not fail without
    leaving an update half applied; filter bits and the began events serve instead."""
    _d = None

    def __init__(self, cell_size=None, max_cells_per_box=None, max_memberships=None, max_pairs=None,
                 coarser_levels=False):
        super().__init__()
        self._what = f"lwc.PersistentGrid{self._d}"
        self._fn = {name: getattr(_lib, f"lwc_persistent_grid{self._d}_{name}") for name in (
            "insert", "insertf", "move", "movef", "remove", "set_filter", "set_user_data", "refilter", "user_data",
            "filter", "update", "events", "pairs", "query", "queryf", "raycast", "boxes", "box", "size",
            "pending")}
        self._buffers = {}
        c = _config(self._what, cell_size, max_cells_per_box, max_memberships, max_pairs, coarser_levels)
        _check(getattr(_lib, f"lwc_persistent_grid{self._d}_create")(ctypes.byref(c), None, None,
                                                                     ctypes.byref(self._h)))

    def _read(self, key, item_type, call):
        """Items of call(buffer, capacity, &count) into a buffer kept per list, grown on BUFFER_TOO_SMALL."""
        buffer = self._buffers.get(key)
        if buffer is None:
            buffer = self._buffers[key] = (item_type * 16)()
        n = _size()
        code = call(buffer, len(buffer), ctypes.byref(n))
        if code == BUFFER_TOO_SMALL:
            buffer = self._buffers[key] = (item_type * max(n.value, 2 * len(buffer)))()
            code = call(buffer, len(buffer), ctypes.byref(n))
        _check(code)
        return buffer[:n.value]

    def insert(self, box, user=0, filter=None):  # noqa: A002 (the C++ parameter's name)
        """A new box, live from the next update (E3, E7, E8); returns its Handle. A buffer of 2D floats goes
        in as a float box (E10)."""
        what = f"{self._what}.insert"
        b, is_float = _one_box(what, box, self._d)
        h = _Handle()
        _check(self._fn["insertf" if is_float else "insert"](
            self._h, ctypes.byref(b), _int64(f"{what}: user", user, 0, UINTPTR_MAX), _filter(what, filter),
            ctypes.byref(h)))
        return Handle(h.slot, h.generation)

    def move(self, handle, box, swept=False):
        """Moves a live box (E3, E6): a teleport, or with swept=True its step volume grows (swept events)."""
        what = f"{self._what}.move"
        b, is_float = _one_box(what, box, self._d)
        _check(self._fn["movef" if is_float else "move"](self._h, _handle(what, handle), ctypes.byref(b),
                                                         1 if swept else 0))

    def remove(self, handle):
        _check(self._fn["remove"](self._h, _handle(f"{self._what}.remove", handle)))

    def set_filter(self, handle, filter):  # noqa: A002
        what = f"{self._what}.set_filter"
        _check(self._fn["set_filter"](self._h, _handle(what, handle), _filter(what, filter)))

    def set_user_data(self, handle, user):
        what = f"{self._what}.set_user_data"
        _check(self._fn["set_user_data"](self._h, _handle(what, handle),
                                         _int64(f"{what}: user", user, 0, UINTPTR_MAX)))

    def refilter(self, handle):
        _check(self._fn["refilter"](self._h, _handle(f"{self._what}.refilter", handle)))

    def user_data(self, handle):
        out = _uptr()
        _check(self._fn["user_data"](self._h, _handle(f"{self._what}.user_data", handle), ctypes.byref(out)))
        return out.value

    def filter(self, handle):
        out = _Filter()
        _check(self._fn["filter"](self._h, _handle(f"{self._what}.filter", handle), ctypes.byref(out)))
        return Filter(out.group, out.mask)

    def box(self, handle):
        out = _Box[self._d]()
        _check(self._fn["box"](self._h, _handle(f"{self._what}.box", handle), ctypes.byref(out)))
        return tuple(out.min), tuple(out.max)

    def update(self):
        """Applies the pending operations (E1, E2, E4-E8): Events(began, ended, swept, stats), each list of
        Contact(a, b, user_a, user_b) in canonical order. On an error nothing changes (E4)."""
        stats = _UpdateStats()
        _check(self._fn["update"](self._h, ctypes.byref(stats)))
        lists = [[_contact(c) for c in self._read(which, _Contact, lambda buf, cap, n, w=which: self._fn["events"](
            self._h, w, buf, cap, n))] for which in range(3)]
        return Events(*lists, UpdateStats(*(getattr(stats, f) for f in UpdateStats._fields)))

    def pairs(self):
        """The overlapping pairs that pass the filters at the last update, as Contacts (E2, E8)."""
        return [_contact(c) for c in self._read("pairs", _Contact,
                                                lambda buf, cap, n: self._fn["pairs"](self._h, buf, cap, n))]

    def query(self, box):
        """Every box as last given (pending operations included) overlapping `box`: QueryHit(handle, user)
        by ascending slot (E11). Filters are not applied."""
        b, is_float = _one_box(f"{self._what}.query", box, self._d)
        fn = self._fn["queryf" if is_float else "query"]
        hits = self._read("query", _QueryHit, lambda buf, cap, n: fn(self._h, ctypes.byref(b), buf, cap, n))
        return [QueryHit(Handle(h.handle.slot, h.handle.generation), h.user) for h in hits]

    def raycast(self, from_, to):
        """Every box the segment from `from_` to `to` hits: RayHit(handle, user, t) in order of t (E9)."""
        what = f"{self._what}.raycast"
        seg = _Segment[self._d](_corner(f"{what}: from_", from_, self._d), _corner(f"{what}: to", to, self._d))
        hits = self._read("raycast", _RayHit,
                          lambda buf, cap, n: self._fn["raycast"](self._h, ctypes.byref(seg), buf, cap, n))
        return [RayHit(Handle(h.handle.slot, h.handle.generation), h.user, h.t) for h in hits]

    def boxes(self):
        """(Handle, (min, max)) of every live box at the last update, by ascending slot."""
        items = self._read("boxes", _Tracked[self._d],
                           lambda buf, cap, n: self._fn["boxes"](self._h, buf, cap, n))
        return [(Handle(t.handle.slot, t.handle.generation), (tuple(t.box.min), tuple(t.box.max))) for t in items]

    def size(self):
        out = _i64()
        _check(self._fn["size"](self._h, ctypes.byref(out)))
        return out.value

    def pending(self):
        out = _size()
        _check(self._fn["pending"](self._h, ctypes.byref(out)))
        return out.value

    def __len__(self):
        return self.size()


class PersistentGrid2(_PersistentGrid):
    __doc__ = _PersistentGrid.__doc__
    _d = 2
    _destroy = _lib.lwc_persistent_grid2_destroy


class PersistentGrid3(_PersistentGrid):
    __doc__ = _PersistentGrid.__doc__
    _d = 3
    _destroy = _lib.lwc_persistent_grid3_destroy


# lwc.rebase ------------------------------------------------------------------------------------------

class _OriginCoordinator(_Owned):
    """A floating origin (R1-R9). Positions are WorldPosition structs made by position(cell, offset)."""
    _d = None

    def __init__(self, cell_size, origin=None, version=0, **view):
        super().__init__()
        d = self._d
        self._what = f"lwc.OriginCoordinator{d}"
        self._fn = {name: getattr(_lib, f"lwc_origin_coordinator{d}_{name}") for name in (
            "load", "unload", "is_loaded", "origin", "plan", "commit", "to_render", "start_late", "place_late")}
        self._normalize = getattr(_lib, f"lwc_world_grid_normalize{d}")
        self._types = (WorldPosition2, RenderPoint2, RebasePlan2, Rebased2, LateResult2) if d == 2 else (
            WorldPosition3, RenderPoint3, RebasePlan3, Rebased3, LateResult3)
        self.cell_size = _int64(f"{self._what}: cell_size", cell_size)
        config = _lib.lwc_view_config_default()
        for key, value in view.items():
            if key not in dict(ViewConfig._fields_):
                raise TypeError(f"{self._what}: no view setting {key!r} (ViewConfig: "
                                f"{', '.join(f for f, _ in ViewConfig._fields_)})")
            setattr(config, key, _int64(f"{self._what}: {key}", value))
        _check(getattr(_lib, f"lwc_origin_coordinator{d}_create")(
            self.cell_size, ctypes.byref(config), self._cell("origin", (0,) * d if origin is None else origin),
            _uint64(f"{self._what}: version", version), ctypes.byref(self._h)))

    def _cell(self, name, c):
        what = f"{self._what}: {name}"
        try:
            if len(c) != self._d:
                raise ValueError
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what}: {c!r} is not a cell of {self._d} ints") from None
        return (_i64 * self._d)(*(_int64(f"{what}[{k}]", v) for k, v in enumerate(c)))

    def position(self, cell, offset):
        """WorldGrid::normalize: the position nearest cell * size + offset, offsets in [0, size) (R1)."""
        p = self._types[0]()
        _check(self._normalize(self.cell_size, self._cell("cell", cell),
                               _corner(f"{self._what}: offset", offset, self._d), ctypes.byref(p)))
        return p

    def load(self, cell):
        _check(self._fn["load"](self._h, self._cell("cell", cell)))

    def unload(self, cell):
        _check(self._fn["unload"](self._h, self._cell("cell", cell)))

    def is_loaded(self, cell):
        out = _int()
        _check(self._fn["is_loaded"](self._h, self._cell("cell", cell), ctypes.byref(out)))
        return bool(out.value)

    def origin(self):
        o, v = (_i64 * self._d)(), _u64()
        _check(self._fn["origin"](self._h, o, ctypes.byref(v)))
        return tuple(o), v.value

    def plan(self, observer):
        """A RebasePlan, or None within the threshold; FailedPrecondition for a missing cell (R6)."""
        plan, planned = self._types[2](), _int()
        _check(self._fn["plan"](self._h, ctypes.byref(observer), ctypes.byref(plan), ctypes.byref(planned)))
        return plan if planned.value else None

    def commit(self, plan):
        done = self._types[3]()
        _check(self._fn["commit"](self._h, ctypes.byref(plan), ctypes.byref(done)))
        return tuple(done.origin), done.version

    def to_render(self, p):
        r = self._types[1]()
        _check(self._fn["to_render"](self._h, ctypes.byref(p), ctypes.byref(r)))
        return tuple(r.at), r.version

    def start_late(self, anchor, baked=False):
        late = self._types[4]()
        _check(self._fn["start_late"](self._h, ctypes.byref(anchor), 1 if baked else 0, ctypes.byref(late)))
        return late

    def place_late(self, late):
        r = self._types[1]()
        _check(self._fn["place_late"](self._h, ctypes.byref(late), ctypes.byref(r)))
        return tuple(r.at), r.version


class OriginCoordinator2(_OriginCoordinator):
    __doc__ = _OriginCoordinator.__doc__
    _d = 2
    _destroy = _lib.lwc_origin_coordinator2_destroy


class OriginCoordinator3(_OriginCoordinator):
    __doc__ = _OriginCoordinator.__doc__
    _d = 3
    _destroy = _lib.lwc_origin_coordinator3_destroy


# lwc.commit ------------------------------------------------------------------------------------------

class Committer(_Owned):
    """All-or-nothing commit of dirty chunks (T1-T8). prepare(run) returns an int snapshot (0 <= s < 2^64);
    an LwcError it raises fails the commit with its code, any other exception with UNKNOWN (T4)."""
    _destroy = _lib.lwc_committer_destroy

    def __init__(self, chunk_size):
        super().__init__()
        _check(_lib.lwc_committer_create(_int64("lwc.Committer: chunk_size", chunk_size), ctypes.byref(self._h)))

    def mark(self, x, y):
        _check(_lib.lwc_committer_mark(self._h, Point2(_int64("lwc.Committer.mark: x", x),
                                                     _int64("lwc.Committer.mark: y", y))))

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
                value = _uint64("lwc.Committer.commit: the snapshot prepare returned",
                                prepare((run.contents.y, run.contents.x_first, run.contents.x_last)))
                snapshot[0] = value
                return OK
            except LwcError as e:
                errors.append(e)
                return e.code
            except Exception as e:  # noqa: BLE001 (any failure of the callback fails the commit, T4)
                errors.append(e)
                return UNKNOWN

        report = CommitReport()
        code = _lib.lwc_committer_commit(self._h, PrepareFn(trampoline), None,
                                         _int64("lwc.Committer.commit: run_budget", run_budget),
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
