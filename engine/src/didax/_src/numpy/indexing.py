"""NumPy-style indexing for didax arrays: `x[idx]` and `x.at[idx].set/add/...`.

Basic indexing (integers, slices, None, Ellipsis) lowers to static slices, reshapes and
dynamic_slice for traced integer indices. May import core, dtypes, didax.lax, numpy.util.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.core import Tracer
from didax._src.lax import lax, shapes


def _is_int_scalar(i) -> bool:
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    if isinstance(i, Tracer) or hasattr(i, "aval"):
        aval = core.get_aval(i)
        return aval.shape == () and dtypes.is_int(aval.dtype)
    return False


def _expand_index(idx, ndim):
    if not isinstance(idx, tuple):
        idx = (idx,)
    n_real = sum(1 for i in idx if i is not None and i is not Ellipsis)
    if sum(1 for i in idx if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with "
                         f"{n_real} regular indices.")
    out = []
    for i in idx:
        if i is Ellipsis:
            out.extend([slice(None)] * (ndim - n_real))
        else:
            out.append(i)
    if Ellipsis not in idx:
        out.extend([slice(None)] * (ndim - n_real))
    return out


def getitem(arr, idx):
    """arr[idx] for basic indices."""
    shape = np.shape(arr)
    items = _expand_index(idx, len(shape))
    for i in items:
        if not (i is None or isinstance(i, slice) or _is_int_scalar(i)):
            raise NotImplementedError(f"advanced indexing with {type(i).__name__} indices "
                                      "is not implemented")
    x = arr
    dim = 0
    starts, limits, strides, squeeze_dims, rev_dims = [], [], [], [], []
    dyn = []
    for i in items:
        if i is None:
            continue
        n = shape[dim]
        if isinstance(i, slice):
            s, e, st = i.indices(n)
            if st < 0:
                rev_dims.append(dim)
                s, e, st = _flip_slice(s, e, st, n)
            starts.append(s)
            limits.append(max(e, s))
            strides.append(st)
        elif isinstance(i, Tracer):
            dyn.append((dim, i))
            starts.append(0)
            limits.append(n)
            strides.append(1)
        else:
            j = operator.index(i)
            if not -n <= j < n:
                raise IndexError(f"index {j} is out of bounds for axis {dim} with size {n}")
            j = j + n if j < 0 else j
            starts.append(j)
            limits.append(j + 1)
            strides.append(1)
            squeeze_dims.append(dim)
        dim += 1
    if any(st != 1 for st in strides) or starts != [0] * len(starts) or \
            limits != list(shape):
        x = shapes.slice(x, starts, limits, strides)
    if rev_dims:
        x = shapes.rev(x, rev_dims)
    for d, i in dyn:
        x = shapes.dynamic_index_in_dim(x, i, d, keepdims=True)
        squeeze_dims.append(d)
    if squeeze_dims:
        x = shapes.squeeze(x, sorted(squeeze_dims))
    new_axes = _new_axis_positions(items)
    if new_axes:
        x = shapes.expand_dims(x, new_axes)
    return x


def _flip_slice(s, e, st, n):
    """A negative-stride slice as (positive slice, then reverse)."""
    count = max(0, (e - s + (st + 1)) // st) if st < 0 else 0
    if count == 0:
        return 0, 0, 1
    last = s + (count - 1) * st
    return last, s + 1, -st


def _new_axis_positions(items):
    out, pos = [], 0
    for i in items:
        if i is None:
            out.append(pos)
            pos += 1
        elif isinstance(i, slice):
            pos += 1
        else:
            continue
    return out


def nonzero(a, *, size=None, fill_value=None):
    raise NotImplementedError("jnp.nonzero is not implemented yet")


class IndexUpdateHelper:
    """`x.at[idx]` returns an _IndexUpdateRef with set/add/mul/min/max/get."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, idx):
        return _IndexUpdateRef(self.array, idx)


class _IndexUpdateRef:
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self, **kwargs):
        return getitem(self.array, self.index)

    def set(self, values, **kwargs):
        raise NotImplementedError("x.at[...].set is not implemented yet")
