"""Index helpers of didax.numpy: indices, mgrid/ogrid, r_/c_/s_/index_exp, ix_,
triu/tril/diag/mask indices, unravel_index/ravel_multi_index, fill_diagonal, put, place,
packbits/unpackbits.

May import core, dtypes, array, didax.lax and the numpy implementation modules below
(util, array_creation, manipulation, ufuncs, reductions, indexing_ops, products).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs
from didax._src.numpy.array_creation import arange, array, linspace, zeros
from didax._src.numpy.manipulation import concatenate, moveaxis, ravel, reshape, stack
from didax._src.numpy.util import (
    broadcast_arrays,
    const_like,
    dtype_of,
    ensure_arraylike,
    to_array,
    where3,
)


def indices(dimensions, dtype=None, sparse=False):
    dimensions = tuple(core.concrete_or_error(operator.index, d, "dimensions argument of "
                                              "jnp.indices") for d in dimensions)
    dt = dtypes.default_int_dtype() if dtype is None else \
        dtypes.check_and_canonicalize_user_dtype(dtype, "indices")
    nd = len(dimensions)
    outs = []
    for i, n in enumerate(dimensions):
        shp = tuple(n if j == i else (1 if sparse else d) for j, d in enumerate(dimensions))
        outs.append(shapes.broadcasted_iota(dt, shp, i))
    if sparse:
        return tuple(outs)
    return stack(outs) if outs else zeros((nd,) + dimensions, dt)


def _grid_axis(s: slice):
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return linspace(start, s.stop, int(abs(step)), endpoint=True)
    return arange(start, s.stop, step)


class _Grid:
    def __init__(self, sparse: bool, name: str):
        self.sparse, self.name = sparse, name

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_axis(key)
        axes = [_grid_axis(k) for k in key]
        axes = [to_array(a) for a in axes]
        dt = np.result_type(*[a.dtype for a in axes]) if axes else np.int32
        axes = [lax.convert_element_type(a, dtypes.canonicalize_dtype(dt)) for a in axes]
        from didax._src.numpy.lax_numpy import meshgrid  # noqa: PLC0415

        grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
        return grids if self.sparse else stack(grids)


mgrid = _Grid(False, "mgrid")
ogrid = _Grid(True, "ogrid")


class _Concat:
    """r_ / c_: concatenation along an axis with slice and string directives."""

    def __init__(self, axis: int, ndmin: int, trans1d: int):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d, matrix = self._directive(key[0])
        if isinstance(key[0], str):
            key = key[1:]
        parts = []
        for item in key:
            if isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            arr = _grid_axis(item) if isinstance(item, slice) else array(item, copy=False)
            parts.append(_promote_nd(arr, 0 if isinstance(item, slice) else np.ndim(arr),
                                     ndmin, trans1d))
        out = concatenate(parts, axis=axis)
        if matrix != -1 and out.ndim == 1:   # "r" / "c": a row or a column matrix
            out = shapes.expand_dims(out, (matrix,))
        return out

    def _directive(self, first):
        """(axis, ndmin, trans1d, matrix) from a leading string directive: "r" or "c",
        or up to three comma-separated integers (the rest keep this object's defaults)."""
        params = [self.axis, self.ndmin, self.trans1d, -1]
        if not isinstance(first, str):
            return params
        if first in ("r", "c"):
            params[-1] = 0 if first == "r" else 1
            return params
        vec = first.split(",")
        vec = vec + params[len(vec):] if len(vec) < 4 else vec[:3] + [params[-1]]
        try:
            return [int(v) for v in vec]
        except ValueError as err:
            raise ValueError(f"could not understand directive {first!r}") from err


def _promote_nd(arr, item_ndim, ndmin, trans1d):
    """At least ndmin axes (new ones leading); with trans1d, the axes are rotated left so
    that the item's own axes start at trans1d (JAX's rule for r_ / c_)."""
    arr = array(arr, copy=False, ndmin=ndmin)
    if trans1d != -1 and ndmin - item_ndim > 0:
        shifts = ndmin - abs(ndmin + trans1d + 1) % ndmin
        order = list(range(ndmin))
        perm = tuple(order[shifts:] + order[:shifts])
        arr = shapes.transpose(arr, perm) if list(perm) != order else arr
    return arr


r_ = _Concat(0, 1, -1)
c_ = _Concat(-1, 2, 0)


class _IndexExp:
    def __init__(self, as_tuple: bool):
        self.as_tuple = as_tuple

    def __getitem__(self, item):
        if self.as_tuple and not isinstance(item, tuple):
            return (item,)
        return item


s_ = _IndexExp(False)
index_exp = _IndexExp(True)


def ix_(*args):
    args = ensure_arraylike("ix_", *args) if len(args) > 1 else \
        ([ensure_arraylike("ix_", *args)] if args else [])
    n = len(args)
    out = []
    for i, a in enumerate(args):
        if np.ndim(a) != 1:
            raise ValueError("Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{np.shape(a)}")
        if dtype_of(a) == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not supported")
        shp = [1] * n
        shp[i] = np.shape(a)[0]
        out.append(reshape(a, tuple(shp)))
    return tuple(out)


def _tri_indices(n, k, m, upper):
    n = core.concrete_or_error(operator.index, n, "n argument of jnp.triu_indices")
    k = core.concrete_or_error(operator.index, k, "k argument of jnp.triu_indices")
    m = n if m is None else core.concrete_or_error(operator.index, m, "m argument")
    mask = np.triu(np.ones((n, m), bool), k) if upper else np.tril(np.ones((n, m), bool), k)
    rows, cols = np.nonzero(mask)
    idx = dtypes.default_int_dtype()  # int64 under x64, as JAX's
    return to_array(rows.astype(idx)), to_array(cols.astype(idx))


def triu_indices(n, k=0, m=None):
    return _tri_indices(n, k, m, True)


def tril_indices(n, k=0, m=None):
    return _tri_indices(n, k, m, False)


def _from(arr, name):
    arr = ensure_arraylike(name, arr) if not hasattr(arr, "shape") else arr
    if np.ndim(arr) != 2:
        raise ValueError(f"Input array must be 2-D, got shape {np.shape(arr)}")
    return np.shape(arr)


def triu_indices_from(arr, k=0):
    n, m = _from(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def tril_indices_from(arr, k=0):
    n, m = _from(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def diag_indices(n, ndim=2):
    n = core.concrete_or_error(operator.index, n, "'n' argument of jnp.diag_indices()")
    ndim = core.concrete_or_error(operator.index, ndim, "'ndim' argument of "
                                  "jnp.diag_indices()")
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (shapes.iota(dtypes.default_int_dtype(), n),) * ndim


def diag_indices_from(arr):
    arr = ensure_arraylike("diag_indices_from", arr)
    shp = np.shape(arr)
    if len(shp) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shp)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shp[0], len(shp))


def mask_indices(n, mask_func, k=0, *, size=None):
    a = mask_func(np.ones((n, n), np.int32), k)
    from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

    return nonzero(a, size=size)


def unravel_index(indices, shape):
    idx = ensure_arraylike("unravel_index", indices)
    shape = tuple(core.concrete_or_error(operator.index, d, "shape argument of "
                                         "jnp.unravel_index") for d in shape)
    if not dtypes.is_int(dtype_of(idx)):
        raise TypeError("Only integer indices are supported.")
    total = math.prod(shape)
    idx = where3(lax.lt(idx, const_like(idx, 0)), lax.add(idx, const_like(idx, total)), idx)
    idx = lax.clamp(const_like(idx, 0), idx, const_like(idx, max(total - 1, 0)))
    out = []
    for d in reversed(shape):
        out.append(ufuncs.remainder(idx, d) if d else idx)
        idx = ufuncs.floor_divide(idx, d) if d else idx
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = tuple(core.concrete_or_error(operator.index, d, "dims argument of "
                                        "jnp.ravel_multi_index") for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    idx = broadcast_arrays(*[ensure_arraylike("ravel_multi_index", i) for i in multi_index])
    for i in idx:
        if not dtypes.is_int(dtype_of(i)):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        vals = [core.concrete_or_error(np.asarray, i, "The error occurred because "
                                       "ravel_multi_index was jit-compiled with mode='raise'. "
                                       "Use mode='wrap' or mode='clip' instead.")
                for i in idx]
        if any(np.any((v < 0) | (v >= d)) for v, d in zip(vals, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        idx = [lax.clamp(core.typed_scalar(0, dtype_of(i)), i,
                         core.typed_scalar(d - 1, dtype_of(i))) for i, d in zip(idx, dims)]
    elif mode == "wrap":
        idx = [ufuncs.remainder(i, d) for i, d in zip(idx, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    if order == "F":
        idx, dims = idx[::-1], dims[::-1]
    elif order != "C":
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = lax.full_like(idx[0], 0) if idx else np.array(0, np.int32)
    stride = 1
    for i, d in zip(reversed(idx), reversed(dims)):
        result = ufuncs.add(result, ufuncs.multiply(i, stride))
        stride *= d
    return to_array(result)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a = ensure_arraylike("fill_diagonal", a)
    if np.ndim(a) < 2:
        raise ValueError("array must be at least 2-d")
    if np.ndim(a) > 2 and len(set(np.shape(a))) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    shp = np.shape(a)
    n = min(shp)
    if np.ndim(a) == 2 and wrap:
        n = shp[0]
    step = sum(np.cumprod((1,) + shp[:0:-1])) if np.ndim(a) > 2 else shp[1] + 1
    flat = ravel(a)
    total = np.size(a) if (wrap and np.ndim(a) == 2) else min(np.size(a), n * step)
    pos = np.arange(0, total, step, dtype=np.int32)
    if np.ndim(a) == 2 and not wrap:
        pos = pos[: min(shp)]
    val = ravel(ensure_arraylike("fill_diagonal", val))
    vals = lax.convert_element_type(_tile_to(val, len(pos)), dtype_of(a))
    return reshape(flat.at[pos].set(vals), shp)


def _tile_to(v, n):
    k = np.shape(v)[0]
    reps = -(-n // k) if k else 0
    from didax._src.numpy.manipulation import tile  # noqa: PLC0415

    return tile(v, reps)[:n]


def put(a, ind, v, mode=None, *, inplace=True):
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Use inplace=False instead.")
    a, ind, v = ensure_arraylike("put", a, ind, v)
    ind, v = ravel(ind), ravel(v)
    if not np.size(ind):
        return a
    v = lax.convert_element_type(_tile_to(v, np.shape(ind)[0]) if np.size(v) else v,
                                 dtype_of(a))
    if mode == "clip":
        ind = lax.clamp(core.typed_scalar(0, dtype_of(ind)), ind,
                        core.typed_scalar(np.size(a) - 1, dtype_of(ind)))
        scatter_mode = "promise_in_bounds"
    elif mode == "wrap":
        ind = ufuncs.remainder(ind, np.size(a))
        scatter_mode = "promise_in_bounds"
    elif mode in (None, "fill", "drop"):
        scatter_mode = "drop"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    return reshape(ravel(a).at[ind].set(v, mode=scatter_mode), np.shape(a))


def place(arr, mask, vals, *, inplace=True):
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays "
                         "are immutable. Use inplace=False instead.")
    arr, mask, vals = ensure_arraylike("place", arr, mask, vals)
    data, m = ravel(arr), ravel(lax.ne(mask, core.typed_scalar(0, dtype_of(mask))) if
                                dtype_of(mask) != np.bool_ else mask)
    vals = ravel(vals)
    from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

    ind = nonzero(m, size=np.size(m), fill_value=np.size(m))[0]
    rep = _tile_to(vals, np.size(m)) if np.size(vals) else vals
    return reshape(data.at[ind].set(lax.convert_element_type(rep, dtype_of(arr)),
                                    mode="drop"), np.shape(arr))


def packbits(a, axis=None, bitorder="big"):
    a = ensure_arraylike("packbits", a)
    if not (dtypes.is_int(dtype_of(a)) or dtype_of(a) == np.bool_):
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    a = lax.convert_element_type(lax.gt(a, core.typed_scalar(0, dtype_of(a))), np.uint8)
    if axis is None:
        a, axis = ravel(a), 0
    a = moveaxis(a, axis, -1)
    n = np.shape(a)[-1]
    remainder = -n % 8
    if remainder:
        cfg = [(0, 0, 0)] * (np.ndim(a) - 1) + [(0, remainder, 0)]
        a = shapes.pad(a, np.uint8(0), tuple(cfg))
    a = reshape(a, (*np.shape(a)[:-1], np.shape(a)[-1] // 8, 8))
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1].copy()
    packed = red.sum(ufuncs.left_shift(a, shifts), axis=-1, dtype=np.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder="big"):
    a = ensure_arraylike("unpackbits", a)
    if dtype_of(a) != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    shifts = np.arange(8, dtype=np.uint8)
    if bitorder == "big":
        shifts = shifts[::-1].copy()
    bits = ufuncs.bitwise_and(ufuncs.right_shift(shapes.expand_dims(a, (np.ndim(a),)),
                                                 shifts), np.uint8(1))
    if axis is None:
        bits, axis = ravel(bits), 0
    else:
        bits = moveaxis(bits, -1, axis + 1 if axis >= 0 else axis)
        shp = list(np.shape(a))
        ax = axis % np.ndim(a)
        shp[ax] *= 8
        bits = reshape(bits, tuple(shp))
        axis = ax
    if count is not None:
        bits = shapes.slice_in_dim(bits, 0, count, axis=axis)
    return bits

