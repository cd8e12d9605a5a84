"""A NumPy convolution for the eager tape (eager reverse mode).

XLA's CPU convolution, dispatched eagerly as a one-equation program, is slow for the small
convolutions of a training step and their transposes (a 32x14x14x16 input gradient through
a 3x3x8x16 kernel takes ~3 ms there; a one-feature input 1.5-2 ms), while gathering the
windows as rows of a matrix (im2col) and multiplying by the kernel as one BLAS product takes
a fraction of that. Plain eager code keeps XLA's convolution (eager equals jit bit for bit);
while a tape records or pulls back (eager reverse mode, which already evaluates on NumPy:
interpreters/tape.ACTIVE) convolutions run here, within float32 rounding of XLA's sums.

Covered: any number of spatial dimensions, any layout, strides, padding (negative too), lhs
and rhs dilation, feature groups; float32/float64 with no other result type. Batch groups
(the kernel gradient of a grouped convolution), other types and windows-matrices over
_MAX_COLS elements go to XLA. May import core and array.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from didax._src.array import Array

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_MAX_COLS = 1 << 24  # elements of the windows matrix (64 MB of float32): beyond, XLA


def _dtype(x):
    return x.aval.dtype if type(x) is Array else np.result_type(x)


def fits(lhs, rhs, **params) -> bool:
    """Whether conv_general_dilated(lhs, rhs, **params) is one this module computes."""
    dn = params["dimension_numbers"]
    if dn is None or len(dn.lhs_spec) < 3:
        return False
    dtype = _dtype(lhs)
    if not (dtype in _DTYPES and _dtype(rhs) == dtype
            and params["batch_group_count"] == 1
            and params["preferred_element_type"] in (None, dtype)
            and params.get("out_sharding") is None):
        return False
    return _cols_size(np.shape(lhs), np.shape(rhs), params) <= _MAX_COLS


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
    if all(d == 1 for d in lhs_dilation) and all(lo >= 0 and hi >= 0 for lo, hi in padding):
        if not any(lo or hi for lo, hi in padding):
            return x
        # (np.pad costs ~20 us of Python per call; zeros and one copy do the same)
        shape = (x.shape[0], *(n + lo + hi for n, (lo, hi) in zip(x.shape[1:-1], padding)),
                 x.shape[-1])
        out = np.zeros(shape, x.dtype)
        out[(slice(None), *(slice(lo, lo + n) for n, (lo, _) in zip(x.shape[1:-1], padding)))] = x
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


def conv_on_numpy(lhs: np.ndarray, rhs: np.ndarray, *, window_strides, padding, lhs_dilation,
                  rhs_dilation, dimension_numbers, feature_group_count, **_) -> np.ndarray:
    """conv_general_dilated as one matrix product (per feature group): every window of the
    input, dilated and padded, as a row ordered (window position, feature); the kernel as a
    (window size x features, output features) matrix."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    n = len(lhs_spec) - 2
    x = np.transpose(lhs, (lhs_spec[0], *lhs_spec[2:], lhs_spec[1]))  # (batch, *sp, feat)
    x = _dilate_and_pad(x, lhs_dilation, padding)
    k = np.transpose(rhs, (*rhs_spec[2:], rhs_spec[1], rhs_spec[0]))  # (*window, in, out)
    window = k.shape[:n]
    reach = [(w - 1) * d + 1 for w, d in zip(window, rhs_dilation)]
    out_sp = tuple(max(0, (p - r) // s + 1)
                   for p, r, s in zip(x.shape[1:-1], reach, window_strides))
    st = x.strides
    # every window at once, as a view (batch, *out spatial, *window, features)
    windows = as_strided(x, (x.shape[0], *out_sp, *window, x.shape[-1]),
                         (st[0], *(a * s for a, s in zip(st[1:-1], window_strides)),
                          *(a * d for a, d in zip(st[1:-1], rhs_dilation)), st[-1]),
                         writeable=False)
    rows = x.shape[0] * int(np.prod(out_sp, dtype=np.int64))
    out = _windows_times_kernel(windows, k, rows, feature_group_count)
    out = out.reshape(x.shape[0], *out_sp, k.shape[-1])  # (batch, *out spatial, out feat)
    perm = [0] * (n + 2)
    for j, d in enumerate(out_spec):
        perm[d] = 0 if j == 0 else (n + 1 if j == 1 else j - 1)
    return np.transpose(out, perm)


def _windows_times_kernel(windows: np.ndarray, k: np.ndarray, rows: int, groups: int):
    """(rows, out features): windows (batch, *out, *window, feat) times k (*window, in,
    out). The windows matrix is gathered in the order that copies longest runs: rows-major
    when the input has enough features (runs of window width x features), otherwise
    window-major (runs along the output's last spatial dimension), used transposed."""
    n = windows.ndim // 2 - 1
    feat, cout = windows.shape[-1], k.shape[-1]
    if groups == 1:
        kmat = k.reshape(-1, cout)
        if feat >= 4:
            return windows.reshape(rows, -1) @ kmat
        cols_t = windows.transpose(*range(n + 1, 2 * n + 2), *range(n + 1))
        return cols_t.reshape(-1, rows).T @ kmat
    # group-major features on both sides: one product per group, stacked
    cg, og = feat // groups, cout // groups
    cols = windows.reshape(rows, -1, groups, cg).transpose(2, 0, 1, 3).reshape(groups, rows, -1)
    kern = k.reshape(-1, cg, groups, og).transpose(2, 0, 1, 3).reshape(groups, -1, og)
    return np.matmul(cols, kern).transpose(1, 0, 2).reshape(rows, cout)
