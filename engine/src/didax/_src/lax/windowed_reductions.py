"""Windowed reductions: `lax.reduce_window` (pooling) and the primitives JAX stages for it.

- `reduce_window_sum`, `reduce_window_max`, `reduce_window_min`: what `reduce_window` binds
  when the computation is lax.add/max/min with its identity as the initial value. The sum
  is linear (its transpose is a strided, padded sum); max and min differentiate through
  `select_and_gather_add` (the tangent at each window's chosen element), whose transpose is
  `select_and_scatter_add` (each window's cotangent added at its chosen element), JAX's
  method (jax/_src/lax/windowed_reductions.py).
- `reduce_window`: any other computation, carried as a jaxpr over scalars; it takes
  pytrees of operands, differentiates by reducing (primal, tangent) pairs with the
  computation's JVP, batches, and lowers to `stablehlo.reduce_window` with that body.

Every primitive runs eagerly as its own XLA executable (lax.dispatch), as under jit — except
max/min pooling and its pullback while an eager tape records or pulls back (lax/_pool_np).
May import core, dtypes, tree_util, the interpreters and lax.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, ShapedArray
from didax._src.interpreters import ad, batching, lowering, tape
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero, is_undefined_primal
from didax._src.interpreters.lowering import i64_array
from didax._src.lax import _pool_np, shapes, windowing
from didax._src.lax import lax as lax_
from didax._src.lax import reductions as lred
from didax._src.lax._define import COMPILED, NONLINEAR, def_primitive, on_numpy_while_taping
from didax._src.lax.slicing import lower_traced
from didax._src.tree_util import tree_flatten, tree_unflatten

_WINDOW = ("window_dimensions", "window_strides", "padding", "base_dilation",
           "window_dilation")


# ----------------------------------------------------------------------------------------
# shape rules
# ----------------------------------------------------------------------------------------


def _check_shapelike(fun: str, arg: str, obj, positive: bool = False) -> None:
    """JAX's validation of a window parameter (same messages)."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun} {arg} must be of type tuple/list/ndarray, got {type(obj)}.")
    if not len(obj):
        return
    arr = np.array(obj)
    if arr.ndim != 1:
        raise TypeError(f"{fun} {arg} must be 1-dimensional, got {arr.ndim}.")
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in obj):
        raise TypeError(f"{fun} {arg} must have every element be an integer type, got "
                        f"{tuple(map(type, obj))}.")
    lower, what = (1, "strictly positive") if positive else (0, "nonnegative")
    if not all(d >= lower for d in arr):
        raise TypeError(f"{fun} {arg} must have every element be {what}, got {obj}.")


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
    if base_dilation is not None:
        operand_shape = windowing.dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = windowing.dilate_shape(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding)]
    return tuple(windowing.stride_dim(p, w, s)
                 for p, w, s in zip(padded, window_dimensions, window_strides))


def _window_shape(operand, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation) -> tuple[int, ...]:
    fun = "reduce_window"
    _check_shapelike(fun, "window_dimensions", window_dimensions, positive=True)
    _check_shapelike(fun, "window_strides", window_strides, positive=True)
    _check_shapelike(fun, "base_dilation", base_dilation)
    _check_shapelike(fun, "window_dilation", window_dilation)
    if operand.ndim != len(window_dimensions):
        raise TypeError("reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {operand.shape} with window_dimensions "
                        f"{window_dimensions}.")
    for name, val in (("window_strides", window_strides), ("base_dilation", base_dilation),
                      ("window_dilation", window_dilation)):
        if len(val) != len(window_dimensions):
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: "
                            f"got {name} {val} and window_dimensions {window_dimensions}.")
    return tuple(int(d) for d in reduce_window_shape_tuple(
        operand.shape, window_dimensions, window_strides, padding, base_dilation,
        window_dilation))


def _window_attrs(window_dimensions, window_strides, padding, base_dilation,
                  window_dilation) -> str:
    n = len(window_dimensions)
    pads = (f"dense<[{', '.join(f'[{int(lo)}, {int(hi)}]' for lo, hi in padding)}]>" if n
            else "dense<>")
    return (f"base_dilations = {i64_array(base_dilation)}, padding = {pads} : "
            f"tensor<{n}x2xi64>, window_dilations = {i64_array(window_dilation)}, "
            f"window_dimensions = {i64_array(window_dimensions)}, "
            f"window_strides = {i64_array(window_strides)}")


def _insert_unit(axis: int, params: dict) -> dict:
    """The window parameters with a trivial window dimension inserted at `axis`."""
    def ins(seq, unit):
        seq = tuple(seq)
        return seq[:axis] + (unit,) + seq[axis:]
    return {"window_dimensions": ins(params["window_dimensions"], 1),
            "window_strides": ins(params["window_strides"], 1),
            "padding": ins(params["padding"], (0, 0)),
            "base_dilation": ins(params["base_dilation"], 1),
            "window_dilation": ins(params["window_dilation"], 1)}


# ----------------------------------------------------------------------------------------
# reduce_window_sum / max / min
# ----------------------------------------------------------------------------------------


def _monoid_abstract_eval(name: str):
    def rule(x, **window):
        if name == "reduce_window_sum" and not dtypes.issubdtype(x.dtype, np.number):
            raise TypeError(f"operand to reduce_window_sum must have a number dtype, got "
                            f"{np.dtype(x.dtype).name}")
        return ShapedArray(_window_shape(x, **window), x.dtype, x.weak_type)
    return rule


def _monoid_lower(kind: str, opname: str):
    def rule(ctx, x, **window):
        fn, dtype = ctx.fn, x.aval.dtype
        init = fn.const(lred._identity(dtype, kind), ShapedArray((), dtype))
        region = lowering.reducer_region(fn, opname, dtype)
        return fn.op1("stablehlo.reduce_window", [x, init], ctx.avals_out[0],
                      _window_attrs(**window), [region])
    return rule


def _monoid_batch(prim_ref: list):
    def rule(axis_data, vals, dims, **window):
        (x,), (d,) = vals, dims
        if d is None:
            return prim_ref[0].bind(x, **window), None
        return prim_ref[0].bind(x, **_insert_unit(d, window)), d
    return rule


def _sum_transpose(ct, x, *, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    """Each input element received the cotangents of every window it was in: the
    cotangent, dilated by the strides and padded, summed over the same (dilated) window."""
    in_shape = x.aval.shape
    pads = windowing.transpose_lhs_pads(in_shape, window_dimensions, window_strides,
                                        core.get_aval(ct).shape, padding, base_dilation,
                                        window_dilation)
    config = [(lo, hi, s - 1) for (lo, hi), s in zip(pads, window_strides)]
    padded = shapes.pad(ct, lax_._const(ct, 0), config)
    ones = (1,) * len(in_shape)
    return [_bind_monoid(reduce_window_sum_p, padded, window_dimensions, base_dilation,
                         ((0, 0),) * len(in_shape), ones, window_dilation)]


def _chooser_jvp(select_prim):
    def jvp(g, x, **window):
        return select_and_gather_add_p.bind(g, x, select_prim=select_prim, **window)
    return jvp


_sum_ref: list = []
_max_ref: list = []
_min_ref: list = []
reduce_window_sum_p = def_primitive(
    "reduce_window_sum", abstract_eval=_monoid_abstract_eval("reduce_window_sum"),
    impl=COMPILED, jvp=None, transpose=None, batch=_monoid_batch(_sum_ref),
    lower=_monoid_lower("sum", "stablehlo.add"))
ad.deflinear2(reduce_window_sum_p, _sum_transpose)
reduce_window_max_p = def_primitive(
    "reduce_window_max", abstract_eval=_monoid_abstract_eval("reduce_window_max"),
    impl=COMPILED, jvp=None, transpose=NONLINEAR, batch=_monoid_batch(_max_ref),
    lower=_monoid_lower("max", "stablehlo.maximum"))
reduce_window_min_p = def_primitive(
    "reduce_window_min", abstract_eval=_monoid_abstract_eval("reduce_window_min"),
    impl=COMPILED, jvp=None, transpose=NONLINEAR, batch=_monoid_batch(_min_ref),
    lower=_monoid_lower("min", "stablehlo.minimum"))
_sum_ref.append(reduce_window_sum_p)
_max_ref.append(reduce_window_max_p)
_min_ref.append(reduce_window_min_p)
ad.defjvp(reduce_window_max_p, _chooser_jvp(lax_.ge_p))
ad.defjvp(reduce_window_min_p, _chooser_jvp(lax_.le_p))


def _chooser_pullback(select_prim):
    """The eager tape's pullback: the transpose of the JVP's select_and_gather_add, i.e.
    select_and_scatter_add (no linearization on the spot)."""
    def pull(ct, ans, x, **window):
        if type(ct) is Array and type(ans) is Array:  # pooled on the host: choices known
            out = _pool_np.chosen_pullback(ct._value, ans._value)
            if out is not None:
                aval = core.get_aval(x)
                return [Array(out, ShapedArray(aval.shape, ct.aval.dtype,
                                               ct.aval.weak_type and aval.weak_type))]
        return _sgad_transpose(ct, ad.UndefinedPrimal(core.get_aval(x).to_tangent_aval()), x,
                               select_prim=select_prim, **window)[:1]
    return pull


def _bind_monoid(prim, x, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation):
    return prim.bind(x, window_dimensions=tuple(window_dimensions),
                     window_strides=tuple(window_strides), padding=tuple(padding),
                     base_dilation=tuple(base_dilation),
                     window_dilation=tuple(window_dilation))


# ----------------------------------------------------------------------------------------
# select_and_gather_add (JVP of max/min) and select_and_scatter_add (its transpose)
# ----------------------------------------------------------------------------------------


def _sgad_abstract_eval(tangents, operand, *, select_prim, **window):
    if tangents.shape != operand.shape:
        raise TypeError("select_and_gather_add tangents and operand shapes must match, got "
                        f"{tangents.shape} and {operand.shape}.")
    return ShapedArray(_window_shape(operand, **window), tangents.dtype,
                       tangents.weak_type and operand.weak_type)


def _select_identity(select_prim, dtype):
    return lred._identity(dtype, "max" if select_prim is lax_.ge_p else "min")


def _sgad_via_pairs(tangents, operand, *, select_prim, **window):
    """The tangent of each window's selected operand element, as a reduction of
    (operand, tangent) pairs (JAX's variadic reduce_window formulation)."""
    def choose(a, b):
        (ka, va), (kb, vb) = a, b
        pick = select_prim.bind(ka, kb)
        return lax_.select(pick, ka, kb), lax_.select(pick, va, vb)
    dtype = core.get_aval(operand).dtype
    init = (_select_identity(select_prim, dtype), np.zeros((), dtype))
    _, out = reduce_window((operand, tangents), init, choose, **window)
    return out


def _sgad_lower(ctx, tangents, operand, **params):
    return lower_traced(ctx, lambda t, x: _sgad_via_pairs(t, x, **params), tangents, operand)


def _sgad_transpose(t, tangents, operand, *, select_prim, window_dimensions, window_strides,
                    padding, base_dilation, window_dilation):
    assert is_undefined_primal(tangents) and not is_undefined_primal(operand)
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError("VJP not implemented for select_and_gather (MaxPool) with "
                                  f"window dilation, got window_dilation={window_dilation}.")
    if type(t) is Zero:
        return [Zero(tangents.aval), None]
    dilated = any(d != 1 for d in base_dilation)
    if dilated:  # the holes can never be selected
        ident = _select_identity(select_prim, core.get_aval(operand).dtype)
        operand = shapes.pad(operand, ident, tuple((0, 0, d - 1) for d in base_dilation))
    out = select_and_scatter_add_p.bind(
        t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding)
    if dilated:
        shape = core.get_aval(out).shape
        out = shapes.slice(out, (0,) * len(shape), shape, base_dilation)
    return [out, None]


def _pair_batch(prim_ref: list, windowed_keys: Sequence[str]):
    """Both operands' batch dims to the front, a trivial leading window dimension."""
    def rule(axis_data, vals, dims, **params):
        size = axis_data.size
        a, b = (batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims))
        full = _insert_unit(0, {k: params.get(k, ()) for k in _WINDOW})
        new = {**params, **{k: full[k] for k in windowed_keys}}
        return prim_ref[0].bind(a, b, **new), 0
    return rule


def _linear_in_first(prim_ref: list):
    def jvp(primals, tangents, **params):
        ans = prim_ref[0].bind(*primals, **params)
        t = tangents[0]
        if type(t) is Zero:
            return ans, Zero.from_primal_value(ans)
        return ans, prim_ref[0].bind(t, primals[1], **params)
    return jvp


_sgad_ref: list = []
select_and_gather_add_p = def_primitive(
    "select_and_gather_add", abstract_eval=_sgad_abstract_eval, impl=COMPILED,
    jvp=_linear_in_first(_sgad_ref), transpose=_sgad_transpose,
    batch=_pair_batch(_sgad_ref, _WINDOW), lower=_sgad_lower)
_sgad_ref.append(select_and_gather_add_p)


def _sas_abstract_eval(source, operand, *, select_prim, window_dimensions, window_strides,
                       padding):
    return ShapedArray(operand.shape, source.dtype, source.weak_type and operand.weak_type)


def _sas_transpose(t, source, operand, *, select_prim, window_dimensions, window_strides,
                   padding):
    assert is_undefined_primal(source) and not is_undefined_primal(operand)
    if type(t) is Zero:
        return [Zero(source.aval), None]
    ones = (1,) * len(window_dimensions)
    return [select_and_gather_add_p.bind(
        t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding, base_dilation=ones,
        window_dilation=ones), None]


def _disjoint_windows(window_dimensions, window_strides) -> bool:
    """No element lies in two windows (pooling's usual stride >= window)."""
    return all(s >= w for w, s in zip(window_dimensions, window_strides))


def _sas_disjoint(source, operand, select_prim, window_dimensions, window_strides):
    """select_and_scatter_add where windows never overlap, as elementwise code XLA fuses
    (its select_and_scatter loop is 3-15x slower on CPU for pooling's shapes). The same
    result bit for bit: each window's elements are visited in XLA's order (row-major),
    keeping the current choice while select(current, candidate) holds, and the chosen
    element receives 0 + source (every other element 0), as the scatter's add gives."""
    shape, n = core.get_aval(operand).shape, core.get_aval(source).shape
    offsets = list(itertools.product(*(range(w) for w in window_dimensions)))

    def window_element(off):  # element `off` of every window: a strided slice
        limit = tuple(o + (k - 1) * s + 1 for o, k, s in zip(off, n, window_strides))
        return shapes.slice(operand, off, limit, window_strides)
    chosen = window_element(offsets[0])
    which = shapes.full(n, 0, np.int32)
    for i, off in enumerate(offsets[1:], 1):
        x = window_element(off)
        keep = select_prim.bind(chosen, x)
        chosen = lax_.select(keep, chosen, x)
        which = lax_.select(keep, which, shapes.full(n, i, np.int32))
    dtype = core.get_aval(source).dtype
    zero, zeros, out = np.zeros((), dtype), shapes.full(n, 0, dtype), None
    for i, off in enumerate(offsets):
        part = lax_.select(lax_.eq(which, shapes.full(n, i, np.int32)), source, zeros)
        config = tuple((o, d - o - (k - 1) * s - 1, s - 1)
                       for o, d, k, s in zip(off, shape, n, window_strides))
        part = shapes.pad(part, zero, config)
        out = part if out is None else lax_.add(out, part)
    return out


def _sas_lower(ctx, source, operand, *, select_prim, window_dimensions, window_strides,
               padding):
    """XLA's select_and_scatter on the operand padded with the selection's identity (JAX
    pads explicitly on CPU), then the padding sliced off."""
    fn, dtype = ctx.fn, operand.aval.dtype
    shape, n = operand.aval.shape, len(window_dimensions)
    ident = _select_identity(select_prim, dtype)
    padded = lower_traced(ctx, lambda x: shapes.pad(
        x, ident, tuple((lo, hi, 0) for lo, hi in padding)), operand)
    if dtype != np.bool_ and _disjoint_windows(window_dimensions, window_strides) and \
            all(d > 0 for d in source.aval.shape):
        out = lower_traced(ctx, lambda s, x: _sas_disjoint(
            s, x, select_prim, window_dimensions, window_strides), source, padded)
        lo = tuple(p[0] for p in padding)
        return lower_traced(ctx, lambda r: shapes.slice(
            r, lo, tuple(a + s for a, s in zip(lo, shape))), out)
    scalar = ShapedArray((), dtype)
    direction = "GE" if select_prim is lax_.ge_p else "LE"
    select = fn.region([scalar, scalar], lambda b, a: [
        lowering.compare_op(b, a[0], a[1], direction, ShapedArray((), np.bool_))])
    combine = "stablehlo.or" if dtype == np.bool_ else "stablehlo.add"
    scatter = fn.region([scalar, scalar], lambda b, a: [b.op1(combine, a, scalar)])
    zero = fn.const(np.zeros((), dtype), scalar)
    attrs = (f"padding = {'dense<0>' if n else 'dense<>'} : tensor<{n}x2xi64>, "
             f"window_dimensions = {i64_array(window_dimensions)}, "
             f"window_strides = {i64_array(window_strides)}")
    out = fn.op1("stablehlo.select_and_scatter", [padded, source, zero],
                 ShapedArray(padded.aval.shape, dtype), attrs, [select, scatter])
    lo = tuple(p[0] for p in padding)
    return lower_traced(ctx, lambda r: shapes.slice(
        r, lo, tuple(a + s for a, s in zip(lo, shape))), out)


_sas_ref: list = []
select_and_scatter_add_p = def_primitive(
    "select_and_scatter_add", abstract_eval=_sas_abstract_eval, impl=COMPILED,
    jvp=_linear_in_first(_sas_ref), transpose=_sas_transpose,
    batch=_pair_batch(_sas_ref, ("window_dimensions", "window_strides", "padding")),
    lower=_sas_lower)
_sas_ref.append(select_and_scatter_add_p)
tape.pullbacks[reduce_window_max_p] = _chooser_pullback(lax_.ge_p)
tape.pullbacks[reduce_window_min_p] = _chooser_pullback(lax_.le_p)
# eager reverse mode: max/min pooling and its pullback on NumPy (see _pool_np)
on_numpy_while_taping(reduce_window_max_p, _pool_np.reduce_window_max, _pool_np.fits_reduce)
on_numpy_while_taping(reduce_window_min_p, _pool_np.reduce_window_min, _pool_np.fits_reduce)
on_numpy_while_taping(select_and_scatter_add_p, _pool_np.select_and_scatter_add,
                      _pool_np.fits_scatter)


# ----------------------------------------------------------------------------------------
# the generic reduce_window primitive
# ----------------------------------------------------------------------------------------


def _split(xs):
    n = len(xs) // 2
    return list(xs[:n]), list(xs[n:])


def _generic_abstract_eval(*avals, jaxpr, consts, **window):
    ops, inits = _split(avals)
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in ops]} and init_value dtypes "
                        f"{[i.dtype for i in inits]}.")
    if any(i.shape for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values "
                        f"have shapes {[i.shape for i in inits]}.")
    shape = _window_shape(ops[0], **window)
    return [ShapedArray(shape, o.dtype) for o in ops]


def _generic_jvp(primals, tangents, *, jaxpr, consts, **window):
    """Reduces (primal, tangent) pairs with the computation's JVP."""
    ops, inits = _split(primals)
    t_ops, t_inits = _split(tangents)
    if any(type(t) is not Zero for t in t_inits):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    n = len(ops)
    t_ops = [ad.instantiate_zeros(t) for t in t_ops]
    t_inits = [ad.instantiate_zeros(t) for t in t_inits]
    jvp_closed, _ = ad.jvp_jaxpr(ClosedJaxpr(jaxpr, consts), [True] * (2 * n), True)

    def pairs(left, right):
        (pl, tl), (pr, tr) = _split(left), _split(right)
        return core.eval_jaxpr(jvp_closed.jaxpr, jvp_closed.consts, *pl, *pr, *tl, *tr)
    outs = _reduce_window_flat([*ops, *t_ops], [*inits, *t_inits], pairs, window)
    return _split(outs)


def _generic_batch(axis_data, vals, dims, *, jaxpr, consts, **window):
    ops, inits = _split(vals)
    op_dims, init_dims = _split(dims)
    if any(d is not None for d in init_dims):
        raise NotImplementedError("reduce_window batching is not implemented for initial "
                                  "values")
    ops = [batching.bdim_at_front(x, d, axis_data.size) for x, d in zip(ops, op_dims)]
    outs = reduce_window_p.bind(*ops, *inits, jaxpr=jaxpr, consts=consts,
                                **_insert_unit(0, window))
    return outs, [0] * len(outs)


def _generic_lower(ctx, *args, jaxpr, consts, **window):
    fn = ctx.fn
    ops, inits = _split(args)
    scalars = [ShapedArray((), a.dtype) for a in ctx.avals_in[len(ops):]]
    region = fn.region([*scalars, *scalars], lambda b, region_args: lowering.lower_jaxpr_body(
        b, jaxpr, consts, region_args, None))
    return fn.op("stablehlo.reduce_window", [*ops, *inits], list(ctx.avals_out),
                 _window_attrs(**window), [region])


reduce_window_p = def_primitive(
    "reduce_window", abstract_eval=_generic_abstract_eval, impl=COMPILED, jvp=_generic_jvp,
    transpose=NONLINEAR, batch=_generic_batch, lower=_generic_lower, multiple_results=True)
reduce_window_p.is_higher_order = True  # (it carries the computation's jaxpr)


# ----------------------------------------------------------------------------------------
# lax.reduce_window
# ----------------------------------------------------------------------------------------

_jaxpr_cache: dict = {}


def _computation_jaxpr(computation: Callable, tree, avals):
    """computation(x, y) on two pytrees of scalars, traced flat (cached per function and
    types, as JAX caches it): (open jaxpr, consts, output tree)."""
    key = (computation, tree, tuple(avals))
    try:
        hit = _jaxpr_cache.get(key)
    except TypeError:  # an unhashable callable
        key, hit = None, None
    if hit is not None:
        return hit
    n, store = len(avals), {}

    def flat(*args):
        out = computation(tree_unflatten(tree, args[:n]), tree_unflatten(tree, args[n:]))
        leaves, store["tree"] = tree_flatten(out)
        return leaves
    closed = pe.trace_to_closed_jaxpr(flat, [*avals, *avals], "reduce_window")
    if any(isinstance(c, core.Tracer) for c in closed.consts):
        raise NotImplementedError(
            "lax.reduce_window: a computation that closes over traced values is not "
            "supported; pass those values through the operands instead")
    out = (closed.jaxpr, tuple(closed.consts), store["tree"])
    if key is not None:
        if len(_jaxpr_cache) > 256:
            _jaxpr_cache.clear()
        _jaxpr_cache[key] = out
    return out


def _reduce_window_flat(ops, inits, computation, window):
    init_tree = tree_flatten(list(inits))[1]
    avals = [ShapedArray((), core.get_aval(i).dtype) for i in inits]
    jaxpr, consts, out_tree = _computation_jaxpr(
        lambda a, b: computation(list(a), list(b)), init_tree, avals)
    return reduce_window_p.bind(*ops, *inits, jaxpr=jaxpr, consts=consts, **window)


def _monoid_primitive(computation, flat_init):
    """reduce_window_{sum,max,min}_p when computation is lax.add/max/min and the initial
    value is its identity (a concrete scalar), else None."""
    if len(flat_init) != 1:
        return None
    val = core.concrete_value_of(flat_init[0])
    if val is None or np.shape(val) != ():
        return None
    dtype = core.get_aval(flat_init[0]).dtype
    prim, kind = _MONOIDS.get(computation, (None, None))
    if prim is None or not np.equal(np.asarray(val), _identity(dtype, kind)):
        return None
    return prim


_MONOIDS = {lax_.add: (reduce_window_sum_p, "sum"), lax_.max: (reduce_window_max_p, "max"),
            lax_.min: (reduce_window_min_p, "min")}
_identity = functools.lru_cache(maxsize=64)(lred._identity)


def reduce_window(operand, init_value, computation: Callable, window_dimensions,
                  window_strides=None, padding="VALID", base_dilation=None,
                  window_dilation=None):
    """Reduces each (strided, dilated, padded) window of operand (an array or a pytree of
    arrays) with `computation`, starting from init_value (scalars shaped like operand)."""
    flat_ops, op_tree = tree_flatten(operand)
    flat_init, init_tree = tree_flatten(init_value)
    if op_tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{op_tree} vs. {init_tree}")
    if len(flat_ops) != len(flat_init):
        raise ValueError("Must have same total number of operands as init_values:  "
                         f"{len(flat_ops)} vs. {len(flat_init)}")
    if not flat_ops:
        raise ValueError("reduce_window must have at least one operand.")
    n = len(window_dimensions)
    strides = (1,) * n if window_strides is None else tuple(window_strides)
    if isinstance(padding, str):
        window = (window_dimensions if window_dilation is None
                  else windowing.dilate_shape(window_dimensions, window_dilation))
        padding = tuple(windowing.padtype_to_pads(np.shape(flat_ops[0]), window, strides,
                                                  padding))
    else:
        padding = tuple((lo, hi) for lo, hi in padding)
    params = dict(window_dimensions=tuple(window_dimensions), window_strides=strides,
                  padding=padding,
                  base_dilation=(1,) * n if base_dilation is None else tuple(base_dilation),
                  window_dilation=(1,) * n if window_dilation is None
                  else tuple(window_dilation))
    prim = _monoid_primitive(computation, flat_init)
    if prim is not None:
        return tree_unflatten(op_tree, [prim.bind(flat_ops[0], **params)])
    avals = [ShapedArray((), core.get_aval(i).dtype) for i in flat_init]
    jaxpr, consts, out_tree = _computation_jaxpr(computation, init_tree, avals)
    if out_tree != op_tree:
        raise ValueError("reduce_window output must have the same tree structure as the "
                         f"operands {op_tree} vs. {out_tree}")
    outs = reduce_window_p.bind(*flat_ops, *flat_init, jaxpr=jaxpr, consts=consts, **params)
    return tree_unflatten(op_tree, outs)
