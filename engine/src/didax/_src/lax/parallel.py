"""Collectives over named axes: `psum`, `pmean`, `pmax`, `pmin`, `all_gather`,
`axis_index`, for the axes that `vmap(..., axis_name=)` and `pmap` bind.

A named axis is bound by an enclosing BatchTrace (vmap) or by the axis environment that
pmap/shard_map establish while they trace or transform a per-device body (`axis_env`).
Under vmap the collectives' batching rules turn the named axis into the batch axis (psum
becomes a psum over a positional axis, i.e. a sum; axis_index becomes an iota). In a
per-device XLA program (pmap's replicas) they lower to `stablehlo.all_reduce`,
`all_gather` and `replica_id` over all replicas of the module.

May import core, the interpreters, lax._define, lax.shapes, lax.slicing.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ShapedArray, Tracer
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters.ad import Zero
from didax._src.lax import shapes
from didax._src.lax._define import NONLINEAR, def_primitive, unsupported
from didax._src.lax.lax import convert_element_type
from didax._src.tree_util import tree_flatten, tree_map, tree_unflatten

# ----------------------------------------------------------------------------------------
# The axis environment
# ----------------------------------------------------------------------------------------

# Axes bound by pmap / shard_map bodies being traced or transformed: [(name, size)].
_axis_env: list[tuple[Any, int]] = []

# Module-cache key under which a per-device module records its replica axes {name: size}.
REPLICA_AXES = "replica_axes"


@contextlib.contextmanager
def axis_env(name, size: int):
    """Binds `name` (of `size`) while a per-device body is traced or transformed."""
    _axis_env.append((name, size))
    try:
        yield
    finally:
        _axis_env.pop()


def axis_size(name, prim_name: str = "psum") -> int:
    """The size of the named axis bound innermost (vmap or pmap), or NameError."""
    t = core.trace_ctx.trace
    while t is not None:
        data = getattr(t, "axis_data", None)
        if data is not None and data.name == name:
            return data.size
        t = getattr(t, "parent_trace", None)
    for n, size in reversed(_axis_env):
        if n == name:
            return size
    raise NameError(f"Found an unbound axis name: {name}. To fix this, please call "
                    f"{prim_name} under `jax.shard_map`.")


def _axes_tuple(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _split_axes(axes) -> tuple[tuple, tuple[int, ...]]:
    named = tuple(a for a in axes if not isinstance(a, int))
    pos = tuple(a for a in axes if isinstance(a, int))
    return named, pos


# ----------------------------------------------------------------------------------------
# psum / pmax / pmin: reductions over named (and positional) axes
# ----------------------------------------------------------------------------------------


def _reduce_abstract_eval(*avals, axes, axis_index_groups):
    _, pos = _split_axes(axes)
    return [ShapedArray(tuple(d for i, d in enumerate(a.shape) if i not in pos), a.dtype,
                        a.weak_type) for a in avals]


def _reduce_impl(np_fn, name):
    def impl(*args, axes, axis_index_groups):
        named, pos = _split_axes(axes)
        if named:
            raise NameError(f"Found an unbound axis name: {named[0]}. To fix this, please "
                            f"call {name} under `jax.shard_map`.")
        return [np_fn(x, axis=pos) if pos else x for x in args]
    return impl


def _reduce_batch(prim, unmapped):
    """Batching: the vmapped axis, if named, becomes the batch dimension (reduced; the
    result is unbatched); positional axes shift past the batch dimension."""

    def rule(axis_data, vals, dims, *, axes, axis_index_groups):
        outs, out_dims = [], []
        for x, d in zip(vals, dims):
            if d is None:
                new_axes = tuple(a for a in axes if a != axis_data.name)
                x = unmapped(x, axis_data.size) if len(new_axes) < len(axes) else x
                out = prim.bind(x, axes=new_axes, axis_index_groups=None) if new_axes else [x]
                outs.append(out[0])
                out_dims.append(None)
                continue
            if axis_data.name in axes and d != 0:
                x, d = batching.moveaxis(x, d, 0), 0
            new_axes = tuple(d if a == axis_data.name else
                             (a + (a >= d) if isinstance(a, int) else a) for a in axes)
            outs.append(prim.bind(x, axes=new_axes, axis_index_groups=None)[0])
            out_dims.append(None if d in new_axes else
                            d - sum(1 for a in new_axes if isinstance(a, int) and a < d))
        return outs, out_dims

    return rule


def _reduce_lower(opname, name):
    def rule(ctx, *args, axes, axis_index_groups):
        named, pos = _split_axes(axes)
        outs = []
        for x, aval_out in zip(args, ctx.avals_out):
            if named:
                x = _all_reduce(ctx, x, opname, named, name)
            if pos:
                init = ctx.fn.const(_identity(opname, x.aval.dtype),
                                    ShapedArray((), x.aval.dtype))
                x = lowering.reduce(ctx.fn, x, init, pos, opname, aval_out)
            outs.append(x)
        return outs

    return rule


def _identity(opname, dtype):
    dtype = np.dtype(dtype)
    if opname == "stablehlo.add":
        return np.zeros((), dtype)
    big = opname == "stablehlo.minimum"
    if dtypes.is_float(dtype):
        return np.array(np.inf if big else -np.inf, dtype)
    if dtype == np.bool_:
        return np.array(big, dtype)
    info = np.iinfo(dtype)
    return np.array(info.max if big else info.min, dtype)


def _replica_groups(ctx, named, name) -> str:
    axes = ctx.module.cache.get(REPLICA_AXES) or {}
    for a in named:
        if a not in axes:
            raise NameError(f"Found an unbound axis name: {a}. To fix this, please call "
                            f"{name} under `jax.shard_map`.")
    n = ctx.module.num_replicas
    ids = ", ".join(str(i) for i in range(n))
    return f"replica_groups = dense<[[{ids}]]> : tensor<1x{n}xi64>"


def _all_reduce(ctx, x, opname, named, name):
    groups = _replica_groups(ctx, named, name)
    region = lowering.reducer_region(ctx.fn, opname, x.aval.dtype)
    return ctx.fn.op1("stablehlo.all_reduce", [x], x.aval, groups, [region])


def _psum_jvp(primals, tangents, *, axes, axis_index_groups):
    outs = psum_p.bind(*primals, axes=axes, axis_index_groups=axis_index_groups)
    nz = [t for t in tangents if type(t) is not Zero]
    t_nz = iter(psum_p.bind(*nz, axes=axes, axis_index_groups=axis_index_groups)
                if nz else [])
    t_out = [Zero(core.get_aval(o).to_tangent_aval()) if type(t) is Zero else next(t_nz)
             for o, t in zip(outs, tangents)]
    return outs, t_out


def _psum_transpose(cts, *args, axes, axis_index_groups):
    """psum over named axes is its own transpose; positional axes broadcast back."""
    named, pos = _split_axes(axes)
    out = []
    for ct, x in zip(cts, args):
        if type(ct) is Zero:
            out.append(None)
            continue
        if named:
            ct = psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)[0]
        if pos:
            shape = x.aval.shape if ad.is_undefined_primal(x) else np.shape(x)
            kept = tuple(i for i in range(len(shape)) if i not in pos)
            ct = shapes.broadcast_in_dim(ct, shape, kept)
        out.append(ct)
    return out


psum_p = def_primitive(
    "psum", abstract_eval=_reduce_abstract_eval, impl=None,
    eager_impl=_reduce_impl(lambda x, axis: np.sum(x, axis=axis, dtype=np.asarray(x).dtype),
                            "psum"),
    jvp=_psum_jvp, transpose=_psum_transpose, batch=None,
    lower=_reduce_lower("stablehlo.add", "psum"), multiple_results=True)


def _def_extremum(name, np_fn, opname):
    prim = def_primitive(
        name, abstract_eval=_reduce_abstract_eval, impl=None,
        eager_impl=_reduce_impl(np_fn, name),
        jvp=unsupported(f"{name} is not differentiable (as in JAX)"), transpose=NONLINEAR,
        batch=None, lower=_reduce_lower(opname, name), multiple_results=True)
    rule = _reduce_batch(prim, lambda x, n: x)
    batching.primitive_batchers[prim] = rule
    batching.axis_primitive_batchers[prim] = rule
    return prim


pmax_p = _def_extremum("pmax", np.max, "stablehlo.maximum")
pmin_p = _def_extremum("pmin", np.min, "stablehlo.minimum")
_psum_rule = _reduce_batch(psum_p, lambda x, n: x * n)
batching.primitive_batchers[psum_p] = _psum_rule
batching.axis_primitive_batchers[psum_p] = _psum_rule


def no_index_groups(name: str, axis_index_groups) -> None:
    """Collectives over groups of an axis's members are not supported: say what to do."""
    if axis_index_groups is not None:
        raise NotImplementedError(
            f"jax.lax.{name} with axis_index_groups is not supported by didax; split the axis "
            "into two (a mesh axis or a vmap per group level) and name the inner one instead")


def _bind_reduction(prim, name, x, axis_name, axis_index_groups):
    no_index_groups(name, axis_index_groups)
    axes = _axes_tuple(axis_name)
    if not axes:
        return x
    named, _ = _split_axes(axes)
    sizes = [axis_size(a, name) for a in named]
    leaves, tree = tree_flatten(x)
    if name == "psum":
        leaves = [convert_element_type(v, np.int32)
                  if np.result_type(getattr(v, "dtype", type(v))) == np.bool_ else v
                  for v in leaves]
        if not any(isinstance(v, Tracer) for v in leaves):
            return tree_unflatten(tree, [_const_psum(v, axes, math.prod(sizes))
                                         for v in leaves])
    return tree_unflatten(tree, prim.bind(*leaves, axes=axes, axis_index_groups=None))


def _const_psum(v, axes, size):
    """psum of a value that is the same on every member: size times it (summed over any
    positional axes)."""
    _, pos = _split_axes(axes)
    if pos:
        from didax._src.lax.reductions import reduce_sum  # noqa: PLC0415

        v = reduce_sum(v, pos)
    return v * size


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of x over the named axes (a pytree of arrays)."""
    return _bind_reduction(psum_p, "psum", x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    return _bind_reduction(pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    return _bind_reduction(pmin_p, "pmin", x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean over the named axes: psum divided by the axes' total size."""
    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = psum(1, axis_name, axis_index_groups=axis_index_groups)
    return tree_map(lambda v: v / n, total)


# ----------------------------------------------------------------------------------------
# axis_index
# ----------------------------------------------------------------------------------------


def _axis_index_impl(*, axis_name):
    raise NameError(f"Found an unbound axis name: {axis_name}. To fix this, please call "
                    "axis_index under `jax.shard_map`.")


def _axis_index_batch(axis_data, vals, dims, *, axis_name):
    if axis_data.name == axis_name:
        return shapes.iota(np.int32, axis_data.size), 0
    return axis_index_p.bind(axis_name=axis_name), None


def _axis_index_lower(ctx, *, axis_name):
    _replica_groups(ctx, (axis_name,), "axis_index")
    rid = ctx.fn.op1("stablehlo.replica_id", [], ShapedArray((), np.uint32))
    return lowering.convert(ctx.fn, rid, np.int32)


axis_index_p = def_primitive(
    "axis_index", abstract_eval=lambda *, axis_name: ShapedArray((), np.int32), impl=None,
    eager_impl=_axis_index_impl, jvp=None, transpose=NONLINEAR, batch=_axis_index_batch,
    lower=_axis_index_lower)
batching.axis_primitive_batchers[axis_index_p] = _axis_index_batch
ad.defjvp_zero(axis_index_p)


def axis_index(axis_name):
    """This member's index along the named axis (an int32 scalar); for a tuple of axes,
    its index in their row-major product."""
    if isinstance(axis_name, (tuple, list)):
        out = None
        for name in axis_name:
            idx = axis_index(name)
            out = idx if out is None else out * axis_size(name, "axis_index") + idx
        return out
    axis_size(axis_name, "axis_index")
    return axis_index_p.bind(axis_name=axis_name)


# ----------------------------------------------------------------------------------------
# all_gather
# ----------------------------------------------------------------------------------------


def _gather_shape(shape, dim, size, tiled):
    shape = list(shape)
    if tiled:
        shape[dim] *= size
    else:
        shape.insert(dim, size)
    return tuple(shape)


def _all_gather_abstract_eval(x, *, all_gather_dimension, axis_index_groups, axis_name,
                              axis_size, tiled):
    return ShapedArray(_gather_shape(x.shape, all_gather_dimension, axis_size, tiled),
                       x.dtype, x.weak_type)


def _all_gather_batch(axis_data, vals, dims, *, all_gather_dimension, axis_index_groups,
                      axis_name, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(all_gather_dimension=all_gather_dimension, axis_index_groups=None,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name not in axis_name:
        if d is None:
            return all_gather_p.bind(x, axis_name=axis_name, **params), None
        dim = all_gather_dimension + (all_gather_dimension >= d)
        out = all_gather_p.bind(x, axis_name=axis_name, **dict(params,
                                                                  all_gather_dimension=dim))
        return out, d + (not tiled and dim <= d)
    if len(axis_name) > 1:
        raise NotImplementedError("all_gather over several named axes under vmap")
    if d is None:
        x = batching.broadcast(x, axis_data.size, 0)
        d = 0
    x = batching.moveaxis(x, d, all_gather_dimension)
    if tiled:
        shape = list(np.shape(x))
        shape[all_gather_dimension:all_gather_dimension + 2] = [
            shape[all_gather_dimension] * shape[all_gather_dimension + 1]]
        x = shapes.reshape(x, tuple(shape))
    return x, None


def _all_gather_lower(ctx, x, *, all_gather_dimension, axis_index_groups, axis_name,
                      axis_size, tiled):
    groups = _replica_groups(ctx, axis_name, "all_gather")
    dim = all_gather_dimension
    if not tiled:
        shape = _gather_shape(x.aval.shape, dim, 1, False)
        x = ctx.fn.op1("stablehlo.reshape", [x], ShapedArray(shape, x.aval.dtype))
    return ctx.fn.op1("stablehlo.all_gather", [x], ctx.avals_out[0],
                      f"all_gather_dim = {dim} : i64, {groups}")


def _all_gather_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    out = all_gather_p.bind(x, **params)
    if type(t) is Zero:
        return out, Zero(core.get_aval(out).to_tangent_aval())
    return out, all_gather_p.bind(t, **params)


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_index_groups, axis_name,
                          axis_size, tiled):
    """Each member's slice of the summed cotangent (a reduce-scatter)."""
    if type(ct) is Zero:
        return [None]
    summed = psum_p.bind(ct, axes=axis_name, axis_index_groups=None)[0]
    idx = axis_index_p.bind(axis_name=axis_name[0])
    if tiled:
        block = x.aval.shape[all_gather_dimension]
        return [shapes.dynamic_slice_in_dim(summed, idx * block, block, all_gather_dimension)]
    return [shapes.dynamic_index_in_dim(summed, idx, all_gather_dimension, keepdims=False)]


all_gather_p = def_primitive(
    "all_gather", abstract_eval=_all_gather_abstract_eval, impl=None,
    eager_impl=lambda x, *, axis_name, **_: _axis_index_impl(axis_name=axis_name[0]),
    jvp=_all_gather_jvp, transpose=_all_gather_transpose, batch=_all_gather_batch,
    lower=_all_gather_lower)
batching.axis_primitive_batchers[all_gather_p] = _all_gather_batch


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False):
    """Every member's x, stacked (or concatenated, if tiled) along `axis`."""
    no_index_groups("all_gather", axis_index_groups)
    names = _axes_tuple(axis_name)
    size = math.prod(axis_size(a, "all_gather") for a in names)

    def one(v):
        nd = np.ndim(v) + (not tiled)
        return all_gather_p.bind(v, all_gather_dimension=int(axis) % max(nd, 1),
                                 axis_index_groups=None, axis_name=names, axis_size=size,
                                 tiled=tiled)

    return tree_map(one, x)
