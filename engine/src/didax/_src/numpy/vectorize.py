"""Function transformations of didax.numpy built on the batching interpreter: vectorize
(generalized-ufunc signatures, excluded arguments, broadcasting of loop dimensions),
apply_along_axis, apply_over_axes, and the `ufunc` class (`jnp.frompyfunc`) with outer,
reduce, accumulate, reduceat and at.

May import core, dtypes, array, the interpreters (batching), tree_util and the numpy
implementation modules below (util, manipulation, reductions, ...).
"""

from __future__ import annotations

import functools
import re

import numpy as np

from didax._src import tree_util
from didax._src.interpreters import batching
from didax._src.numpy.array_creation import asarray
from didax._src.numpy.manipulation import expand_dims, moveaxis, squeeze
from didax._src.numpy.util import broadcast_shapes_checked, to_array


def vmap_simple(fun, in_axes):
    """A vmap for this package (the public one lives above it): positional arguments,
    int-or-None in_axes, every output batched along axis 0."""
    def mapped(*args):
        size = next(np.shape(a)[d] for a, d in zip(args, in_axes) if d is not None)
        store = {}

        def flat_fun(*xs):
            leaves, store["tree"] = tree_util.tree_flatten(fun(*xs))
            return leaves
        data = batching.AxisData(None, size, None)
        outs, dims = batching.batch_flat(flat_fun, data, list(args), list(in_axes))
        outs = [to_array(batching.matchaxis(size, d, 0, o)) for o, d in zip(outs, dims)]
        return tree_util.tree_unflatten(store["tree"], outs)
    return mapped


# ----------------------------------------------------------------------------------------
# vectorize
# ----------------------------------------------------------------------------------------

_DIM = r"\w+"
_CORE = rf"(?:{_DIM}(?:,{_DIM})*)?"
_ARGS = rf"\({_CORE}\)(?:,\({_CORE}\))*"
_SIGNATURE = rf"^{_ARGS}->{_ARGS}$"


def _parse_signature(signature):
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    args, retvals = signature.split("->")

    def parse(s):
        return [tuple(re.findall(_DIM, a)) for a in re.findall(rf"\(({_CORE})\)", s)]
    return parse(args), parse(retvals)


def _apply_excluded(func, excluded, args, kwargs):
    if not excluded:
        return func, args, kwargs
    dyn = [a for i, a in enumerate(args) if i not in excluded]
    dyn_kw = {k: v for k, v in kwargs.items() if k not in excluded}
    static = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
              if i < len(args)]
    static_kw = {k: v for k, v in kwargs.items() if k in excluded}

    def new_func(*a, **kw):
        a = list(a)
        for i, v in static:
            a.insert(i, v)
        return func(*a, **kw, **static_kw)
    return new_func, dyn, dyn_kw


def _dim_sizes(args, core_dims):
    sizes: dict[str, int] = {}
    loop_shapes = []
    for a, dims in zip(args, core_dims):
        if np.ndim(a) < len(dims):
            raise ValueError(f"input with shape {np.shape(a)} does not have enough "
                             f"dimensions for all core dimensions {dims}")
        core = np.shape(a)[np.ndim(a) - len(dims):]
        for name, n in zip(dims, core):
            if sizes.setdefault(name, n) != n:
                raise ValueError(f"inconsistent size for core dimension {name!r}: {n} vs "
                                 f"{sizes[name]}")
        loop_shapes.append(np.shape(a)[:np.ndim(a) - len(dims)])
    return broadcast_shapes_checked(*loop_shapes), sizes


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    if any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, "
                        f"but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if kwargs:
            func = functools.partial(func, **kwargs)
        in_dims = _parse_signature(signature)[0] if signature else [()] * len(args)
        if len(in_dims) != len(args):
            raise TypeError(f"wrong number of positional arguments: expected "
                            f"{len(in_dims)}, got {len(args)}")
        args = [asarray(a) for a in args]
        loop_shape, _ = _dim_sizes(args, in_dims)
        return _vectorized_call(func, args, in_dims, loop_shape)
    return wrapped


def _vectorized_call(func, args, in_dims, loop_shape):
    squeezed, rev_shapes = [], []
    for a, dims in zip(args, in_dims):
        loop = np.shape(a)[:np.ndim(a) - len(dims)]
        rev_shapes.append(((1,) * (len(loop_shape) - len(loop)) + loop)[::-1])
        ones = tuple(i for i, n in enumerate(loop) if n == 1)
        squeezed.append(squeeze(a, ones) if ones else a)
    fn, expand = func, []
    for negdim, sizes in enumerate(zip(*rev_shapes)):
        axes = tuple(None if n == 1 else 0 for n in sizes)
        if all(ax is None for ax in axes):
            expand.append(len(loop_shape) - 1 - negdim)
        else:
            fn = vmap_simple(fn, axes)
    out = fn(*squeezed)
    if not expand:
        return out
    if isinstance(out, tuple):
        return tuple(expand_dims(r, expand) for r in out)
    return expand_dims(out, expand)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = asarray(arr)
    nd = np.ndim(arr)
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    axis %= nd

    def fn(a):
        return func1d(a, *args, **kwargs)
    for i in range(1, nd - axis):
        fn = _vmap_one(fn, i, -1)
    for _ in range(axis):
        fn = _vmap_one(fn, 0, 0)
    return fn(arr)


def _vmap_one(fn, in_axis, out_axis):
    """fn mapped over axis in_axis of its single argument, outputs batched at out_axis."""
    def mapped(a):
        out = vmap_simple(fn, (in_axis,))(a)
        return moveaxis(out, 0, out_axis) if out_axis != 0 else out
    return mapped


def apply_over_axes(func, a, axes):
    a = asarray(a)
    for axis in axes:
        b = func(a, axis=axis)
        if np.ndim(b) == np.ndim(a):
            a = b
        elif np.ndim(b) == np.ndim(a) - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a

__all__ = [
    "vectorize",
    "apply_along_axis",
    "apply_over_axes",
]
