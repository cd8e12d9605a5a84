"""`jnp.pad` with every NumPy mode: constant (per-axis/side values), edge, wrap,
reflect/symmetric (even and odd), linear_ramp, maximum/minimum/mean/median (with
stat_length), empty, and a user function. Built from slices, rev and concatenate, so it is
differentiable and batchable; the whole call is staged as `jit[name=_pad]` as in JAX.

May import core, dtypes, array, didax.lax and numpy.util/array_creation/manipulation/
reductions/statistics.
"""

from __future__ import annotations

import numpy as np

from didax._src import core
from didax._src.lax import lax, shapes
from didax._src.numpy import reductions, statistics
from didax._src.numpy.array_creation import asarray, linspace
from didax._src.numpy.manipulation import flip, repeat
from didax._src.numpy.util import (
    broadcast_to,
    convert,
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
    to_array,
)

_STAT_FUNCS = {"maximum": reductions.max, "minimum": reductions.min,
               "mean": reductions.mean, "median": statistics.median}
_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
          "reflect", "symmetric", "wrap", "empty")


def _pairs(vals, nd, name):
    """vals (int, pair, per-axis pairs, ...) as nd (before, after) pairs."""
    try:
        arr = np.asarray(core.concrete_or_error(
            np.asarray, vals, f"{name} argument of jnp.pad"))
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise TypeError(f"`{name}` entries must be the same shape: {vals}") from e
        raise
    if arr.dtype == object:
        raise TypeError(f"`{name}` entries must be the same shape: {vals}")
    if arr.shape == (nd, 2):
        return tuple((arr[i, 0], arr[i, 1]) for i in range(nd))
    if arr.shape == (1, 2):
        return ((arr[0, 0], arr[0, 1]),) * nd
    if arr.shape == (2,):
        return ((arr[0], arr[1]),) * nd
    if arr.shape in ((1,), ()):
        v = arr.reshape(())[()]
        return ((v, v),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {arr.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def pad(array, pad_width, mode="constant", **kwargs):
    array = ensure_arraylike("pad", array)
    nd = np.ndim(array)
    widths = tuple((int(a), int(b)) for a, b in _pairs(pad_width, nd, "pad_width"))
    if callable(mode):
        return _pad_func(array, widths, mode, **kwargs)
    allowed = {"constant": ["constant_values"], "edge": [], "linear_ramp": ["end_values"],
               "maximum": ["stat_length"], "mean": ["stat_length"],
               "median": ["stat_length"], "minimum": ["stat_length"],
               "reflect": ["reflect_type"], "symmetric": ["reflect_type"], "wrap": [],
               "empty": []}
    if mode not in allowed:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(allowed[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    stat_length = kwargs.get("stat_length")
    if stat_length is not None:
        stat_length = tuple((int(a), int(b)) for a, b in _pairs(stat_length, nd,
                                                                "stat_length"))
    end_values = _pairs(kwargs.get("end_values", 0), nd, "end_values")
    return _pad(array, widths, mode, kwargs.get("constant_values", 0), stat_length,
                tuple((float(a), float(b)) for a, b in end_values),
                kwargs.get("reflect_type", "even"))


@jit_like_jax("_pad", static_argnames=("pad_width", "mode", "stat_length", "end_values",
                                       "reflect_type"))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    if np.ndim(array) == 0:
        return array
    if any(a < 0 or b < 0 for a, b in pad_width):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, asarray(constant_values))
    if mode == "wrap":
        return _per_axis(array, pad_width, mode, _wrap_axis)
    if mode in ("reflect", "symmetric"):
        if reflect_type not in ("even", "odd"):
            raise ValueError(f"reflect_type must be 'even' or 'odd'; got {reflect_type}")
        return _per_axis(array, pad_width, mode,
                         lambda a, i, w: _reflect_axis(a, i, w, mode, reflect_type))
    if mode == "edge":
        return _per_axis(array, pad_width, mode, _edge_axis)
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, end_values)
    if mode in _STAT_FUNCS:
        return _pad_stats(array, pad_width, stat_length, _STAT_FUNCS[mode])
    return _pad_empty(array, pad_width)


def _pad_constant(array, widths, cvals):
    nd = np.ndim(array)
    cvals = convert(cvals, dtype_of(array), array.aval.weak_type)
    if np.ndim(cvals) == 0 or (np.ndim(cvals) == 1 and np.shape(cvals)[0] == 1):
        cval = cvals if np.ndim(cvals) == 0 else shapes.squeeze(cvals, (0,))
        return shapes.pad(array, cval, tuple((lo, hi, 0) for lo, hi in widths))
    if np.shape(cvals)[-1] != 2:
        raise ValueError("jnp.pad: constant_values has unsupported shape "
                         f"{np.shape(cvals)}. If the shape is 1D or 2D, the last dimension "
                         "must be of size 1 or 2.")
    cvals = broadcast_to(cvals, (nd, 2))
    for i, (lo, hi) in enumerate(widths):
        for side, w in ((0, lo), (1, hi)):
            if w:
                cfg = [(0, 0, 0)] * nd
                cfg[i] = (w, 0, 0) if side == 0 else (0, w, 0)
                array = shapes.pad(array, cvals[i, side], tuple(cfg))
    return array


def _per_axis(array, widths, mode, fn):
    for i, w in enumerate(widths):
        if np.shape(array)[i] == 0:
            if w[0] > 0 or w[1] > 0:
                raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
            continue
        if w != (0, 0):
            array = fn(array, i, w)
    return array


def _wrap_axis(a, i, w):
    n = np.shape(a)[i]
    lrep, lrem = divmod(w[0], n)
    rrep, rrem = divmod(w[1], n)
    parts = [shapes.slice_in_dim(a, n - lrem, n, axis=i)] if lrem else []
    parts += [a] * (lrep + rrep + 1)
    if rrem:
        parts.append(shapes.slice_in_dim(a, 0, rrem, axis=i))
    return shapes.concatenate(parts, i)


def _reflect_axis(a, i, w, mode, reflect_type):
    n = np.shape(a)[i]
    offset = 1 if mode == "reflect" and n > 1 else 0
    for before, total in ((True, w[0]), (False, w[1])):
        edge = _end_slice(a, i, before)
        while total > 0:
            size = np.shape(a)[i]
            chunk = min(total, n - offset)
            total -= chunk
            if before:
                x = shapes.slice_in_dim(a, offset, offset + chunk, axis=i)
            else:
                stop = size if (mode == "symmetric" or n == 1) else size - 1
                x = shapes.slice_in_dim(a, stop - chunk, stop, axis=i)
            x = flip(x, i)
            if reflect_type == "odd":
                x = lax.sub(lax.mul(core.typed_scalar(2, dtype_of(edge), True), edge), x)
                if n > 1:
                    edge = _end_slice(x, i, before)
            a = shapes.concatenate([x, a] if before else [a, x], i)
    return a


def _end_slice(a, i, first):
    n = np.shape(a)[i]
    return shapes.slice_in_dim(a, 0, 1, axis=i) if first else \
        shapes.slice_in_dim(a, n - 1, n, axis=i)


def _edge_axis(a, i, w):
    before = repeat(_end_slice(a, i, True), w[0], axis=i)
    after = repeat(_end_slice(a, i, False), w[1], axis=i)
    return shapes.concatenate([before, a, after], i)


def _pad_linear_ramp(array, widths, end_values):
    for i, (lo, hi) in enumerate(widths):
        parts = []
        for first, width, end in ((True, lo, end_values[i][0]), (False, hi, end_values[i][1])):
            edge = shapes.squeeze(_end_slice(array, i, first), (i,))
            ramp = linspace(end, edge, width, endpoint=False, dtype=dtype_of(array), axis=i)
            ramp = convert(ramp, dtype_of(array), array.aval.weak_type)
            parts.append(ramp if first else shapes.rev(ramp, (i,)))
        array = shapes.concatenate([parts[0], array, parts[1]], i)
    return array


def _pad_stats(array, widths, stat_length, stat_fn):
    for i, (lo, hi) in enumerate(widths):
        if stat_length is None:
            before = after = stat_fn(array, axis=i, keepdims=True)
        else:
            n = np.shape(array)[i]
            lb, la = stat_length[i]
            if lb == 0 or la == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            lb, la = min(lb, n), min(la, n)
            before = stat_fn(shapes.slice_in_dim(array, 0, lb, axis=i), axis=i, keepdims=True)
            after = stat_fn(shapes.slice_in_dim(array, n - la, n, axis=i), axis=i,
                            keepdims=True)
        if np.dtype(dtype_of(array)).kind in "iu":
            from didax._src.numpy.lax_numpy import round as _round  # noqa: PLC0415

            before, after = _round(before), _round(after)
        weak = array.aval.weak_type
        before = convert(before, dtype_of(array), weak)
        after = convert(after, dtype_of(array), weak)
        array = shapes.concatenate([repeat(before, lo, axis=i), array,
                                    repeat(after, hi, axis=i)], i)
    return array


def _pad_empty(array, widths):
    for i, (lo, hi) in enumerate(widths):
        shp = list(np.shape(array))
        parts = []
        for w in (lo, hi):
            shp[i] = w
            parts.append(shapes.broadcast_in_dim(core.typed_scalar(0, dtype_of(array)),
                                                 tuple(shp), ()))
        array = shapes.concatenate([parts[0], array, parts[1]], i)
    return array


def _pad_func(array, widths, func, **kwargs):
    out = shapes.pad(array, core.typed_scalar(0, dtype_of(array)),
                     tuple((lo, hi, 0) for lo, hi in widths))
    from didax._src.numpy.manipulation import moveaxis  # noqa: PLC0415

    for axis in range(np.ndim(out)):
        rows = moveaxis(out, axis, -1)
        shape = np.shape(rows)
        flat = shapes.reshape(rows, (int(np.prod(shape[:-1])), shape[-1]))
        done = [asarray(func(flat[k], widths[axis], axis, kwargs)) for k in
                range(np.shape(flat)[0])]
        from didax._src.numpy.manipulation import stack  # noqa: PLC0415

        out = moveaxis(shapes.reshape(stack(done), shape), -1, axis) if done else out
    return to_array(out)
