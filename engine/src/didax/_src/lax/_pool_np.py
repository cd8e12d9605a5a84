"""Max/min pooling on NumPy for the eager tape (eager reverse mode).

Eagerly, `reduce_window_max`/`_min` and `select_and_scatter_add` (max pooling's pullback)
run as one-equation XLA programs (lax.dispatch), equal to jit. While a tape records or pulls
back (interpreters/tape.ACTIVE, where the step already evaluates on NumPy) the dispatch and
the host/device copies around it cost more than the pooling itself, so these run here:

- the window maximum (minimum) as the running np.maximum (np.minimum) of each window
  element's strided slice — exact, as XLA's (NaN propagates; signed zeros may differ);
- select_and_scatter_add over disjoint windows exactly as the fused code of
  windowed_reductions._sas_disjoint (XLA's order: row-major within a window, the current
  choice kept while select(current, candidate) holds; the chosen element receives
  0 + source, every other element 0): the same bits as jit;
- where the windows tile the (padded) input, the pooling works on window planes (one
  transposing copy, NHWC features moved as one item) and remembers, by its result, which
  element each window chose: the tape's pullback (chosen_pullback) then only places the
  cotangent, with the same bits as select_and_scatter_add.

Float32/float64 only, no base or window dilation. May import dtypes, core and array.
"""

from __future__ import annotations

import functools
import itertools
import math
import weakref

import numpy as np

from didax._src import dtypes
from didax._src.array import Array

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_MAX_WINDOW = 64  # window elements: each is one pass over the output


def _dtype(x):
    return x.aval.dtype if type(x) is Array else np.result_type(x)


def fits_reduce(x, *, window_dimensions, base_dilation, window_dilation, **_) -> bool:
    """Whether reduce_window_max/min(x, ...) is one this module computes."""
    return (_dtype(x) in _DTYPES and all(d == 1 for d in base_dilation)
            and all(d == 1 for d in window_dilation)
            and 0 < math.prod(window_dimensions) <= _MAX_WINDOW
            and all(n > 0 for n in np.shape(x)))


def fits_scatter(source, operand, *, select_prim, window_dimensions, window_strides,
                 **_) -> bool:
    """Whether select_and_scatter_add(source, operand, ...) is one this module computes."""
    return (_dtype(operand) in _DTYPES and _dtype(source) == _dtype(operand)
            and select_prim.name in _SELECT
            and all(s >= w for w, s in zip(window_dimensions, window_strides))
            and 0 < math.prod(window_dimensions) <= _MAX_WINDOW
            and all(n > 0 for n in np.shape(source)))


_SELECT = {"ge": (np.greater_equal, -np.inf), "le": (np.less_equal, np.inf)}


def _padded(x: np.ndarray, padding, fill) -> np.ndarray:
    if any(lo or hi for lo, hi in padding):
        return np.pad(x, tuple(padding), constant_values=fill)
    return x


def _window_elements(window_dimensions, window_strides, out_shape):
    """For each element of a window (row-major), its slice of every window at once."""
    for off in itertools.product(*(range(w) for w in window_dimensions)):
        yield tuple(slice(o, o + (n - 1) * s + 1, s)
                    for o, n, s in zip(off, out_shape, window_strides))


def _out_shape(shape, window_dimensions, window_strides):
    return tuple((d - w) // s + 1 if d >= w else 0
                 for d, w, s in zip(shape, window_dimensions, window_strides))


def _reduce(x, window_dimensions, window_strides, padding, kind):
    ufunc, fill = (np.maximum, -np.inf) if kind == "ge" else (np.minimum, np.inf)
    x = _padded(x, padding, fill)
    shape, tiles = _reduce_plan(x.shape, tuple(window_dimensions), tuple(window_strides))
    if not all(shape):
        return np.full(shape, fill, x.dtype)
    if tiles is not None:
        return _reduce_planes(x, tiles, shape, kind, padding)
    elements = _window_elements(window_dimensions, window_strides, shape)
    out = np.array(x[next(elements)])
    for sl in elements:
        ufunc(out, x[sl], out=out)
    return out


@functools.lru_cache(maxsize=256)
def _reduce_plan(shape, window_dimensions, window_strides):
    """The output shape, and the tiling of x when windows of more than one element tile it
    (else None)."""
    out = _out_shape(shape, window_dimensions, window_strides)
    tiles = None
    if all(out) and math.prod(window_dimensions) > 1:
        tiles = _tiling_of(shape, out, window_dimensions, window_strides)
    return out, tiles


def _reduce_planes(x, tiles, shape, kind, padding):
    """Windows that tile x: its window planes (one transposing copy), their extreme, and
    which element of each window select_and_scatter_add will choose, kept for the
    pullback (chosen_pullback) while the planes are at hand."""
    planes = _transposed(x.reshape(tiles[0]), tiles[1]).reshape(-1, *shape)
    out = planes.max(axis=0) if kind == "ge" else planes.min(axis=0)
    chosen = _first_of(planes, out)
    if chosen is not None:
        _remember(out, (chosen, _back_plan(tiles, x.shape, tuple(map(tuple, padding)))))
    return out


@functools.lru_cache(maxsize=256)
def _back_plan(tiles, padded_shape, padding):
    """How chosen_pullback returns window planes to x's layout: the planes' split shape,
    the inverse order, the padded shape and the crop to x (None: no padding)."""
    split, perm = tiles
    crop = None
    if any(lo or hi for lo, hi in padding):
        crop = tuple(slice(lo, n - hi) for (lo, hi), n in zip(padding, padded_shape))
    return ([split[i] for i in perm], tuple(int(d) for d in np.argsort(perm)), padded_shape,
            crop)


def reduce_window_max(x, *, window_dimensions, window_strides, padding, **_):
    return _reduce(x, window_dimensions, window_strides, padding, "ge")


def reduce_window_min(x, *, window_dimensions, window_strides, padding, **_):
    return _reduce(x, window_dimensions, window_strides, padding, "le")


# Which element each window of a recent pooling on the host chose: id(result) -> (weak
# reference to the result, (chosen planes, tiles, padded shape, padding)). An entry goes
# when its result is freed, or the oldest ones beyond _KEPT_BYTES in all.
_CHOSEN: dict = {}
_KEPT_BYTES = 64 << 20


def _remember(out: np.ndarray, entry) -> None:
    key = id(out)
    _CHOSEN[key] = (weakref.ref(out, functools.partial(_forget, key)), entry)
    total = sum(e[1][0].nbytes for e in _CHOSEN.values())
    while total > _KEPT_BYTES:
        total -= _CHOSEN.pop(next(iter(_CHOSEN)))[1][0].nbytes


def _forget(key: int, ref) -> None:
    if _CHOSEN.get(key, (None,))[0] is ref:
        del _CHOSEN[key]


def chosen_pullback(ct: np.ndarray, ans: np.ndarray):
    """select_and_scatter_add(ct, x) for a pooling of x whose result ans this module
    computed (and remembered the choices of): ct placed at each window's chosen element.
    The same bits as select_and_scatter_add. None when ans is not remembered."""
    entry = _CHOSEN.get(id(ans))
    if entry is None or entry[0]() is not ans or ct.shape != ans.shape \
            or ct.dtype != ans.dtype:
        return None
    chosen, (split, back, padded_shape, crop) = entry[1]
    src = ct + np.zeros((), ct.dtype)  # 0 + ct: -0.0 becomes 0.0, as XLA adds
    u = dtypes.UINT_OF_SIZE[src.dtype.itemsize]  # the source's bits times 0 or 1: exactly 0.0 or source
    parts = np.multiply(src.view(u), chosen.view(np.uint8), dtype=u).view(src.dtype)
    out = _transposed(parts.reshape(split), back).reshape(padded_shape)
    return out if crop is None else out[crop]


def select_and_scatter_add(source, operand, *, select_prim, window_dimensions,
                           window_strides, padding):
    """Each window's source value added at the element its selection chooses (windows
    disjoint), as windowed_reductions._sas_disjoint computes it."""
    select, fill = _SELECT[select_prim.name]
    x = _padded(operand, padding, fill)
    tiles = _tiling(x, source.shape, window_dimensions, window_strides)
    if tiles is not None:  # windows tile x: one transposing copy each way
        planes = _transposed(x.reshape(tiles[0]), tiles[1]).reshape(-1, *source.shape)
    else:
        slices = list(_window_elements(window_dimensions, window_strides, source.shape))
        planes = np.empty((len(slices), *source.shape), x.dtype)
        for plane, sl in zip(planes, slices):
            plane[...] = x[sl]
    src = source + np.zeros((), source.dtype)  # 0 + source: -0.0 becomes 0.0, as XLA adds
    chosen = _first_extreme(planes, select_prim.name)
    if chosen is None:  # NaN in a window: XLA's comparisons, one by one
        chosen = _chosen_stepwise(planes, select)
    u = dtypes.UINT_OF_SIZE[src.dtype.itemsize]  # the source's bits times 0 or 1: exactly 0.0 or source
    parts = np.multiply(src.view(u), chosen.view(np.uint8), dtype=u).view(src.dtype)
    if tiles is not None:
        split = [tiles[0][i] for i in tiles[1]]
        out = _transposed(parts.reshape(split), np.argsort(tiles[1])).reshape(x.shape)
    else:
        out = np.zeros(x.shape, source.dtype)
        for part, sl in zip(parts, slices):
            out[sl] = part
    if x is not operand:
        out = out[tuple(slice(lo, lo + d) for (lo, _), d in zip(padding, operand.shape))]
    return out




def _tiling(x: np.ndarray, out_shape, window_dimensions, window_strides):
    """When the windows tile x exactly (stride = window, no remainder): x's shape split
    as (windows, window) per dimension, and the order putting every window dimension
    first. Else None."""
    return _tiling_of(x.shape, tuple(out_shape), tuple(window_dimensions),
                      tuple(window_strides))


@functools.lru_cache(maxsize=256)
def _tiling_of(shape, out_shape, window_dimensions, window_strides):
    if not all(d == n * w and s == w for d, n, w, s in zip(
            shape, out_shape, window_dimensions, window_strides)):
        return None
    split = tuple(v for n, w in zip(out_shape, window_dimensions) for v in (n, w))
    rank = len(out_shape)
    return split, tuple(2 * i + 1 for i in range(rank)) + tuple(2 * i for i in range(rank))


def _transposed(a: np.ndarray, perm) -> np.ndarray:
    """a.transpose(perm) as a new C-ordered array. The trailing axes perm leaves in place
    (once axes of size 1 are set aside) are copied as one item each: NumPy copies short
    inner runs (a few features of NHWC) element by element, several times slower."""
    if type(perm) is not tuple:
        perm = tuple(int(d) for d in perm)
    plan = _transpose_plan(a.shape, perm, a.itemsize)
    if plan is None or not a.flags.c_contiguous:
        return np.ascontiguousarray(a.transpose(perm))
    outer, item, inner_perm, out_shape = plan
    moved = np.ascontiguousarray(a.reshape(outer).view(item)[..., 0].transpose(inner_perm))
    return moved.view(a.dtype).reshape(out_shape)


@functools.lru_cache(maxsize=256)
def _transpose_plan(shape, perm, itemsize):
    """(shape with the kept trailing axes as one, their item type, the transposition of
    the others, the result's shape), or None when no trailing axis stays in place."""
    keep = [d for d in perm if shape[d] != 1]
    order = sorted(keep)
    k = 0
    while k < len(keep) and keep[-1 - k] == order[-1 - k]:
        k += 1
    if k == 0 or k == len(keep):
        return None
    rank = {d: i for i, d in enumerate(order[:-k])}
    item = np.dtype((np.void, itemsize * math.prod(shape[d] for d in keep[-k:])))
    return ((*(shape[d] for d in order[:-k]), -1), item, tuple(rank[d] for d in keep[:-k]),
            tuple(shape[d] for d in perm))


def _first_extreme(planes: np.ndarray, kind: str):
    """Which element each window selects (a boolean per plane) when no window holds a NaN:
    select(current, candidate) keeps the current choice on ties, so the first maximum
    (for "ge"; minimum for "le") in window order wins. None when a window holds a NaN
    (none of its elements equals its extreme). Eight windows at a time as integers."""
    return _first_of(planes, planes.max(axis=0) if kind == "ge" else planes.min(axis=0))


def _first_of(planes: np.ndarray, extreme: np.ndarray):
    """The first element of each window equal to its extreme (a boolean per plane); None
    when a window has none (a NaN)."""
    chosen = planes == extreme
    n = extreme.size
    packed = chosen.reshape(len(chosen), n).view(np.uint64 if n % 8 == 0 else np.uint8)
    free = np.invert(packed[0])  # bytes: 0xFF where no element is chosen yet, else 0xFE
    for c in packed[1:]:
        c &= free  # (a chosen byte, 1, survives 0xFF and is cleared by 0xFE)
        free ^= c
    return chosen if not np.bitwise_and(free, _LOW_BITS[free.dtype], out=free).any() else None


# 0x01 in every byte: a window none of whose elements equals its extreme keeps it in `free`
_LOW_BITS = {np.dtype(np.uint64): np.uint64(0x0101010101010101), np.dtype(np.uint8): np.uint8(1)}


def _chosen_stepwise(planes: np.ndarray, select):
    """Which element each window selects, by XLA's sequence of select(current, candidate)
    comparisons (exact with NaN: a comparison with NaN is false, so the candidate wins)."""
    current = planes[0]
    which = np.zeros(current.shape, np.int32)
    for i, candidate in enumerate(planes[1:], 1):
        keep = select(current, candidate)
        current = np.where(keep, current, candidate)
        which = np.where(keep, which, i)
    return which == np.arange(len(planes)).reshape((-1,) + (1,) * which.ndim)
