"""`lax.reduce`: operands reduced along dimensions by a user computation.

A computation that is one of lax's monoids (`lax.add`, `lax.mul`, `lax.max`, `lax.min`,
and the bitwise and/or/xor on booleans) given its identity as the initial value becomes
that reduction primitive (`reduce_sum`, ...), as JAX does. Any other computation stages
the `reduce` primitive, which carries the computation traced on scalars as a jaxpr. Its
rules:
- eager evaluation: one XLA executable, cached by program text;
- abstract evaluation, with JAX's errors;
- a JVP: a tree reduction that applies the computation's JVP pairwise (JAX's method;
  the initial values must not be differentiated);
- batching;
- lowering to `stablehlo.reduce`, with the jaxpr as its body.

May import core, dtypes, array, the interpreters, lax and the control-flow helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.core import ClosedJaxpr, ShapedArray
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax as lax_
from didax._src.lax import reductions as lred
from didax._src.lax import select_convert, shapes
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.lax.control_flow import eager
from didax._src.tree_util import tree_flatten, tree_unflatten


def reduce(operands, init_values, computation: Callable, dimensions: Sequence[int]):
    """Reduces operands (a pytree of arrays) along `dimensions` with `computation`, a
    function of two pytrees of scalars shaped like init_values."""
    flat_ops, op_tree = tree_flatten(operands)
    flat_init, init_tree = tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: "
                         f"{op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_init):
        raise ValueError(f"Must have same total number of operands as init_values:  "
                         f"{len(flat_ops)} vs. {len(flat_init)}")
    dimensions = tuple(int(d) for d in dimensions)
    monoid = _monoid_reducer(computation, flat_init)
    if monoid is not None:
        (x,), (init,) = flat_ops, flat_init
        out = monoid(x, dimensions)
        weak = _weak(x) and _weak(init)  # the reducers alone would drop it
        return tree_unflatten(op_tree, [select_convert._convert_element_type(
            out, core.get_aval(out).dtype, weak)])
    init_avals = [core.get_aval(v) for v in flat_init]
    jaxpr, out_tree = _computation_jaxpr(computation, init_tree, init_avals)
    if out_tree != init_tree:
        raise TypeError(f"reduce: the computation must return a pytree like init_values "
                        f"({init_tree}), got {out_tree}")
    outs = reduce_p.bind(*flat_ops, *flat_init, computation=computation, jaxpr=jaxpr,
                         dimensions=dimensions)
    return tree_unflatten(op_tree, outs)


def _computation_jaxpr(computation, tree, avals):
    """computation(x, y) on two pytrees of scalars, traced flat: (ClosedJaxpr, out tree)."""
    n = len(avals)
    store: dict = {}

    def flat(*args):
        out = computation(tree_unflatten(tree, args[:n]), tree_unflatten(tree, args[n:]))
        leaves, store["tree"] = tree_flatten(out)
        return leaves
    closed = pe.trace_to_closed_jaxpr(flat, [*avals, *avals], "reduce")
    return closed, store["tree"]


def _weak(x) -> bool:
    return bool(getattr(core.get_aval(x), "weak_type", False))


def _monoid_reducer(computation, flat_init):
    """The reduction primitive's wrapper for a monoid with its identity, else None."""
    if len(flat_init) != 1:
        return None
    init = flat_init[0]
    val = core.concrete_value_of(init)
    if val is None or np.shape(val) != ():
        return None
    dt = core.get_aval(init).dtype
    val = np.asarray(val)
    candidates = {lax_.add: (lred.reduce_sum, 0), lax_.mul: (lred.reduce_prod, 1),
                  lax_.max: (lred.reduce_max, _lowest(dt)),
                  lax_.min: (lred.reduce_min, _highest(dt))}
    if dt == np.bool_:
        candidates.update({lax_.bitwise_or: (lred.reduce_or, False),
                           lax_.bitwise_and: (lred.reduce_and, True),
                           lax_.bitwise_xor: (lred.reduce_xor, False)})
    reducer, identity = candidates.get(computation, (None, None))
    if reducer is None or not np.equal(val, identity):
        return None
    return reducer


def _lowest(dt):
    if dtypes.is_inexact(dt):
        return -np.inf
    return False if dt == np.bool_ else dtypes.iinfo(dt).min


def _highest(dt):
    if dtypes.is_inexact(dt):
        return np.inf
    return True if dt == np.bool_ else dtypes.iinfo(dt).max


# ----------------------------------------------------------------------------------------
# The reduce primitive
# ----------------------------------------------------------------------------------------


def _split(args):
    n = len(args) // 2
    return list(args[:n]), list(args[n:])


def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    ops, inits = _split(avals)
    if [a.dtype for a in ops] != [a.dtype for a in inits]:
        raise TypeError(f"reduce operand dtypes should match corresponding initial value "
                        f"dtypes, got operands={list(ops)} and initial_values={list(inits)}")
    if any(a.shape for a in inits):
        raise ValueError(f"reduce found non-scalar initial value: "
                         f"{[a.shape for a in inits]}")
    shape = ops[0].shape
    if any(a.shape != shape for a in ops):
        raise ValueError(f"reduce found non-matching shapes: {[a.shape for a in ops]}")
    if any(not 0 <= d < len(shape) for d in dimensions) or len(set(dimensions)) != len(
            dimensions):
        raise ValueError(f"reduce dimensions {dimensions} are invalid for operand shape "
                         f"{shape}")
    out_shape = tuple(s for i, s in enumerate(shape) if i not in dimensions)
    return [ShapedArray(out_shape, o.dtype, o.weak_type and i.weak_type)
            for o, i in zip(ops, inits)]


def _reduce_eager(*args, computation, jaxpr, dimensions):
    eager.check_no_tracers(args)
    params = dict(computation=computation, jaxpr=jaxpr, dimensions=dimensions)
    avals = [core.get_aval(a) for a in args]
    out_avals = _reduce_abstract_eval(*avals, **params)
    outs = eager.run_compiled(reduce_p, jaxpr, args, params, out_avals)
    if outs is None:  # host callbacks inside: interpret the tree reduction instead
        ops, inits = _split(args)
        return _tree_reduce(_jaxpr_fun(jaxpr), inits, ops, dimensions)
    return outs


def _jaxpr_fun(jaxpr: ClosedJaxpr):
    return lambda *xs: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs)


def _elementwise(fun: Callable, ndim: int) -> Callable:
    """fun on scalars, applied elementwise to arrays of rank ndim (nested batching)."""
    for _ in range(ndim):
        fun = _batched(fun)
    return fun


def _batched(fun):
    def f(*xs):
        size = np.shape(xs[0])[0]
        outs, _ = batching.batch_flat(fun, batching.AxisData(None, size), xs,
                                      [0] * len(xs), [0] * len(xs))
        return outs
    return f


def _tree_reduce(reducer, inits, ops, dimensions):
    """The reduction as a balanced tree of pairwise reducer applications (after moving
    the reduced dimensions to the front, flattened into one): log2(n) steps."""
    shape = np.shape(ops[0])
    kept = [i for i in range(len(shape)) if i not in dimensions]
    n = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    out_shape = tuple(shape[i] for i in kept)
    xs = [shapes.reshape(shapes.transpose(x, (*dimensions, *kept)), (n, *out_shape))
          for x in ops]
    if n == 0:
        return [shapes.broadcast_in_dim(i, out_shape, ()) for i in inits]
    apply = _elementwise(reducer, len(out_shape) + 1)
    while np.shape(xs[0])[0] > 1:
        m = np.shape(xs[0])[0]
        half = (m + 1) // 2
        lo = [shapes.slice_in_dim(x, 0, half, axis=0) for x in xs]
        hi = [shapes.slice_in_dim(x, half, m, axis=0) for x in xs]
        if m - half != half:  # odd: pad the upper half with the initial values
            config = [(0, 1, 0)] + [(0, 0, 0)] * len(out_shape)
            hi = [shapes.pad(h, i, config) for h, i in zip(hi, inits)]
        xs = apply(*lo, *hi)
    return [shapes.reshape(x, out_shape) for x in xs]


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    ops, inits = _split(primals)
    t_ops, t_inits = _split(tangents)
    if any(type(t) is not Zero for t in t_inits):
        raise NotImplementedError("Gradient of general lax.reduce with non-zero tangents "
                                  "for initial values to reduction not implemented")
    t_ops = [ad.instantiate_zeros(t) for t in t_ops]
    reducer = _jaxpr_fun(jaxpr)
    return ad.jvp_flat(lambda *xs: _tree_reduce(reducer, inits, list(xs), dimensions),
                       ops, t_ops)


def _reduce_batch(axis_data, vals, dims, *, computation, jaxpr, dimensions):
    ops, inits = _split(vals)
    op_dims, init_dims = _split(dims)
    if any(d is not None for d in init_dims):
        raise NotImplementedError("vmap of lax.reduce over batched initial values")
    size = axis_data.size
    ops = [batching.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
    dims_b = tuple(d + 1 for d in dimensions)
    outs = reduce_p.bind(*ops, *inits, computation=computation, jaxpr=jaxpr,
                         dimensions=dims_b)
    return outs, [0] * len(outs)


def _reduce_lower(ctx, *args, computation, jaxpr, dimensions):
    fn = ctx.fn
    ops, inits = _split(args)
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[len(ops):]]

    def body(b, region_args):
        return lowering.lower_jaxpr_body(b, jaxpr.jaxpr, jaxpr.consts, region_args, None)
    region = fn.region([*scalars, *scalars], body)
    return fn.op("stablehlo.reduce", [*ops, *inits], list(ctx.avals_out),
                 f"dimensions = {lowering.i64_array(dimensions)}", [region])


class _Shown:
    """A callable parameter as JAX prints it (its address masked, so text is stable)."""

    __slots__ = ("text",)

    def __init__(self, f):
        self.text = f"<function {getattr(f, '__qualname__', type(f).__name__)} at 0xXXXXXXXXXXXX>"

    def __repr__(self):
        return self.text

    __str__ = __repr__


def _pp_params(eqn):
    return [(k, _Shown(v) if k == "computation" else v) for k, v in sorted(eqn.params.items())]


reduce_p = def_primitive(
    "reduce", abstract_eval=_reduce_abstract_eval, impl=None, eager_impl=_reduce_eager,
    jvp=_reduce_jvp, transpose=NONLINEAR, batch=_reduce_batch, lower=_reduce_lower,
    multiple_results=True,
    pp_params=_pp_params)
reduce_p.is_higher_order = True  # (it carries the computation's jaxpr)
