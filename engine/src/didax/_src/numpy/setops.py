"""Set operations of didax.numpy: unique (index/inverse/counts, axis, equal_nan, and the
static `size`/`fill_value` that make it traceable), unique_values/counts/inverse/all,
isin, intersect1d, union1d, setdiff1d, setxor1d. Sorting finds the unique entries; with a
`size` the result is gathered at fixed length and padded.

May import core, dtypes, array, didax.lax and numpy.util/array_creation/manipulation/
reductions/sorting/indexing_ops/indexing.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.numpy import reductions as red
from didax._src.numpy.array_creation import zeros
from didax._src.numpy.indexing_ops import take
from didax._src.numpy.manipulation import concatenate, moveaxis, ravel, reshape
from didax._src.numpy.sorting import argsort, lexsort, sort
from didax._src.numpy.util import (
    canonicalize_axis,
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes,
    to_array,
    where3,
)

_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
              "specify a concrete value for the size argument, which will determine the "
              "output size.")


def _nonzero(mask, size=None, fill_value=None):
    from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

    return nonzero(mask, size=size, fill_value=fill_value)[0]


def _isnan(x):
    return lax.ne(x, x)


def _sorted_mask(ar, axis, equal_nan):
    """(sorted rows along axis, mask of first occurrences, sorting permutation)."""
    aux = moveaxis(ar, axis, 0)
    if dtypes.is_complex(dtype_of(aux)):
        aux = where3(_isnan(aux), np.nan, aux)
    n, *rest = np.shape(aux)
    if math.prod(rest) == 0:
        n, perm = 1, zeros(1, dtypes.default_int_dtype())
    elif rest:
        rows = reshape(aux, (n, math.prod(rest)))
        perm = lexsort(tuple(rows[:, k] for k in range(np.shape(rows)[1] - 1, -1, -1)))
    else:
        perm = argsort(aux)
    aux = take(aux, perm, axis=0, mode="clip") if np.size(aux) else aux
    if not np.size(aux):
        return aux, zeros(n, np.bool_), perm
    a, b = aux[1:], aux[:-1]
    neq = lax.ne(a, b)
    if dtypes.is_inexact(dtype_of(aux)) and equal_nan:
        neq = lax.bitwise_and(neq, lax.bitwise_not(lax.bitwise_and(_isnan(a), _isnan(b))))
    if np.ndim(neq) > 1:
        neq = red.any(neq, axis=tuple(range(1, np.ndim(neq))))
    mask = concatenate([np.ones(1, np.bool_), neq])
    return aux, mask, perm


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002
    arr = ensure_arraylike("unique", ar)
    if size is None:
        arr = to_array(core.concrete_or_error(
            None, arr, "The error arose for the first argument of jnp.unique(). " +
            _SIZE_HINT))
    else:
        size = core.concrete_or_error(operator.index, size, "The error arose for the size "
                                      "argument of jnp.unique(). " + _SIZE_HINT)
    shape = np.shape(arr)
    if axis is None:
        arr, ax = ravel(arr), 0
    else:
        ax = canonicalize_axis(axis, np.ndim(arr))
    out = _unique(arr, ax, return_index, return_inverse, return_counts, equal_nan, size,
                  fill_value)
    if return_inverse and axis is None:
        k = 2 if return_index else 1
        out = (*out[:k], reshape(out[k], shape), *out[k + 1:])
    return out


def _unique(ar, axis, return_index, return_inverse, return_counts, equal_nan, size,
            fill_value):
    if np.shape(ar)[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _sorted_mask(ar, axis, equal_nan)
    ind = _nonzero(mask, size=size)
    result = take(aux, ind, axis=0, mode="clip") if np.size(aux) else aux
    if size is not None and fill_value is not None:
        fill = lax.convert_element_type(ensure_arraylike("unique", fill_value),
                                        dtype_of(result))
        if np.shape(result)[0]:
            valid = lax.lt(shapes.iota(np.int32, size),
                           red.sum(mask, dtype=np.int32))
            valid = shapes.expand_dims(valid, tuple(range(1, np.ndim(result))))
            result = where3(valid, result, fill)
        else:
            from didax._src.numpy.util import broadcast_to  # noqa: PLC0415

            result = broadcast_to(fill, (size, *np.shape(result)[1:]))
    ret = (moveaxis(result, 0, axis),)
    if return_index:
        ret += (take(perm, ind, mode="clip") if np.size(aux) else perm,)
    if return_inverse:
        ret += (_inverse(ar, axis, aux, mask, perm),)
    if return_counts:
        ret += (_counts(ar, axis, aux, mask, size),)
    return ret[0] if len(ret) == 1 else ret


def _inverse(ar, axis, aux, mask, perm):
    int_dt = dtypes.default_int_dtype()
    if not np.size(aux):
        return zeros(np.shape(ar)[axis], int_dt)
    imask = lax.sub(red.cumsum(mask, dtype=int_dt), core.typed_scalar(1, int_dt))
    return zeros(np.shape(mask), int_dt).at[perm].set(imask)


def _counts(ar, axis, aux, mask, size):
    int_dt = dtypes.default_int_dtype()
    if np.size(aux):
        n = np.shape(mask)[0]
        if size is None:
            idx = concatenate([_nonzero(mask), np.array([n], int_dt)])
        else:
            idx = _nonzero(mask, size=size + 1)
            tail = idx[1:]
            idx = concatenate([idx[:1], where3(lax.ne(tail, core.typed_scalar(
                0, dtype_of(tail))), tail, n)])
        return lax.sub(idx[1:], idx[:-1])
    if np.shape(ar)[axis]:
        return lax.full((1,), np.shape(ar)[axis], int_dt)
    return zeros(0, int_dt)


class _UniqueAllResult(NamedTuple):
    values: object
    indices: object
    inverse_indices: object
    counts: object


class _UniqueCountsResult(NamedTuple):
    values: object
    counts: object


class _UniqueInverseResult(NamedTuple):
    values: object
    inverse_indices: object


def unique_values(x, /, *, size=None, fill_value=None):
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    return _UniqueAllResult(*unique(x, return_index=True, return_inverse=True,
                                   return_counts=True, equal_nan=False, size=size,
                                   fill_value=fill_value))


# ----------------------------------------------------------------------------------------
# Membership and two-set operations
# ----------------------------------------------------------------------------------------


def _in1d(ar1, ar2, invert):
    a1, a2 = promote_dtypes(ar1, ar2)
    a1, a2 = ravel(a1), ravel(a2)
    if not np.size(a1) or not np.size(a2):
        return lax.full(np.shape(a1), bool(invert), np.bool_)
    col, row = shapes.expand_dims(a1, (1,)), shapes.expand_dims(a2, (0,))
    if invert:
        return red.all(lax.ne(col, row), axis=-1)
    return red.any(lax.eq(col, row), axis=-1)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    element, test_elements = ensure_arraylike("isin", element, test_elements)
    if method not in ("auto", "compare_all", "binary_search", "sort"):
        raise ValueError(f"method={method!r} is not implemented; options are "
                         "'compare_all', 'binary_search', 'sort', and 'auto'")
    return reshape(_in1d_jit(element, test_elements, assume_unique=bool(assume_unique),
                             invert=bool(invert), method=method), np.shape(element))


@jit_like_jax("_in1d", static_argnames=("assume_unique", "invert", "method"))
def _in1d_jit(ar1, ar2, assume_unique=False, invert=False, method="auto"):
    return _in1d(ar1, ar2, invert)


def _fill_to_size(values, count, size, fill_value):
    """values (already gathered at length size) with entries past count set to
    fill_value, or (as JAX pads) to the smallest valid value when it is None."""
    valid = lax.lt(shapes.iota(np.int32, size), lax.convert_element_type(count, np.int32))
    if fill_value is not None:
        fill = lax.convert_element_type(ensure_arraylike("fill", fill_value),
                                        dtype_of(values))
        return where3(valid, values, fill)
    v = where3(valid, values, 0)
    v = where3(valid, v, red.max(v))
    return where3(valid, v, red.min(v))


def _concrete(x, where):
    return to_array(core.concrete_or_error(None, x, f"The error arose in {where}"))


def union1d(ar1, ar2, *, size=None, fill_value=None):
    ar1, ar2 = ensure_arraylike("union1d", ar1, ar2)
    if size is None:
        ar1, ar2 = _concrete(ar1, "union1d()"), _concrete(ar2, "union1d()")
    return unique(concatenate((ar1, ar2), axis=None), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    a1, a2 = ensure_arraylike("setdiff1d", ar1, ar2)
    a1, a2 = ravel(a1), ravel(a2)
    if size is None:
        a1 = _concrete(a1, "setdiff1d()")
        if not assume_unique:
            a1 = unique(a1)
        keep = core.concrete_or_error(np.asarray, _in1d(a1, a2, True), "setdiff1d()")
        return take(a1, np.nonzero(keep)[0].astype(np.int32), mode="clip")
    if not np.size(a1):
        return lax.full((size,), 0 if fill_value is None else fill_value, dtype_of(a1))
    if not assume_unique:
        n_unique = red.sum(_sorted_mask(a1, 0, True)[1], dtype=np.int32)
        a1 = unique(a1, size=np.size(a1))
    mask = _in1d(a1, a2, True)
    if not assume_unique:
        mask = lax.bitwise_and(mask, lax.lt(shapes.iota(np.int32, np.size(a1)), n_unique))
    picked = take(a1, _nonzero(mask, size=size), mode="clip")
    return _fill_to_size(picked, red.sum(mask, dtype=np.int32), size, fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    a1, a2 = ensure_arraylike("intersect1d", ar1, ar2)
    a1, a2 = promote_dtypes(ravel(a1), ravel(a2))
    if size is None:
        a1, a2 = _concrete(a1, "intersect1d()"), _concrete(a2, "intersect1d()")
    i1 = i2 = None
    if not assume_unique:
        if return_indices:
            a1, i1 = unique(a1, return_index=True, size=size and np.size(a1))
            a2, i2 = unique(a2, return_index=True, size=size and np.size(a2))
        else:
            a1 = unique(a1, size=size and np.size(a1))
            a2 = unique(a2, size=size and np.size(a2))
    aux = concatenate([a1, a2])
    order = argsort(aux)
    s = take(aux, order, mode="clip")
    both = lax.eq(s[1:], s[:-1])
    if size is not None and not assume_unique:
        both = lax.bitwise_and(both, _valid_pairs(order, a1, a2, ar1, ar2))
    ind = _nonzero(both, size=size)
    vals = take(s[:-1], ind, mode="clip")
    count = red.sum(both, dtype=np.int32)
    if size is not None:
        vals = _fill_to_size(vals, count, size, fill_value)
    if not return_indices:
        return vals
    n1 = np.size(a1)
    j1 = take(order[:-1], ind, mode="clip")
    j2 = lax.sub(take(order[1:], ind, mode="clip"), core.typed_scalar(n1, dtype_of(order)))
    if not assume_unique:
        j1, j2 = take(i1, j1, mode="clip"), take(i2, j2, mode="clip")
    if size is not None:
        valid = lax.lt(shapes.iota(np.int32, size), count)
        j1 = where3(valid, j1, np.size(ravel(ar1)))
        j2 = where3(valid, j2, np.size(ravel(ar2)))
    return vals, j1, j2


def _valid_pairs(order, a1, a2, ar1, ar2):
    """With a size, unique() pads with repeats of the first value; pairs made of padding
    entries must not count as common elements."""
    n1 = np.size(a1)
    u1 = red.sum(_sorted_mask(ravel(ar1), 0, True)[1], dtype=np.int32)
    u2 = red.sum(_sorted_mask(ravel(ar2), 0, True)[1], dtype=np.int32)
    pos = order
    real = where3(lax.lt(pos, core.typed_scalar(n1, dtype_of(pos))),
                  lax.lt(lax.convert_element_type(pos, np.int32), u1),
                  lax.lt(lax.sub(lax.convert_element_type(pos, np.int32), np.int32(n1)), u2))
    return lax.bitwise_and(real[1:], real[:-1])


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    a1, a2 = ensure_arraylike("setxor1d", ar1, ar2)
    a1, a2 = promote_dtypes(ravel(a1), ravel(a2))
    if size is None:
        a1, a2 = _concrete(a1, "setxor1d()"), _concrete(a2, "setxor1d()")
        if not assume_unique:
            a1, a2 = unique(a1), unique(a2)
        aux = concatenate([a1, a2])
        if not np.size(aux):
            return aux
        s = sort(aux)
        flag = np.concatenate([[True], np.asarray(lax.ne(s[1:], s[:-1])), [True]])
        return take(s, np.nonzero(flag[1:] & flag[:-1])[0].astype(np.int32), mode="clip")
    in1 = ravel(a1)
    only1 = _unique_not_in(in1, a2, assume_unique)
    only2 = _unique_not_in(ravel(a2), in1, assume_unique)
    both = concatenate([only1[0], only2[0]])
    keep = concatenate([only1[1], only2[1]])
    s, k = _sort_keep(both, keep)
    return _fill_to_size(take(s, _nonzero(k, size=size), mode="clip"),
                         red.sum(k, dtype=np.int32), size, fill_value)


def _unique_not_in(a, b, assume_unique):
    if not assume_unique:
        u = unique(a, size=np.size(a))
        n = red.sum(_sorted_mask(a, 0, True)[1], dtype=np.int32)
        valid = lax.lt(shapes.iota(np.int32, np.size(a)), n)
    else:
        u, valid = a, lax.full(np.shape(a), True, np.bool_)
    return u, lax.bitwise_and(valid, _in1d(u, b, True))


def _sort_keep(vals, keep):
    order = argsort(vals)
    return take(vals, order, mode="clip"), take(keep, order, mode="clip")
