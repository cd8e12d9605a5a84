"""A NumPy convolution for the eager tape: one-feature inputs (grayscale images).

XLA's CPU convolution is slow when the input has a single feature (a first layer over
grayscale images: 1.5-2 ms for a 32x28x28x1 batch and a 3x3x1x8 kernel), while gathering
the windows and multiplying them by the kernel as one matrix product takes ~0.5 ms. Plain
eager code keeps XLA's convolution (eager equals jit bit for bit); while a tape records or
pulls back (eager reverse mode, which already evaluates on NumPy: interpreters/tape.ACTIVE)
such convolutions run here, ~1 ulp from XLA's sums.

May import core and the interpreters.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from didax._src.array import Array
from didax._src.interpreters import tape

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _fits(lhs, rhs, params: dict) -> bool:
    """Whether conv_general_dilated(lhs, rhs, **params) is one this module computes."""
    dn = params["dimension_numbers"]
    if dn is None or len(dn.lhs_spec) != 4:
        return False
    dtype = lhs.aval.dtype if type(lhs) is Array else np.result_type(lhs)
    rdtype = rhs.aval.dtype if type(rhs) is Array else np.result_type(rhs)
    return (dtype in _DTYPES and rdtype == dtype
            and np.shape(lhs)[dn.lhs_spec[1]] == 1
            and params["feature_group_count"] == 1 and params["batch_group_count"] == 1
            and params["preferred_element_type"] in (None, dtype)
            and params.get("out_sharding") is None
            and all(s == 1 for s in params["window_strides"])
            and all(d == 1 for d in params["lhs_dilation"])
            and all(d == 1 for d in params["rhs_dilation"])
            and all(lo >= 0 and hi >= 0 for lo, hi in params["padding"]))


def conv_one_feature(lhs: np.ndarray, rhs: np.ndarray, *, padding, dimension_numbers,
                     **_) -> np.ndarray:
    """A stride-1, undilated 2-D convolution of a one-feature input: the windows as rows of
    a matrix, times the kernel as a (window size, output features) matrix."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x = np.transpose(lhs, lhs_spec)[:, 0]  # (batch, h, w)
    x = np.pad(x, ((0, 0), *padding))
    k = np.transpose(rhs, rhs_spec)[:, 0]  # (out features, kh, kw)
    o, kh, kw = k.shape
    windows = sliding_window_view(x, (kh, kw), axis=(1, 2))  # (batch, oh, ow, kh, kw)
    n, oh, ow = windows.shape[:3]
    out = windows.reshape(n * oh * ow, kh * kw) @ k.reshape(o, kh * kw).T
    logical = out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)  # (batch, feature, oh, ow)
    return np.transpose(logical, np.argsort(out_spec))


def taped_impl(compiled: Callable, on_numpy: Callable) -> Callable:
    """The eager evaluation of conv_general_dilated: on NumPy while a tape is active and
    the convolution is one conv_one_feature computes, otherwise compiled by XLA."""
    active = tape.ACTIVE

    def impl(lhs, rhs, **params):
        if active[0] and _fits(lhs, rhs, params):
            return on_numpy(lhs, rhs, **params)
        return compiled(lhs, rhs, **params)
    return impl
