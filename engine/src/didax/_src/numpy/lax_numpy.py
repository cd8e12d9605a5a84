"""Array creation, shape manipulation and products of didax.numpy: array/asarray (weak
typing of Python scalars), zeros/ones/full/arange/linspace/eye, reshape/transpose/
concatenate/stack/split/tile/repeat/pad/where, dot/matmul/outer/trace/diag/tril/triu.

May import core, dtypes, array, didax.lax and numpy.util/ufuncs/reductions.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import Tracer
from didax._src.lax import lax, reductions, shapes
from didax._src.numpy.util import (
    broadcast_to,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_shapes,
)

newaxis = None


def _canon_dtype(dtype):
    if dtype is None:
        return None
    return dtypes.check_and_canonicalize_user_dtype(dtype)


def _to_array(x):
    """A concrete Array (or a tracer) for any array-like."""
    if isinstance(x, (Array, Tracer)):
        return x
    if isinstance(x, core.TypedScalar):
        return Array(np.asarray(x.val, x.aval.dtype), x.aval)
    aval = core.get_aval(x)
    return Array(np.asarray(x, aval.dtype), aval)


def _nested_has_tracer(obj) -> bool:
    if isinstance(obj, (list, tuple)):
        return builtins.any(_nested_has_tracer(o) for o in obj)
    return isinstance(obj, (Tracer, Array))


def array(object: Any, dtype=None, copy: bool = True, order=None, ndmin: int = 0):
    """jnp.array: converts nested sequences, scalars and arrays (weakly typed for bare
    Python scalars, as in JAX)."""
    dtype = _canon_dtype(dtype)
    if isinstance(object, (list, tuple)) and _nested_has_tracer(object):
        if len(object) == 0:
            out = _to_array(np.array([], dtype or dtypes.default_float_dtype()))
        else:
            leaves = [array(o, dtype) for o in object]
            leaves = promote_dtypes(*leaves)
            out = shapes.concatenate([shapes.expand_dims(lf, (0,)) for lf in leaves], 0)
    elif isinstance(object, (Array, Tracer)):
        out = object
    elif isinstance(object, (int, float, complex, bool)):
        aval = core.get_aval(object)
        out = Array(np.asarray(object, aval.dtype), aval)
    elif hasattr(object, "__jax_array__"):
        return array(object.__jax_array__(), dtype, copy, order, ndmin)
    else:
        out = _from_host(object)
    if dtype is not None and core.get_aval(out).dtype != dtype:
        out = convert(out, dtype)
        out = _to_array(out)
    elif dtype is not None and core.get_aval(out).weak_type:
        out = _to_array(convert(out, dtype))
    if ndmin > np.ndim(out):
        out = shapes.reshape(out, (1,) * (ndmin - np.ndim(out)) + np.shape(out))
    return out


def _from_host(obj) -> Array:
    try:
        np_val = np.asarray(obj)
    except (ValueError, TypeError) as e:
        raise TypeError(f"Unexpected input type for array: {type(obj)}") from e
    if np_val.dtype == object:
        raise TypeError(f"Unexpected input type for array: {type(obj)}")
    if isinstance(obj, (list, tuple)):
        np_val = _infer_list_dtype(obj, np_val)
    dt = dtypes.canonicalize_dtype(np_val.dtype)
    return Array(np.asarray(np_val, dt), core.ShapedArray(np_val.shape, dt))


def _infer_list_dtype(obj, np_val):
    """Python lists of ints become the default int dtype, floats the default float."""
    leaves = []

    def walk(o):
        if isinstance(o, (list, tuple)):
            for e in o:
                walk(e)
        else:
            leaves.append(o)
    walk(obj)
    if leaves and builtins.all(type(v) in (int, float, complex, bool) for v in leaves):
        dt = dtypes.result_type(*leaves)
        return np.asarray(np_val, dtypes.canonicalize_dtype(dt))
    if leaves:
        dt = dtypes.result_type(*[v if type(v) in (int, float, complex, bool)
                                  else np.asarray(v) for v in leaves])
        return np.asarray(np_val, dtypes.canonicalize_dtype(dt))
    return np.asarray(np_val, dtypes.default_float_dtype())


def asarray(a: Any, dtype=None, order=None, *, copy=None):
    if isinstance(a, (Array, Tracer)) and dtype is None:
        return a
    return array(a, dtype=dtype, copy=False)


def zeros(shape, dtype=None):
    return _to_array(lax.full(_shape(shape), 0, _canon_dtype(dtype) or
                              dtypes.default_float_dtype()))


def ones(shape, dtype=None):
    return _to_array(lax.full(_shape(shape), 1, _canon_dtype(dtype) or
                              dtypes.default_float_dtype()))


def empty(shape, dtype=None):
    return zeros(shape, dtype)


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) or (hasattr(shape, "ndim") and shape.ndim == 0):
        return (operator.index(shape),)
    return tuple(operator.index(d) for d in shape)


def full(shape, fill_value, dtype=None):
    check_arraylike("full", fill_value)
    dtype = _canon_dtype(dtype)
    shape = _shape(shape)
    if np.ndim(fill_value) == 0:
        if dtype is None:
            dtype = dtypes.canonicalize_dtype(dtypes.dtype(fill_value))
        return _to_array(lax.full(shape, fill_value, dtype))
    fill = asarray(fill_value, dtype)
    return _to_array(broadcast_to(fill, shape))


def _like_dtype(a, dtype):
    return _canon_dtype(dtype) or core.get_aval(a).dtype


def zeros_like(a, dtype=None, shape=None):
    return _to_array(lax.full(np.shape(a) if shape is None else _shape(shape), 0,
                              _like_dtype(a, dtype)))


def ones_like(a, dtype=None, shape=None):
    return _to_array(lax.full(np.shape(a) if shape is None else _shape(shape), 1,
                              _like_dtype(a, dtype)))


def full_like(a, fill_value, dtype=None, shape=None):
    return full(np.shape(a) if shape is None else shape, fill_value, _like_dtype(a, dtype))


def empty_like(a, dtype=None, shape=None):
    return zeros_like(a, dtype, shape)


def _concrete_scalar(x, name):
    return core.concrete_or_error(None, x, f"The {name} argument of jnp.arange")


def arange(start, stop=None, step=None, dtype=None):
    """Concrete bounds only (the length must be static); integer ranges are an iota."""
    dtype = _canon_dtype(dtype)
    start = _concrete_scalar(start, "start")
    stop = None if stop is None else _concrete_scalar(stop, "stop")
    step = None if step is None else _concrete_scalar(step, "step")
    if stop is None and step is None:
        dt = dtype or dtypes.canonicalize_dtype(dtypes.result_type(start))
        n = builtins.max(int(np.ceil(np.asarray(start))), 0)
        if dtypes.is_int(dt):
            return _to_array(lax.iota(dt, n))
        return _to_array(np.arange(n, dtype=dt))
    args = [a for a in (start, stop, step) if a is not None]
    dt = dtype or dtypes.canonicalize_dtype(dtypes.result_type(*args))
    vals = np.arange(np.asarray(start), np.asarray(stop),
                     1 if step is None else np.asarray(step))
    return _to_array(np.asarray(vals, dt))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0):
    num = operator.index(core.concrete_or_error(operator.index, num, "num of linspace"))
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype = _canon_dtype(dtype)
    start, stop = asarray(start), asarray(stop)
    dt = dtype or dtypes.canonicalize_dtype(dtypes.to_inexact_dtype(
        dtypes.result_type(start, stop)))
    comp = dtypes.to_inexact_dtype(dt)
    start = convert(start, comp)
    stop = convert(stop, comp)
    div = (num - 1) if endpoint else num
    bshape = np.broadcast_shapes(np.shape(start), np.shape(stop))
    start = broadcast_to(start, bshape)
    stop = broadcast_to(stop, bshape)
    iota_shape = [1] * len(bshape)
    iota_shape.insert(axis % (len(bshape) + 1), num)
    ax = axis % (len(bshape) + 1)
    s = shapes.expand_dims(start, (ax,))
    e = shapes.expand_dims(stop, (ax,))
    delta = lax.sub(e, s)
    if num == 0:
        out = lax.full(tuple(bshape[:ax]) + (0,) + tuple(bshape[ax:]), 0, comp)
        step = lax.full(bshape, np.nan, comp)
    else:
        step = lax.div(delta, np.array(builtins.max(div, 1), comp))
        steps = lax.convert_element_type(shapes.broadcasted_iota(np.int32, iota_shape, ax), comp)
        out = lax.add(s, lax.mul(steps, step if div > 0 else lax.full_like(step, 0)))
        if endpoint and num > 1:
            out = _set_last(out, e, ax, num)
        out = broadcast_to(out, tuple(bshape[:ax]) + (num,) + tuple(bshape[ax:]))
    out = _to_array(convert(out, dt) if dt != comp else out)
    if retstep:
        return out, step
    return out


def _set_last(out, e, ax, num):
    shape = list(np.broadcast_shapes(np.shape(out), np.shape(e)))
    out = broadcast_to(out, shape)
    e = broadcast_to(e, tuple(1 if i == ax else d for i, d in enumerate(shape)))
    head = shapes.slice_in_dim(out, 0, num - 1, axis=ax)
    return shapes.concatenate([head, e], ax)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    lin = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    out = ufuncs.power(base, lin)
    return out if dtype is None else asarray(out, dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype=None):
    dtype = _canon_dtype(dtype) or dtypes.default_float_dtype()
    M = N if M is None else M
    rows = shapes.broadcasted_iota(np.int32, (N, M), 0)
    cols = shapes.broadcasted_iota(np.int32, (N, M), 1)
    return _to_array(lax.convert_element_type(lax.eq(lax.add(rows, np.int32(k)), cols), dtype))


def identity(n: int, dtype=None):
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):
    dtype = _canon_dtype(dtype) or dtypes.default_float_dtype()
    M = N if M is None else M
    rows = shapes.broadcasted_iota(np.int32, (N, M), 0)
    cols = shapes.broadcasted_iota(np.int32, (N, M), 1)
    return _to_array(lax.convert_element_type(lax.ge(lax.add(rows, np.int32(k)), cols), dtype))


# ----------------------------------------------------------------------------------------
# Shape manipulation
# ----------------------------------------------------------------------------------------


def shape(a):
    return np.shape(a)


def ndim(a):
    return np.ndim(a)


def size(a, axis=None):
    return int(np.prod(np.shape(a))) if axis is None else np.shape(a)[axis]


def _compute_newshape(a, newshape):
    size_ = int(np.prod(np.shape(a), dtype=np.int64))
    newshape = _shape(newshape) if not isinstance(newshape, int) else (newshape,)
    if newshape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension")
    if -1 in newshape:
        known = int(np.prod([d for d in newshape if d != -1], dtype=np.int64))
        if known == 0 or size_ % known:
            raise TypeError(f"cannot reshape array of shape {np.shape(a)} (size {size_}) into "
                            f"shape {newshape}")
        newshape = tuple(size_ // known if d == -1 else d for d in newshape)
    if int(np.prod(newshape, dtype=np.int64)) != size_:
        raise TypeError(f"cannot reshape array of shape {np.shape(a)} (size {size_}) into "
                        f"shape {newshape}")
    return newshape


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    a = asarray(a)
    new = _compute_newshape(a, shape)
    if order == "F":
        nd = np.ndim(a)
        return transpose(shapes.reshape(transpose(a), new[::-1]), tuple(range(len(new)))[::-1]
                         ) if nd else shapes.reshape(a, new)
    return shapes.reshape(a, new)


def ravel(a, order="C"):
    return reshape(a, (-1,), order)


def transpose(a, axes=None):
    a = asarray(a)
    nd = np.ndim(a)
    if axes is None:
        axes = tuple(range(nd))[::-1]
    axes = tuple(shapes.canonicalize_axis(ax, nd) for ax in axes)
    return shapes.transpose(a, axes)


permute_dims = transpose


def matrix_transpose(x):
    nd = np.ndim(x)
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={nd}")
    perm = list(range(nd))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return shapes.transpose(x, tuple(perm))


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    nd = np.ndim(a)
    perm = list(range(nd))
    i, j = shapes.canonicalize_axis(axis1, nd), shapes.canonicalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return shapes.transpose(a, tuple(perm))


def moveaxis(a, source, destination):
    a = asarray(a)
    nd = np.ndim(a)
    src = [shapes.canonicalize_axis(s, nd) for s in _tuple(source)]
    dst = [shapes.canonicalize_axis(d, nd) for d in _tuple(destination)]
    if len(src) != len(dst):
        raise ValueError("Inconsistent number of elements: "
                         f"{len(src)} vs {len(dst)}")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return shapes.transpose(a, tuple(perm))


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def squeeze(a, axis=None):
    a = asarray(a)
    shp = np.shape(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        axes = tuple(shapes.canonicalize_axis(ax, len(shp)) for ax in _tuple(axis))
    return shapes.squeeze(a, axes)


def expand_dims(a, axis):
    a = asarray(a)
    axes = _tuple(axis)
    nd = np.ndim(a) + len(axes)
    axes = tuple(shapes.canonicalize_axis(ax, nd) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in expand_dims: {axis}")
    return shapes.expand_dims(a, axes)


def atleast_1d(*arys):
    outs = [asarray(a) if np.ndim(a) >= 1 else reshape(a, (1,)) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*arys):
    outs = []
    for a in arys:
        a = asarray(a)
        nd = np.ndim(a)
        outs.append(a if nd >= 2 else reshape(a, (1,) * (2 - nd) + np.shape(a)))
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*arys):
    outs = []
    for a in arys:
        a = asarray(a)
        nd = np.ndim(a)
        if nd == 0:
            a = reshape(a, (1, 1, 1))
        elif nd == 1:
            a = reshape(a, (1, np.shape(a)[0], 1))
        elif nd == 2:
            a = reshape(a, np.shape(a) + (1,))
        outs.append(a)
    return outs[0] if len(outs) == 1 else outs


def broadcast_shapes(*shps):
    return tuple(np.broadcast_shapes(*shps))


def broadcast_arrays(*args):
    shp = np.broadcast_shapes(*[np.shape(a) for a in args])
    return [broadcast_to(asarray(a), shp) for a in args]


def broadcast_to_(array_, shape):
    return broadcast_to(asarray(array_), _shape(shape))


def concatenate(arrays, axis: int | None = 0, dtype=None):
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        arrays = [arrays[i] for i in range(np.shape(arrays)[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = [asarray(a) for a in arrays]
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    if builtins.any(np.ndim(a) == 0 for a in arrays):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = shapes.canonicalize_axis(axis, np.ndim(arrays[0]))
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        arrays = [convert(a, _canon_dtype(dtype)) for a in arrays]
    arrays = [_to_array(a) for a in arrays]
    return shapes.concatenate(arrays, axis)


concat = concatenate


def stack(arrays, axis: int = 0, out=None, dtype=None):
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    arrays = [asarray(a) for a in arrays]
    shp = np.shape(arrays[0])
    if builtins.any(np.shape(a) != shp for a in arrays):
        raise ValueError("All input arrays must have the same shape.")
    axis = shapes.canonicalize_axis(axis, len(shp) + 1)
    return concatenate([shapes.expand_dims(a, (axis,)) for a in arrays], axis, dtype)


def vstack(tup, dtype=None):
    return concatenate([atleast_2d(a) for a in tup], 0, dtype)


def hstack(tup, dtype=None):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, 0 if np.ndim(arrs[0]) == 1 else 1, dtype)


def dstack(tup, dtype=None):
    return concatenate([atleast_3d(a) for a in tup], 2, dtype)


def column_stack(tup):
    arrs = [reshape(a, (-1, 1)) if np.ndim(a) < 2 else asarray(a) for a in tup]
    return concatenate(arrs, 1)


def split(ary, indices_or_sections, axis: int = 0):
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis: int = 0):
    return _split("array_split", ary, indices_or_sections, axis)


def _split(name, ary, ios, axis):
    ary = asarray(ary)
    axis = shapes.canonicalize_axis(axis, np.ndim(ary))
    n = np.shape(ary)[axis]
    if isinstance(ios, (int, np.integer)):
        k = int(ios)
        if name == "split" and n % k:
            raise ValueError("array split does not result in an equal division: "
                             f"{n} % {k} != 0")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
    else:
        idx = [int(i) for i in np.asarray(ios)]
        bounds = [0] + [builtins.min(builtins.max(i, 0), n) for i in idx] + [n]
        sizes = [builtins.max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    return list(shapes.split(ary, sizes, axis))


def hsplit(ary, ios):
    return split(ary, ios, 1 if np.ndim(ary) > 1 else 0)


def vsplit(ary, ios):
    return split(ary, ios, 0)


def tile(A, reps):
    A = asarray(A)
    reps = _tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    nd = builtins.max(len(reps), np.ndim(A))
    reps = (1,) * (nd - len(reps)) + reps
    a_shape = (1,) * (nd - np.ndim(A)) + np.shape(A)
    A = shapes.reshape(A, a_shape)
    bshape = tuple(x for r, d in zip(reps, a_shape) for x in (r, d))
    dims = tuple(2 * i + 1 for i in range(nd))
    out = shapes.broadcast_in_dim(A, bshape, dims)
    return shapes.reshape(out, tuple(r * d for r, d in zip(reps, a_shape)))


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    axis = shapes.canonicalize_axis(axis, np.ndim(a))
    reps = core.concrete_or_error(np.asarray, repeats, "repeats of jnp.repeat")
    shp = np.shape(a)
    if reps.ndim == 0:
        r = int(reps)
        b = shapes.broadcast_in_dim(shapes.expand_dims(a, (axis + 1,)),
                                    shp[:axis + 1] + (r,) + shp[axis + 1:],
                                    tuple(range(len(shp) + 1)))
        return shapes.reshape(b, shp[:axis] + (shp[axis] * r,) + shp[axis + 1:])
    pieces = [shapes.slice_in_dim(a, i, i + 1, axis=axis) for i in range(shp[axis])]
    out = [repeat(p, int(r), axis) for p, r in zip(pieces, reps) if int(r) > 0]
    return concatenate(out, axis) if out else shapes.slice_in_dim(a, 0, 0, axis=axis)


def flip(m, axis=None):
    m = asarray(m)
    axes = tuple(range(np.ndim(m))) if axis is None else tuple(
        shapes.canonicalize_axis(a, np.ndim(m)) for a in _tuple(axis))
    return shapes.rev(m, axes)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), np.shape(a))
    shifts, axes = _tuple(shift), _tuple(axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    for s, ax in zip(shifts, axes):
        ax = shapes.canonicalize_axis(ax, np.ndim(a))
        n = np.shape(a)[ax]
        if n == 0:
            continue
        s = int(core.concrete_or_error(int, s, "shift of jnp.roll")) % n
        if s:
            a = shapes.concatenate([shapes.slice_in_dim(a, n - s, n, axis=ax),
                                    shapes.slice_in_dim(a, 0, n - s, axis=ax)], ax)
    return a


def pad(array_, pad_width, mode="constant", *, constant_values=0, **kwargs):
    array_ = asarray(array_)
    nd = np.ndim(array_)
    pw = np.asarray(pad_width, dtype=np.int64) if not isinstance(pad_width, int) else \
        np.full((nd, 2), pad_width, np.int64)
    pw = np.broadcast_to(pw, (nd, 2)) if pw.ndim < 2 or pw.shape[0] == 1 else pw
    if mode == "constant":
        cv = convert(constant_values, core.get_aval(array_).dtype)
        cfg = tuple((int(lo), int(hi), 0) for lo, hi in pw)
        return shapes.pad(array_, cv, cfg)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return _pad_nonconstant(array_, pw, mode)
    raise NotImplementedError(f"jnp.pad mode {mode!r} is not implemented")


def _pad_nonconstant(a, pw, mode):
    for ax in range(np.ndim(a)):
        lo, hi = int(pw[ax][0]), int(pw[ax][1])
        n = np.shape(a)[ax]
        idx_lo = [_pad_index(-i - 1, n, mode) for i in range(lo)][::-1]
        idx_hi = [_pad_index(n + i, n, mode) for i in range(hi)]
        parts = [shapes.slice_in_dim(a, i, i + 1, axis=ax) for i in idx_lo]
        parts.append(a)
        parts += [shapes.slice_in_dim(a, i, i + 1, axis=ax) for i in idx_hi]
        a = shapes.concatenate(parts, ax) if len(parts) > 1 else a
    return a


def _pad_index(i, n, mode):
    if mode == "edge":
        return builtins.min(builtins.max(i, 0), n - 1)
    if mode == "wrap":
        return i % n
    period = 2 * n - (2 if mode == "reflect" else 0)
    if period <= 0:
        return 0
    i = i % period
    if mode == "reflect":
        return i if i < n else period - i
    return i if i < n else period - i - 1


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    if x is None and y is None:
        from didax._src.numpy.indexing import nonzero  # noqa: PLC0415

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got {x} and {y}.")
    check_arraylike("where", condition, x, y)
    cond = condition
    if core.get_aval(cond).dtype != np.bool_:
        cond = lax.ne(cond, np.zeros((), core.get_aval(cond).dtype))
    x, y = promote_dtypes(x, y)
    shp = np.broadcast_shapes(np.shape(cond), np.shape(x), np.shape(y))
    cond, x, y = (broadcast_to(v, shp) for v in (cond, x, y))
    return lax.select(cond, x, y)


def select(condlist, choicelist, default=0):
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist")
    out = default
    for c, v in reversed(list(zip(condlist, choicelist))):
        out = where(c, v, out)
    return asarray(out)


def clip(arr=None, /, min=None, max=None, *, a=None, a_min=None, a_max=None):  # noqa: A002
    x = arr if arr is not None else a
    lo = min if min is not None else a_min
    hi = max if max is not None else a_max
    x = asarray(x)
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    if lo is not None:
        x = ufuncs.maximum(lo, x)
    if hi is not None:
        x = ufuncs.minimum(hi, x)
    return x


def round(a, decimals: int = 0, out=None):  # noqa: A001
    a = asarray(a)
    dt = core.get_aval(a).dtype
    if dtypes.is_int(dt):
        if decimals >= 0:
            return a
        factor = np.array(10 ** (-decimals), dt)
        return lax.mul(lax.round(lax.div(convert(a, np.float32), factor.astype(np.float32))
                                 ), factor)
    if dtypes.is_complex(dt):
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if decimals == 0:
        return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)
    factor = np.array(10.0 ** decimals, dt)
    return lax.div(lax.round(lax.mul(a, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)


around = round


# ----------------------------------------------------------------------------------------
# Products
# ----------------------------------------------------------------------------------------


def _prod_dtype(a, b, preferred_element_type):
    a, b = promote_dtypes(a, b)
    pet = _canon_dtype(preferred_element_type)
    return a, b, pet if pet is not None else core.get_aval(a).dtype


def matmul(a, b, *, precision=None, preferred_element_type=None):
    check_arraylike("matmul", a, b)
    a, b = asarray(a), asarray(b)
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        raise ValueError(f"matmul: Input operand {0 if na == 0 else 1} does not have enough "
                         "dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->"
                         "(n?,m?) requires 1)")
    a, b, pet = _prod_dtype(a, b, preferred_element_type)
    a_vec, b_vec = na == 1, nb == 1
    if a_vec:
        a = shapes.expand_dims(a, (0,))
    if b_vec:
        b = shapes.expand_dims(b, (1,))
    ka, kb = np.shape(a)[-1], np.shape(b)[-2]
    if ka != kb:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, "
                        f"got ({ka},) and ({kb},).")
    batch = np.broadcast_shapes(np.shape(a)[:-2], np.shape(b)[:-2])
    nbatch = len(batch)
    a = broadcast_to(a, batch + np.shape(a)[-2:]) if np.shape(a)[:-2] != batch else a
    b = broadcast_to(b, batch + np.shape(b)[-2:]) if np.shape(b)[:-2] != batch else b
    bd = tuple(range(nbatch))
    out = reductions.dot_general(a, b, (((nbatch + 1,), (nbatch,)), (bd, bd)),
                                 precision=precision, preferred_element_type=pet)
    if a_vec and b_vec:
        return shapes.squeeze(out, (nbatch, nbatch + 1))
    if a_vec:
        return shapes.squeeze(out, (nbatch,))
    if b_vec:
        return shapes.squeeze(out, (nbatch + 1,))
    return out


def dot(a, b, *, precision=None, preferred_element_type=None):
    check_arraylike("dot", a, b)
    a, b = asarray(a), asarray(b)
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

        return ufuncs.multiply(a, b)
    a, b, pet = _prod_dtype(a, b, preferred_element_type)
    rhs_c = 0 if nb == 1 else nb - 2
    return reductions.dot_general(a, b, (((na - 1,), (rhs_c,)), ((), ())),
                                  precision=precision, preferred_element_type=pet)


def vdot(a, b, *, precision=None):
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    a = ravel(a)
    if dtypes.is_complex(core.get_aval(a).dtype):
        a = ufuncs_math.conjugate(a)
    return dot(a, ravel(b), precision=precision)


def inner(a, b, *, precision=None):
    a, b = asarray(a), asarray(b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

        return ufuncs.multiply(a, b)
    a, b, pet = _prod_dtype(a, b, None)
    return reductions.dot_general(a, b, (((np.ndim(a) - 1,), (np.ndim(b) - 1,)), ((), ())),
                                  precision=precision)


def outer(a, b, out=None):
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    a, b = ravel(a), ravel(b)
    return ufuncs.multiply(shapes.expand_dims(a, (1,)), shapes.expand_dims(b, (0,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    a, b = asarray(a), asarray(b)
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        ax_a = tuple(range(na - axes, na))
        ax_b = tuple(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = tuple(shapes.canonicalize_axis(i, na) for i in _tuple(ax_a))
        ax_b = tuple(shapes.canonicalize_axis(i, nb) for i in _tuple(ax_b))
    a, b, pet = _prod_dtype(a, b, preferred_element_type)
    return reductions.dot_general(a, b, ((ax_a, ax_b), ((), ())), precision=precision,
                                  preferred_element_type=pet)


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    from didax._src.numpy import reductions as red  # noqa: PLC0415

    return red.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    a = asarray(a)
    nd = np.ndim(a)
    if nd < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    a1, a2 = shapes.canonicalize_axis(axis1, nd), shapes.canonicalize_axis(axis2, nd)
    a = moveaxis(a, (a1, a2), (-2, -1))
    n, m = np.shape(a)[-2:]
    rows = shapes.broadcasted_iota(np.int32, (n, m), 0)
    cols = shapes.broadcasted_iota(np.int32, (n, m), 1)
    mask = lax.eq(lax.add(rows, np.int32(offset)), cols)
    masked = lax.select(broadcast_to(mask, np.shape(a)), a, lax.full_like(a, 0))
    from didax._src.lax import reductions as lred  # noqa: PLC0415

    summed = lred.reduce_sum(masked, (np.ndim(a) - 2 if offset >= 0 else np.ndim(a) - 1,))
    length = builtins.max(0, builtins.min(n + builtins.min(offset, 0),
                                          m - builtins.max(offset, 0)))
    start = builtins.max(offset, 0) if offset >= 0 else builtins.max(-offset, 0)
    return shapes.slice_in_dim(summed, start, start + length, axis=-1)


def diag(v, k: int = 0):
    v = asarray(v)
    nd = np.ndim(v)
    if nd == 1:
        n = np.shape(v)[0] + builtins.abs(k)
        rows = shapes.broadcasted_iota(np.int32, (n, n), 0)
        cols = shapes.broadcasted_iota(np.int32, (n, n), 1)
        mask = lax.eq(lax.add(rows, np.int32(k)), cols)
        zero = np.zeros((), core.get_aval(v).dtype)
        # Entry (r, r + k) must read v[min(r, r + k)]: pad v so row r holds that value.
        vv = shapes.pad(v, zero, ((builtins.max(-k, 0), builtins.max(k, 0), 0),))
        col = shapes.broadcast_in_dim(vv, (n, n), (0,))
        return lax.select(mask, col, lax.full_like(col, 0))
    if nd == 2:
        return diagonal(v, k)
    raise ValueError("diag input must be 1d or 2d")


def tril(m, k: int = 0):
    m = asarray(m)
    n, c = np.shape(m)[-2:]
    mask = lax.ge(lax.add(shapes.broadcasted_iota(np.int32, (n, c), 0), np.int32(k)),
                  shapes.broadcasted_iota(np.int32, (n, c), 1))
    return lax.select(broadcast_to(mask, np.shape(m)), m, lax.full_like(m, 0))


def triu(m, k: int = 0):
    m = asarray(m)
    n, c = np.shape(m)[-2:]
    mask = lax.bitwise_not(lax.gt(lax.add(shapes.broadcasted_iota(np.int32, (n, c), 0),
                                          np.int32(k)),
                                  shapes.broadcasted_iota(np.int32, (n, c), 1)))
    return lax.select(broadcast_to(mask, np.shape(m)), m, lax.full_like(m, 0))


def astype(x, dtype, *, copy: bool = False, device=None):
    dtype = _canon_dtype(dtype)
    x = asarray(x)
    return _to_array(convert(x, dtype)) if core.get_aval(x).dtype != dtype or \
        core.get_aval(x).weak_type else x


def promote_types(a, b):
    return dtypes.promote_types(a, b)


def result_type(*args):
    return dtypes.canonicalize_dtype(dtypes.result_type(*args))


def iscomplexobj(x):
    return dtypes.is_complex(dtypes.dtype(x))


def isscalar(x):
    return np.ndim(x) == 0 and isinstance(x, (Array, Tracer, int, float, complex, bool,
                                              np.generic))


def array_equal(a1, a2, equal_nan=False):
    from didax._src.numpy import reductions as red  # noqa: PLC0415
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

    if np.shape(a1) != np.shape(a2):
        return asarray(False)
    eq = ufuncs.equal(a1, a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(ufuncs_math.isnan(a1), ufuncs_math.isnan(a2)))
    return red.all(eq)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    from didax._src.numpy import reductions as red  # noqa: PLC0415

    return red.all(isclose(a, b, rtol, atol, equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415
    from didax._src.numpy.util import promote_args_inexact  # noqa: PLC0415

    a, b = promote_args_inexact("isclose", a, b)
    dt = core.get_aval(a).dtype
    diff = ufuncs.absolute(ufuncs.subtract(a, b))
    tol = ufuncs.add(np.array(atol, dtypes.real_dtype(dt)),
                     ufuncs.multiply(np.array(rtol, dtypes.real_dtype(dt)), ufuncs.absolute(b)))
    out = ufuncs.less_equal(diff, tol)
    inf_eq = ufuncs.logical_and(ufuncs_math.isinf(a), ufuncs.equal(a, b))
    out = ufuncs.logical_or(out, inf_eq)
    if equal_nan:
        out = ufuncs.logical_or(out, ufuncs.logical_and(ufuncs_math.isnan(a), ufuncs_math.isnan(b)))
    return out


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable=True, descending=False):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    out = reductions.sort(a, dimension=axis, is_stable=stable)
    return flip(out, axis) if descending else out


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable=True,
            descending=False):
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = shapes.canonicalize_axis(axis, builtins.max(np.ndim(a), 1))
    idx = shapes.broadcasted_iota(dtypes.default_int_dtype(), np.shape(a), axis)
    if descending:
        from didax._src.numpy import ufuncs, ufuncs_math  # noqa: PLC0415

        a = flip(a, axis)
        _, perm = reductions.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
        n = np.shape(a)[axis]
        return flip(ufuncs.subtract(np.array(n - 1, core.get_aval(perm).dtype), perm), axis)
    _, perm = reductions.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
    return perm


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    args = [ravel(x) for x in xi]
    n = len(args)
    if indexing == "xy" and n >= 2:
        args[0], args[1] = args[1], args[0]
    shp = tuple(np.shape(a)[0] for a in args)
    outs = []
    for i, a in enumerate(args):
        if sparse:
            s = [1] * n
            s[i] = shp[i]
            outs.append(reshape(a, s))
        else:
            outs.append(shapes.broadcast_in_dim(a, shp, (i,)))
    if indexing == "xy" and n >= 2:
        outs = [swapaxes(o, 0, 1) for o in outs]
        outs[0], outs[1] = outs[1], outs[0]
    return outs

