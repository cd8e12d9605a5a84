"""Vectorization (vmap): `BatchTrace`/`BatchTracer` carry a value and the index of its
batch dimension (`not_mapped` = None for values shared by every lane). Each primitive's
batching rule maps batched operands to a batched result and the result's batch dimension.

Rule table owned here: `primitive_batchers` (rule(axis_data, vals, dims, **params) ->
(out, out_dim)). Helpers: `defvectorized`, `defbroadcasting`, `defreducer`.
May import core, util.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from didax._src import core
from didax._src.core import Primitive, Trace, Tracer, get_aval, set_current_trace

not_mapped = None

primitive_batchers: dict[Primitive, Callable] = {}
# Collectives over named axes (psum, axis_index, ...): their rule runs even when no operand
# is batched, because the vmapped axis may be the one they reduce over or index.
axis_primitive_batchers: dict[Primitive, Callable] = {}

# Installed by didax.lax: structural helpers the rules need (moveaxis, broadcast).
lax_ops: dict[str, Callable] = {}


class AxisData(NamedTuple):
    name: Any
    size: int
    spmd_name: Any = None


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self):
        aval = get_aval(self.val)
        bd = self.batch_dim
        if bd is None:
            return aval
        shape = aval.shape[:bd] + aval.shape[bd + 1:]
        if type(aval) is not core.ShapedArray:  # e.g. a batched ref: Ref{f32[n]}
            return aval.update(shape=shape)
        return core.ShapedArray(shape, aval.dtype, aval.weak_type)

    def to_concrete_value(self):
        return None

    def __repr__(self):
        w = "~" if self.aval.weak_type else ""
        a = self.aval
        inner = get_aval(self.val)
        return (f"VmapTracer(aval={w}{a.dtype.name}[{','.join(map(str, a.shape))}], "
                f"batched={inner.dtype.name}[{','.join(map(str, inner.shape))}])")


class BatchTrace(Trace):
    __slots__ = ("axis_data", "tag")

    def __init__(self, parent_trace, axis_data: AxisData):
        self.parent_trace = parent_trace
        self.axis_data = axis_data
        self.tag = object()

    def to_batch_info(self, x):
        if type(x) is BatchTracer and x._trace.tag is self.tag:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, args, params):
        vals, dims = [], []
        mapped = False
        tag = self.tag
        for x in args:
            if type(x) is BatchTracer and x._trace.tag is tag:
                vals.append(x.val)
                dims.append(x.batch_dim)
                mapped = mapped or x.batch_dim is not None
            else:
                vals.append(x)
                dims.append(not_mapped)
        with set_current_trace(self.parent_trace):
            rule = axis_primitive_batchers.get(primitive)
            if rule is None:
                if not mapped:
                    return primitive.bind(*vals, **params)
                rule = primitive_batchers.get(primitive)
            if rule is None:
                raise NotImplementedError(f"Batching rule for '{primitive}' not implemented")
            out, out_dim = rule(self.axis_data, vals, dims, **params)
        if primitive.multiple_results:
            return [self.new(o, d) for o, d in zip(out, out_dim)]
        return self.new(out, out_dim)

    def new(self, val, dim):
        if dim is None:
            return val
        return BatchTracer(self, val, dim)

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        return custom_rules["jvp"](self, primitive, fun, jvp, args,
                                   symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        return custom_rules["vjp"](self, primitive, fun, fwd, bwd, args, out_trees=out_trees,
                                   symbolic_zeros=symbolic_zeros)


# Installed by didax._src.custom_derivatives.
custom_rules: dict[str, Callable] = {}


def batch_flat(fun: Callable, axis_data: AxisData, args: Sequence[Any],
               in_dims: Sequence[int | None], out_dims_spec: Sequence[int | None] | None = None
               ) -> tuple[list, list]:
    """Runs fun over batched args; returns (outs, out_dims) (out_dims None = unbatched),
    or outputs moved to `out_dims_spec` when given."""
    trace = BatchTrace(core.trace_ctx.trace, axis_data)
    tracers = [trace.new(a, d) for a, d in zip(args, in_dims)]
    with set_current_trace(trace):
        outs = fun(*tracers)
    vals, dims = [], []
    for o in outs:
        v, d = trace.to_batch_info(o)
        vals.append(v)
        dims.append(d)
    if out_dims_spec is None:
        return vals, dims
    outs = [matchaxis(axis_data.size, d, spec, v) for v, d, spec in zip(vals, dims, out_dims_spec)]
    return outs, list(out_dims_spec)


# ----------------------------------------------------------------------------------------
# Helpers for rules
# ----------------------------------------------------------------------------------------


def moveaxis(x, src: int, dst: int):
    if src == dst:
        return x
    return lax_ops["moveaxis"](x, src, dst)


def broadcast(x, size: int, axis: int):
    """Inserts a new axis of `size` at `axis` (x unbatched)."""
    return lax_ops["broadcast_batch"](x, size, axis)


def matchaxis(size: int, src: int | None, dst: int | None, x, sum_match: bool = False):
    """Moves x's batch dim from src to dst, broadcasting an unbatched x."""
    if src == dst:
        return x
    if src is None:
        if dst is None:
            return x
        return broadcast(x, size, dst)
    if dst is None:
        if sum_match:
            return lax_ops["reduce_sum"](x, (src,))
        raise ValueError(f"vmap has mapped output but out_axes is None (axis {src})")
    return moveaxis(x, src, dst)


def bdim_at_front(x, bdim: int | None, size: int):
    return matchaxis(size, bdim, 0, x)


def defvectorized(primitive: Primitive) -> None:
    """Elementwise unary primitive: the batch dim passes through untouched."""

    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        return primitive.bind(x, **params), d

    primitive_batchers[primitive] = rule


def broadcast_batcher(primitive: Primitive, axis_data, vals, dims, **params):
    """Elementwise n-ary primitive (operands of equal rank; size-1 dims and rank-0 scalars
    broadcast). When every non-scalar operand is batched alike, the batch dim stays put.
    Otherwise (as JAX does) batch dims move to the front, unbatched operands gain a size-1
    leading axis, and lower-rank batched operands gain trailing size-1 axes."""
    shape, d0 = next((np.shape(x), d) for x, d in zip(vals, dims) if d is not None)
    if all(np.shape(x) == shape and d == d0 for x, d in zip(vals, dims) if np.ndim(x)):
        return primitive.bind(*vals, **params), d0
    vals = [bdim_at_front(x, d, 1) if np.ndim(x) else x for x, d in zip(vals, dims)]
    nd = max(np.ndim(x) for x in vals)
    vals = [x if d is None or np.ndim(x) == nd
            else lax_ops["expand_dims"](x, tuple(range(np.ndim(x), nd)))
            for x, d in zip(vals, dims)]
    return primitive.bind(*vals, **params), 0


def defbroadcasting(primitive: Primitive) -> None:
    def rule(axis_data, vals, dims, **params):
        return broadcast_batcher(primitive, axis_data, vals, dims, **params)

    primitive_batchers[primitive] = rule


def defreducer(primitive: Primitive, axes_param: str = "axes") -> None:
    """Reductions over `axes`: shift the axes past the batch dim. (The shifted axes are
    NumPy integers, as JAX computes them; jaxprs print them as np.int64(...).)"""

    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        axes = params[axes_param]
        new_axes = tuple(np.where(np.less(axes, d), axes, np.add(axes, 1)))
        kept = list(np.delete(np.arange(np.ndim(x)), new_axes))
        new_params = dict(params)
        new_params[axes_param] = new_axes
        return primitive.bind(x, **new_params), int(kept.index(d))

    primitive_batchers[primitive] = rule
