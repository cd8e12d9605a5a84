"""Sorting in didax.numpy: sort/argsort (stable, descending as JAX computes it), lexsort,
partition/argpartition, searchsorted (compare-all and sort methods; NaN sorts last, -0
equals 0) and digitize.

May import core, dtypes, array, didax.lax and numpy.util/manipulation/reductions/
indexing_ops.
"""

from __future__ import annotations

import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy.manipulation import ravel
from didax._src.numpy.util import (
    canonicalize_axis,
    check_arraylike,
    dtype_of,
    ensure_arraylike,
    full,
    full_like,
    jit_like_jax,
    promote_dtypes,
    to_array,
)


def _axis_of(a, axis):
    if axis is None:
        return ravel(a), 0
    return a, canonicalize_axis(operator.index(axis), np.ndim(a))


@jit_like_jax("sort", static_argnames=("axis", "kind", "order", "stable", "descending"))
def _sort(a, axis=-1, kind=None, order=None, stable=True, descending=False):
    a, axis = _axis_of(a, axis)
    out = lred.sort(a, dimension=axis, is_stable=stable)
    return shapes.rev(out, (axis,)) if descending else out


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    a = ensure_arraylike("sort", a)
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    if kind is not None:
        raise TypeError("'kind' argument to sort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    return _sort(a, axis, None, None, bool(stable), bool(descending))


@jit_like_jax("argsort", static_argnames=("axis", "kind", "order", "stable", "descending"))
def _argsort(a, axis=-1, kind=None, order=None, stable=True, descending=False):
    a, axis = _axis_of(a, axis)
    idx = shapes.broadcasted_iota(dtypes.default_int_dtype(), np.shape(a), axis)
    if descending:
        a, idx = shapes.rev(a, (axis,)), shapes.rev(idx, (axis,))
        _, perm = lred.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
        return shapes.rev(perm, (axis,))
    _, perm = lred.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
    return perm


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    a = ensure_arraylike("argsort", a)
    if order is not None:
        raise ValueError("'order' argument to argsort is not supported.")
    if kind is not None:
        raise TypeError("'kind' argument to argsort is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    return _argsort(a, axis, None, None, bool(stable), bool(descending))


@jit_like_jax("lexsort", static_argnames=("axis",))
def _lexsort(keys, axis=-1):
    shp = np.shape(keys[0])
    if np.ndim(keys[0]) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if any(np.shape(k) != shp for k in keys[1:]):
        raise ValueError("all keys need to be the same shape")
    axis = canonicalize_axis(axis, len(shp))
    idx = shapes.broadcasted_iota(dtypes.default_int_dtype(), shp, axis)
    outs = lred.sort((*keys[::-1], idx), dimension=axis, is_stable=True,
                     num_keys=len(keys))
    return outs[-1]


def lexsort(keys, axis=-1):
    keys = tuple(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    check_arraylike("lexsort", *keys)
    return _lexsort(tuple(to_array(k) for k in keys), operator.index(axis))


@jit_like_jax("partition", static_argnames=("kth", "axis"))
def _partition(a, kth, axis=-1):
    a = shapes.transpose(a, _to_last(np.ndim(a), axis)) if axis != np.ndim(a) - 1 else a
    s = lred.sort(a, dimension=np.ndim(a) - 1)
    n = np.shape(a)[-1]
    low = shapes.slice_in_dim(s, 0, kth + 1, axis=-1)
    high = shapes.rev(shapes.slice_in_dim(s, kth + 1, n, axis=-1), (np.ndim(a) - 1,))
    out = shapes.concatenate([low, high], np.ndim(a) - 1)
    return _from_last(out, axis)


def _to_last(nd, axis):
    perm = [i for i in range(nd) if i != axis]
    return (*perm, axis)


def _from_last(x, axis):
    nd = np.ndim(x)
    if axis == nd - 1:
        return x
    perm = list(range(nd - 1))
    perm.insert(axis, nd - 1)
    return shapes.transpose(x, tuple(perm))


def partition(a, kth, axis=-1):
    a = ensure_arraylike("partition", a)
    if dtypes.is_complex(dtype_of(a)):
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    if np.ndim(a) == 0:
        raise TypeError("Cannot partition a 0-dimensional array")
    axis = canonicalize_axis(axis, np.ndim(a))
    kth = canonicalize_axis(operator.index(kth), np.shape(a)[axis])
    return _partition(a, kth, axis)


@jit_like_jax("argpartition", static_argnames=("kth", "axis"))
def _argpartition(a, kth, axis=-1):
    a = shapes.transpose(a, _to_last(np.ndim(a), axis)) if axis != np.ndim(a) - 1 else a
    n = np.shape(a)[-1]
    bottom = shapes.slice_in_dim(_argsort(a, -1, stable=True), 0, kth + 1, axis=-1)
    # the rest, in increasing index order (as JAX's top_k of a 0/1 proxy leaves them)
    in_bottom = lax.eq(shapes.expand_dims(bottom, (np.ndim(bottom),)),
                       shapes.broadcasted_iota(dtype_of(bottom), (*np.shape(bottom), n),
                                               np.ndim(bottom)))
    in_bottom = lred.reduce_or(in_bottom, (np.ndim(bottom) - 1,))
    top = shapes.slice_in_dim(_argsort(in_bottom, -1, stable=True), 0, n - kth - 1,
                              axis=-1)
    return _from_last(shapes.concatenate([bottom, top], np.ndim(a) - 1), axis)


def argpartition(a, kth, axis=-1):
    a = ensure_arraylike("argpartition", a)
    if dtypes.is_complex(dtype_of(a)):
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    if np.ndim(a) == 0:
        raise TypeError("Cannot partition a 0-dimensional array")
    axis = canonicalize_axis(axis, np.ndim(a))
    kth = canonicalize_axis(operator.index(kth), np.shape(a)[axis])
    return _argpartition(a, kth, axis)


# ----------------------------------------------------------------------------------------
# searchsorted / digitize
# ----------------------------------------------------------------------------------------


def _canon_nan_zero(x):
    """-0 as +0 (they sort equal); NaNs compare through isnan below."""
    if dtypes.is_float(dtype_of(x)):
        return lax.add(x, full_like(x, 0))
    return x


def _lt_total(x, y):
    """x < y in the sort order: NaN is greater than every number and equal to NaN."""
    if dtypes.is_complex(dtype_of(x)):
        xr, xi, yr, yi = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
        return lax.bitwise_or(_lt_total(xr, yr), lax.bitwise_and(
            lax.eq(xr, yr), _lt_total(xi, yi)))
    if not dtypes.is_float(dtype_of(x)):
        return lax.lt(x, y)
    x_nan, y_nan = lax.ne(x, x), lax.ne(y, y)
    return lax.bitwise_and(lax.bitwise_not(x_nan),
                           lax.bitwise_or(y_nan, lax.lt(_canon_nan_zero(x),
                                                        _canon_nan_zero(y))))


@jit_like_jax("searchsorted", static_argnames=("side", "method"))
def _searchsorted(a, v, side="left", method="scan"):
    a, v = promote_dtypes(a, v)
    a_b = shapes.expand_dims(a, tuple(range(np.ndim(v))))
    v_b = shapes.expand_dims(v, (np.ndim(v),))
    if side == "left":
        before = _lt_total(a_b, v_b)
    else:
        before = lax.bitwise_not(_lt_total(v_b, a_b))
    counts = lax.convert_element_type(before, dtypes.default_int_dtype())
    return lred.reduce_sum(counts, (np.ndim(v),))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    a, v = ensure_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                         "['left', 'right'].")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"{method!r} is an invalid value for keyword 'method'. Expected "
                         "one of ['sort', 'scan', 'scan_unrolled', 'compare_all'].")
    if np.ndim(a) != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        from didax._src.numpy.indexing_ops import take  # noqa: PLC0415

        a = take(a, ensure_arraylike("searchsorted", sorter), mode="clip")
    if np.shape(a)[0] == 0:
        return full(np.shape(v), 0, dtypes.default_int_dtype())
    return _searchsorted(a, v, side, method)


def digitize(x, bins, right=False, *, method=None):
    x, bins = ensure_arraylike("digitize", x, bins)
    right = bool(right)
    if np.ndim(bins) != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if np.shape(bins)[0] == 0:
        return full(np.shape(x), 0, np.int32)
    from didax._src.numpy.util import where3  # noqa: PLC0415

    side = "left" if right else "right"
    kw = {"method": method} if method is not None else {}
    asc = searchsorted(bins, x, side=side, **kw)
    desc = lax.sub(core.typed_scalar(np.shape(bins)[0], dtype_of(asc)),
                   searchsorted(shapes.rev(bins, (0,)), x, side=side, **kw))
    return where3(lax.ge(shapes.index_in_dim(bins, np.shape(bins)[0] - 1, 0, False),
                         shapes.index_in_dim(bins, 0, 0, False)), asc, desc)

