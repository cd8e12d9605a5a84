"""A NumPy convolution for the eager tape (eager reverse mode).

XLA's CPU convolution, dispatched eagerly as a one-equation program, is slow for the small
convolutions of a training step and their transposes (a 32x14x14x16 input gradient through
a 3x3x8x16 kernel takes ~3 ms there; a one-feature input 1.5-2 ms), while gathering the
windows as rows of a matrix (im2col) and multiplying by the kernel as one BLAS product takes
a fraction of that. Plain eager code keeps XLA's convolution (eager equals jit bit for bit);
while a tape records or pulls back (eager reverse mode, which already evaluates on NumPy:
interpreters/tape.ACTIVE) convolutions run here, within float32 rounding of XLA's sums.

Covered: any number of spatial dimensions, any layout, strides, padding (negative too), lhs
and rhs dilation, feature groups; float32/float64 with no other result type. Batch groups,
other types and windows-matrices over _MAX_COLS elements go to XLA. The tape's pullback
(`pullback`, tape.each_pullbacks) computes both cotangents here in the natural layout: the
kernel's as the forward's windows matrix transposed times the output cotangent, the input's
as the convolution its transpose rule binds. Windows matrices are gathered and multiplied a
cache-sized block of the batch at a time; padded copies reuse a few zero-bordered buffers
per thread, and shape-only plans are computed once per signature. May import core and array.
"""

from __future__ import annotations

import functools
import math
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from didax._src.array import Array
from didax._src.core import ShapedArray

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_MAX_COLS = 1 << 24  # elements of the windows matrix (64 MB of float32): beyond, XLA


def _dtype(x):
    return x.aval.dtype if type(x) is Array else np.result_type(x)


def fits(lhs, rhs, **params) -> bool:
    """Whether conv_general_dilated(lhs, rhs, **params) is one this module computes."""
    try:
        key = tuple(params.items())
        return _fits(np.shape(lhs), np.shape(rhs), _dtype(lhs), _dtype(rhs), key)
    except TypeError:  # (an unhashable parameter)
        return _fits.__wrapped__(np.shape(lhs), np.shape(rhs), _dtype(lhs), _dtype(rhs),
                                 tuple(params.items()))


@functools.lru_cache(maxsize=512)
def _fits(lhs_shape, rhs_shape, dtype, rhs_dtype, key) -> bool:
    params = dict(key)
    dn = params["dimension_numbers"]
    if dn is None or len(dn.lhs_spec) < 3:
        return False
    if not (dtype in _DTYPES and rhs_dtype == dtype
            and params["batch_group_count"] == 1
            and params["preferred_element_type"] in (None, dtype)
            and params.get("out_sharding") is None):
        return False
    return _cols_size(lhs_shape, rhs_shape, params) <= _MAX_COLS


def _cols_size(lhs_shape, rhs_shape, params) -> int:
    """Elements of the windows matrix: output positions times the window's size."""
    lhs_spec, rhs_spec, _ = params["dimension_numbers"]
    size = lhs_shape[lhs_spec[0]] * lhs_shape[lhs_spec[1]]
    for i, (ls, rs) in enumerate(zip(lhs_spec[2:], rhs_spec[2:])):
        lo, hi = params["padding"][i]
        d = (lhs_shape[ls] - 1) * params["lhs_dilation"][i] + 1 + lo + hi
        k = (rhs_shape[rs] - 1) * params["rhs_dilation"][i] + 1
        size *= max(0, (d - k) // params["window_strides"][i] + 1) * rhs_shape[rs]
    return size


def _dilate_and_pad(x: np.ndarray, lhs_dilation, padding) -> np.ndarray:
    """x (batch, *spatial, features) with holes between its elements and edge padding."""
    padding = tuple(padding)
    plan = _pad_plan(x.shape, tuple(lhs_dilation), padding)
    if plan is not None:  # no holes, padding >= 0 (np.pad costs ~20 us of Python per call)
        if not plan:
            return x
        shape, interior = plan
        out = _zero_bordered(shape, x.dtype, (x.shape, padding))
        out[interior] = x
        return out
    if any(d != 1 for d in lhs_dilation):
        shape = (x.shape[0], *((n - 1) * d + 1 if n else 0
                               for n, d in zip(x.shape[1:-1], lhs_dilation)), x.shape[-1])
        holes = np.zeros(shape, x.dtype)
        holes[(slice(None), *(slice(None, None, d) for d in lhs_dilation))] = x
        x = holes
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        x = x[(slice(None), *(slice(max(0, -lo), n - max(0, -hi))
                              for (lo, hi), n in zip(padding, x.shape[1:-1])))]
    if any(lo > 0 or hi > 0 for lo, hi in padding):
        pads = [(0, 0)] + [(max(0, lo), max(0, hi)) for lo, hi in padding] + [(0, 0)]
        x = np.pad(x, pads)
    return x


_SCRATCH = threading.local()  # (shape, dtype, placement) -> a buffer whose border is zero
_SCRATCH_BYTES = 4 << 20  # the largest buffer kept
_SCRATCH_KEPT = 8


def _zero_bordered(shape, dtype, placement) -> np.ndarray:
    """A buffer of shape whose border around the interior `placement` describes is zero:
    this module's padded copies live only within one computation, so each thread keeps a
    few, and each use writes the whole interior (no zero fill, no fresh pages)."""
    if math.prod(shape) * dtype.itemsize > _SCRATCH_BYTES:
        return np.zeros(shape, dtype)
    kept = getattr(_SCRATCH, "buffers", None)
    if kept is None:
        kept = _SCRATCH.buffers = {}
    key = (shape, dtype, placement)
    buf = kept.pop(key, None)
    if buf is None:
        buf = np.zeros(shape, dtype)
        while len(kept) >= _SCRATCH_KEPT:
            kept.pop(next(iter(kept)))
    kept[key] = buf  # (most recently used last)
    return buf


@functools.lru_cache(maxsize=512)
def _pad_plan(shape, lhs_dilation, padding):
    """For no holes and padding >= 0: () when nothing changes, else the padded shape and
    x's place in it. None otherwise."""
    if any(d != 1 for d in lhs_dilation) or any(lo < 0 or hi < 0 for lo, hi in padding):
        return None
    if not any(lo or hi for lo, hi in padding):
        return ()
    padded = (shape[0], *(n + lo + hi for n, (lo, hi) in zip(shape[1:-1], padding)), shape[-1])
    return padded, (slice(None), *(slice(lo, lo + n) for n, (lo, _) in zip(shape[1:-1], padding)))


def _windows(x: np.ndarray, window, window_strides, rhs_dilation):
    """Every window of x (batch, *spatial, features), already dilated and padded, at once:
    a view (batch, *out spatial, *window, features), and the out spatial shape."""
    shape, strides, out_sp = _window_geometry(x.shape, x.strides, tuple(window),
                                              tuple(window_strides), tuple(rhs_dilation))
    if x.flags.c_contiguous and x.size:  # (a view on x's buffer: ~8x cheaper to make)
        return np.ndarray(shape, x.dtype, x, 0, strides), out_sp
    return as_strided(x, shape, strides, writeable=False), out_sp


@functools.lru_cache(maxsize=512)
def _window_geometry(xshape, xstrides, window, window_strides, rhs_dilation):
    reach = [(w - 1) * d + 1 for w, d in zip(window, rhs_dilation)]
    out_sp = tuple(max(0, (p - r) // s + 1)
                   for p, r, s in zip(xshape[1:-1], reach, window_strides))
    st = xstrides
    shape = (xshape[0], *out_sp, *window, xshape[-1])
    strides = (st[0], *(a * s for a, s in zip(st[1:-1], window_strides)),
               *(a * d for a, d in zip(st[1:-1], rhs_dilation)), st[-1])
    return shape, strides, out_sp


def _lhs_natural(lhs, lhs_spec):
    """lhs as (batch, *spatial, features)."""
    return _permuted(lhs, _natural_perm(tuple(lhs_spec)))


def _rhs_natural(rhs, rhs_spec):
    """The kernel as (*window, in features, out features)."""
    return _permuted(rhs, _kernel_perm(tuple(rhs_spec)))


def _out_natural(out, out_spec):
    """A result or cotangent as (batch, *spatial, features)."""
    return _permuted(out, _natural_perm(tuple(out_spec)))


def _from_natural(x, spec):
    """The inverse of _lhs_natural/_out_natural: (batch, *spatial, features) in spec's layout."""
    return _permuted(x, _from_natural_perm(tuple(spec)))


def _permuted(x, perm):
    return x if perm is None else np.transpose(x, perm)


def _identity_as_none(perm):
    perm = tuple(perm)
    return None if perm == tuple(range(len(perm))) else perm


@functools.lru_cache(maxsize=64)
def _natural_perm(spec):
    return _identity_as_none((spec[0], *spec[2:], spec[1]))


@functools.lru_cache(maxsize=64)
def _kernel_perm(spec):
    return _identity_as_none((*spec[2:], spec[1], spec[0]))


@functools.lru_cache(maxsize=64)
def _from_natural_perm(spec):
    perm = [0] * len(spec)
    for j, d in enumerate(spec):
        perm[d] = 0 if j == 0 else (len(spec) - 1 if j == 1 else j - 1)
    return _identity_as_none(perm)


def conv_on_numpy(lhs: np.ndarray, rhs: np.ndarray, *, window_strides, padding, lhs_dilation,
                  rhs_dilation, dimension_numbers, feature_group_count, **_) -> np.ndarray:
    """conv_general_dilated as one matrix product (per feature group): every window of the
    input, dilated and padded, as a row ordered (window position, feature); the kernel as a
    (window size x features, output features) matrix."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x = _dilate_and_pad(_lhs_natural(lhs, lhs_spec), lhs_dilation, padding)
    k = _rhs_natural(rhs, rhs_spec)
    if feature_group_count == 1:
        return _from_natural(_windows_matmul(x, k, window_strides, rhs_dilation), out_spec)
    windows, out_sp = _windows(x, k.shape[:-2], window_strides, rhs_dilation)
    rows = x.shape[0] * math.prod(out_sp)
    out = _windows_times_kernel(windows, k, rows, feature_group_count)
    return _from_natural(out.reshape(x.shape[0], *out_sp, k.shape[-1]), out_spec)


def _windows_matmul(x: np.ndarray, k: np.ndarray, window_strides, rhs_dilation):
    """(batch, *out spatial, out features): the windows of x (batch, *spatial, features),
    already dilated and padded, times the kernel k (*window, in, out), a block of the batch
    at a time."""
    windows, out_sp = _windows(x, k.shape[:-2], window_strides, rhs_dilation)
    kmat = k.reshape(-1, k.shape[-1])
    per = math.prod(out_sp)  # rows per batch element
    out = np.empty((x.shape[0] * per, kmat.shape[1]), x.dtype)
    for lo, hi in _batch_blocks(windows):
        np.matmul(_cols(x, windows, lo, hi), kmat, out=out[per * lo:per * hi])
    return out.reshape(x.shape[0], *out_sp, k.shape[-1])


_BLOCK_BYTES = 256 << 10  # a quarter of a core's L2 cache on the machines measured


def _batch_blocks(windows: np.ndarray) -> tuple[tuple[int, int], ...]:
    """Ranges of the batch whose windows matrices are gathered and multiplied one at a time:
    a block's matrix stays in cache for its product (one matrix of all the batch is
    several MB, written to memory and read back). Window-major gathers take one block."""
    return _blocks_of(windows.shape, windows.itemsize)


@functools.lru_cache(maxsize=512)
def _blocks_of(shape, itemsize):
    b = shape[0]
    if shape[-1] < 4 or b == 0:
        return ((0, b),)
    step = max(1, _BLOCK_BYTES // (itemsize * (math.prod(shape) // b)))
    return tuple((i, min(b, i + step)) for i in range(0, b, step))


def _cols(x: np.ndarray, windows: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The windows matrix (rows, window size x features) of batch elements lo:hi of
    windows (batch, *out, *window, feat), a view of x: gathered in the order that copies
    longest runs. Rows-major when the input has enough features: each run (the last window
    dimension's elements x features, contiguous in x) copied as one item (NumPy copies a
    few floats at a time otherwise); else window-major (runs along the output's last
    spatial dimension) and transposed (a view)."""
    rows, perm, item = _gather_plan(windows.shape, windows.strides, x.itemsize, hi - lo)
    block = windows[lo:hi]
    if perm is not None:
        return block.transpose(perm).reshape(-1, rows).T
    if item is not None and x.flags.c_contiguous and rows:
        runs = np.ndarray(block.shape[:-2], item, x, lo * windows.strides[0], block.strides[:-2])
        return np.ascontiguousarray(runs).view(x.dtype).reshape(rows, -1)
    return block.reshape(rows, -1)


@functools.lru_cache(maxsize=512)
def _gather_plan(shape, strides, itemsize, batch):
    """(rows of a block of `batch` elements, the window-major order or None, the item type
    of a run or None) for windows of this shape and strides."""
    n = len(shape) // 2 - 1
    rows = batch * math.prod(shape[1:n + 1])
    if shape[-1] < 4:
        return rows, (*range(n + 1, 2 * n + 2), *range(n + 1)), None
    if strides[-1] == itemsize and strides[-2] == itemsize * shape[-1]:
        return rows, None, np.dtype((np.void, itemsize * shape[-2] * shape[-1]))
    return rows, None, None


def _windows_times_kernel(windows: np.ndarray, k: np.ndarray, rows: int, groups: int):
    """(rows, out features): windows (batch, *out, *window, feat) times k (*window, in,
    out), one product per feature group."""
    # group-major features on both sides: one product per group, stacked
    feat, cout = windows.shape[-1], k.shape[-1]
    cg, og = feat // groups, cout // groups
    cols = windows.reshape(rows, -1, groups, cg).transpose(2, 0, 1, 3).reshape(groups, rows, -1)
    kern = k.reshape(-1, cg, groups, og).transpose(2, 0, 1, 3).reshape(groups, -1, og)
    return np.matmul(cols, kern).transpose(1, 0, 2).reshape(rows, cout)


# ----------------------------------------------------------------------------------------
# Eager reverse mode's pullback (interpreters/tape.each_pullbacks). The kernel's cotangent
# is the forward's windows matrix, transposed, times the output cotangent: gathered in the
# forward's own layout. The transpose rule states it as a convolution of exchanged roles
# (batch as features, a window as large as the image over the cotangent) whose windows
# matrix gathers with long strides, ~2x slower. The input's cotangent is the convolution
# the transpose rule binds, computed here directly (without the kernel's reversal and the
# layout changes as operations of their own).
# ----------------------------------------------------------------------------------------


def pullback(i: int, ct, primals, params):
    """The cotangent of operand i of conv_general_dilated(*primals, **params) given the
    output cotangent ct, computed here when the case fits this module; None otherwise
    (tracers, other types, the input of a grouped convolution: the transpose rule runs)."""
    lhs, rhs = primals
    if not (type(ct) is Array and _host(lhs) and _host(rhs) and ct.aval.dtype == _dtype(lhs)
            and ct.aval.size and fits(lhs, rhs, **params)):
        return None
    if i == 0:
        if params["feature_group_count"] != 1:
            return None
        rhs = rhs._value if type(rhs) is Array else rhs
        shape, dtype = np.shape(lhs), _dtype(lhs)
        out = _lhs_cotangent(ct._value, rhs, shape, **params)
    else:
        lhs = lhs._value if type(lhs) is Array else lhs
        shape, dtype = np.shape(rhs), _dtype(rhs)
        out = _rhs_cotangent(ct._value, lhs, shape, **params)
    return Array(np.ascontiguousarray(out, dtype), ShapedArray(shape, dtype))


def _lhs_cotangent(ct, rhs, lhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, **_):
    """The input's cotangent, as the transpose rule states it: the output cotangent,
    dilated by the strides and padded, convolved with the spatially flipped kernel whose
    feature roles are exchanged (strided by the forward's input dilation)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n = len(lhs_spec) - 2
    g = _out_natural(ct, out_spec)
    k = _rhs_natural(rhs, rhs_spec)[(slice(None, None, -1),) * n].swapaxes(-1, -2)
    pads = _transpose_pads(tuple(lhs_shape[d] for d in lhs_spec[2:]), k.shape[:n],
                           g.shape[1:-1], tuple(window_strides), tuple(padding),
                           tuple(lhs_dilation), tuple(rhs_dilation))
    x = _dilate_and_pad(g, window_strides, pads)
    return _from_natural(_windows_matmul(x, k, lhs_dilation, rhs_dilation), lhs_spec)


@functools.lru_cache(maxsize=256)
def _transpose_pads(spatial, window, out_spatial, window_strides, padding, lhs_dilation,
                    rhs_dilation):
    """The padding of the output cotangent (dilated by the strides) whose convolution with
    the flipped kernel gives the input's cotangent."""
    pads = []
    for i, size in enumerate(spatial):
        span = (size - 1) * lhs_dilation[i] + 1 if size else 0
        reach = (window[i] - 1) * rhs_dilation[i] + 1
        out = (out_spatial[i] - 1) * window_strides[i] + 1
        before = reach - padding[i][0] - 1
        pads.append((before, span + reach - 1 - out - before))
    return tuple(pads)


def _host(x) -> bool:
    return type(x) is Array or type(x) is np.ndarray


def _rhs_cotangent(ct, lhs, rhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count, **_):
    """The forward's windows matrix, transposed, times the output cotangent."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    window = tuple(rhs_shape[d] for d in rhs_spec[2:])
    g = _out_natural(ct, out_spec)
    rows = g.size // g.shape[-1]
    g = g.reshape(rows, -1)
    n, cin, groups = len(window), lhs.shape[lhs_spec[1]], feature_group_count
    x = _dilate_and_pad(_lhs_natural(lhs, lhs_spec), lhs_dilation, padding)
    windows, _ = _windows(x, window, window_strides, rhs_dilation)
    if groups == 1:
        per = rows // max(1, x.shape[0])
        kg = None
        for lo, hi in _batch_blocks(windows):
            part = _cols(x, windows, lo, hi).T @ g[per * lo:per * hi]
            kg = part if kg is None else np.add(kg, part, out=kg)
        k = kg.reshape(*window, cin, -1)
    else:
        cg, og = cin // groups, g.shape[1] // groups
        cols = windows.reshape(rows, -1, groups, cg).transpose(2, 0, 1, 3).reshape(
            groups, rows, -1)
        gg = g.reshape(rows, groups, og).transpose(1, 0, 2)
        kg = np.matmul(cols.transpose(0, 2, 1), gg)  # (groups, window x cg, og)
        k = kg.reshape(groups, *window, cg, og).transpose(
            *range(1, n + 2), 0, n + 2).reshape(*window, cg, -1)
    return _permuted(k, _kernel_back_perm(tuple(rhs_spec)))


@functools.lru_cache(maxsize=64)
def _kernel_back_perm(spec):
    """(*window, in, out) back to spec's layout."""
    n = len(spec) - 2
    perm = [0] * (n + 2)
    for j, d in enumerate(spec):
        perm[d] = n + 1 if j == 0 else (n if j == 1 else j - 2)
    return _identity_as_none(perm)
