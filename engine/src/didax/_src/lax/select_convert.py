"""select_n, clamp, convert_element_type (with weak types), reduce_precision,
stop_gradient and add_any — each declared once with def_primitive — and their `lax.*`
wrappers. lax.lax re-exports every name, so `lax.convert_element_type_p` and friends keep
working.

May import core, dtypes, array, the interpreters, lax._define and lax.lax (whose wrappers
exist before lax.lax imports this module at its end).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import ShapedArray
from didax._src.interpreters import ad, batching, lowering, tape
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax._define import (
    NONLINEAR,
    VECTORIZED,
    _float,
    check_same_dtypes,
    def_primitive,
    unop_abstract_eval,
)
from didax._src.lax.lax import (
    _const,
    _errstate,
    _u,
    bitwise_and,
    broadcast_in_dim,
    eq,
    full_like,
    gt,
    lt,
)


def _select_n_abstract_eval(which, *cases):
    if not cases:
        raise TypeError("select_n must have at least one case")
    if any(c.shape != cases[0].shape for c in cases[1:]):
        raise TypeError(f"select cases must have the same shapes, got "
                        f"{[c.shape for c in cases]}.")
    if any(c.dtype != cases[0].dtype for c in cases[1:]):
        check_same_dtypes("select", *cases)
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {which.shape} but case shape {cases[0].shape}.")
    if which.dtype != np.bool_ and not dtypes.is_int(which.dtype):
        raise TypeError(f"select `which` must be boolean or integer type, got "
                        f"{which.dtype}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")
    return ShapedArray(cases[0].shape, cases[0].dtype, all(c.weak_type for c in cases))


def _select_n_impl(which, *cases):
    if which.dtype == np.bool_:
        if len(cases) == 1:
            return cases[0]
        if which.size >= 4096 and which.shape == np.shape(cases[0]):
            return _select_bits(which, *cases)
        return np.where(which, cases[1], cases[0])
    idx = np.clip(which, 0, len(cases) - 1)
    return np.choose(idx, np.broadcast_arrays(*cases))


def _select_bits(which, on_false, on_true):
    """np.where without branches, for large boolean selects: on_false ^ ((on_true ^
    on_false) & mask) on the bits (np.where mispredicts on a random mask, ~7x slower)."""
    u = dtypes.UINT_OF_SIZE.get(on_false.dtype.itemsize)
    if u is None or on_true.dtype != on_false.dtype:
        return np.where(which, on_true, on_false)
    if _zero_fill(on_false, u):  # (a ReLU's cotangent): the bits times 0 or 1, one pass
        return np.multiply(on_true.view(u), which.view(np.uint8), dtype=u).view(on_true.dtype)
    mask = which.view(np.uint8).astype(u)
    np.negative(mask, out=mask)  # 1 -> all ones
    f = on_false.view(u)
    out = np.bitwise_xor(on_true.view(u), f)
    np.bitwise_and(out, mask, out=out)
    np.bitwise_xor(out, f, out=out)
    return out.view(on_false.dtype)


def _zero_fill(x: np.ndarray, u) -> bool:
    """x is one all-zero-bits value broadcast (all strides 0: what broadcasting a scalar
    zero gives)."""
    return x.ndim > 0 and not any(x.strides) and not x.view(u).flat[0]


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    tcases = tangents[1:]
    ans = select_n(which, *cases)
    if all(type(t) is Zero for t in tcases):
        return ans, Zero.from_primal_value(ans)
    # one zeros array like the first nonzero tangent, made even when unused (as JAX does)
    z = ad.zeros_like_aval(core.get_aval(next(t for t in tcases if type(t) is not Zero)))
    return ans, select_n(which, *[z if type(t) is Zero else t for t in tcases])


def _select_n_transpose(ct, which, *cases):
    assert not ad.is_undefined_primal(which)
    if type(ct) is Zero:
        return [None] + [Zero(c.aval) if ad.is_undefined_primal(c) else None for c in cases]
    zeros = full_like(ct, 0)
    if core.get_aval(which).dtype == np.bool_:
        return [None] + [select_n(which, *[ct if j == i else zeros for j in range(2)])
                         if ad.is_undefined_primal(c) else None for i, c in enumerate(cases)]
    # an integer `which`: one eq per linear case, as JAX transposes it
    return [None] + [select(eq(which, _const(which, i)), ct, zeros)
                     if ad.is_undefined_primal(c) else None for i, c in enumerate(cases)]


def _select_n_batch(axis_data, vals, dims):
    """Keeps a shared batch dim in place; otherwise batch dims go to the front (the
    strategy of JAX's rule, so batched jaxprs match JAX's)."""
    which, *cases = vals
    wd, *cds = dims
    if all(d == wd for d in cds):
        if np.shape(which) != np.shape(cases[0]):  # a per-example scalar `which`
            which = broadcast_in_dim(which, np.shape(cases[0]), [wd])
        return select_n(which, *cases), wd
    if np.ndim(which) == 0 and all(d is not None for d in cds):
        if all(d == cds[0] for d in cds[1:]):
            return select_n(which, *cases), cds[0]
        if all(np.shape(c) == np.shape(cases[0]) for c in cases):
            moved = [batching.moveaxis(c, d, cds[0]) for c, d in zip(cases[1:], cds[1:])]
            return select_n(which, cases[0], *moved), cds[0]
    return _select_n_batch_front(axis_data.size, which, wd, cases, cds)


def _select_n_batch_front(size, which, wd, cases, cds):
    if np.shape(which):
        which = batching.bdim_at_front(which, wd, size)
    if not all(np.shape(c) == () for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
    if 0 < np.ndim(which) < np.ndim(cases[0]):
        which = broadcast_in_dim(which, np.shape(cases[0]), [0])
    if np.ndim(which) > np.ndim(cases[0]):
        cases = [broadcast_in_dim(c, np.shape(which), ()) for c in cases]
    return select_n(which, *cases), 0


def _select_n_lower(ctx, which, *cases):
    fn, out = ctx.fn, ctx.avals_out[0]
    if which.aval.shape != out.shape:
        which = lowering.broadcast_to(fn, which, ShapedArray(out.shape, which.aval.dtype))
    if which.aval.dtype == np.bool_:
        if len(cases) == 1:
            return cases[0]
        return fn.op1("stablehlo.select", [which, cases[1], cases[0]], out)
    return _select_n_tree(fn, which, list(cases), 0, out)


def _select_n_tree(fn, which, cases, offset, out):
    if len(cases) == 1:
        return cases[0]
    mid = len(cases) // 2
    bound = lowering.full_like(fn, offset + mid, which.aval)
    pred = lowering.compare_op(fn, which, bound, "LT", ShapedArray(out.shape, np.bool_))
    lo = _select_n_tree(fn, which, cases[:mid], offset, out)
    hi = _select_n_tree(fn, which, cases[mid:], offset + mid, out)
    return fn.op1("stablehlo.select", [pred, lo, hi], out)


select_n_p = def_primitive(
    "select_n", abstract_eval=_select_n_abstract_eval, impl=_select_n_impl,
    jvp=_select_n_jvp, transpose=_select_n_transpose, batch=_select_n_batch,
    lower=_select_n_lower, linear="joint")  # in the cases (the predicate is never a float)
tape.constants_defined.add(select_n_p)  # (its transpose skips defined cases)


def _clamp_abstract_eval(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or "
                            f"{name}.shape == (), got {name}.shape={b.shape}, "
                            f"operand.shape={x.shape}.")
    check_same_dtypes("clamp", lo, x, hi)
    return ShapedArray(x.shape, x.dtype, x.weak_type)


def _clamp_batch(axis_data, vals, dims):
    lo, x, hi = vals
    ld, xd, hd = dims
    size = axis_data.size
    if ld is None and hd is None and np.ndim(lo) == 0 and np.ndim(hi) == 0:
        return clamp(lo, x, hi), xd
    x = batching.bdim_at_front(x, xd, size)
    full = np.shape(x)
    outs = []
    for b, d in ((lo, ld), (hi, hd)):
        if d is None and np.ndim(b) == 0:
            outs.append(b)
            continue
        b = batching.bdim_at_front(b, d, size)
        if np.shape(b) != full:
            b = broadcast_in_dim(b, full, tuple(range(np.ndim(b))) if np.ndim(b) > 1 or
                                 d is None and np.ndim(b) else (0,) if d is not None else ())
        outs.append(b)
    if np.ndim(x) == 0 or np.shape(x) != full:
        x = broadcast_in_dim(x, full, ())
    return clamp(outs[0], x, outs[1]), 0


clamp_p = def_primitive(
    "clamp", abstract_eval=_clamp_abstract_eval,
    impl=lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    jvp=(lambda g, lo, x, hi: _clamp_jvp_lo(g, lo, x, hi),
         lambda g, lo, x, hi: _clamp_jvp_x(g, lo, x, hi),
         lambda g, lo, x, hi: _clamp_jvp_hi(g, lo, x, hi)),
    transpose=NONLINEAR, batch=_clamp_batch,
    lower=lambda ctx, lo, x, hi: ctx.fn.op1("stablehlo.clamp", [lo, x, hi], ctx.avals_out[0]))


def _bcast_to(x, like):
    shape = np.shape(like)
    if np.shape(x) == shape:
        return x
    return broadcast_in_dim(x, shape, ())


def _clamp_jvp_lo(g, lo, x, hi):
    # the lower bound is the output where it exceeds x and is below the upper bound
    return select(bitwise_and(gt(lo, x), lt(lo, hi)), _bcast_to(g, x), full_like(x, 0))


def _clamp_jvp_x(g, lo, x, hi):
    return select(bitwise_and(gt(x, lo), lt(x, hi)), g, full_like(x, 0))


def _clamp_jvp_hi(g, lo, x, hi):
    return select(lt(hi, x), _bcast_to(g, x), full_like(x, 0))


def _convert_element_type_abstract_eval(x, *, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


def _convert_impl(x, *, new_dtype, weak_type, sharding):
    new_dtype = np.dtype(new_dtype)
    if new_dtype == np.bool_:
        return x != 0
    if dtypes.is_complex(x.dtype) and not dtypes.is_complex(new_dtype):
        x = np.real(x)
    if dtypes.is_int(new_dtype) and dtypes.is_float(x.dtype):
        return _saturating_cast(x, new_dtype)
    return x.astype(new_dtype)


def _saturating_cast(x, new_dtype):
    """float -> int as XLA converts: truncation, NaN -> 0, out-of-range values clamp to
    the integer type's bounds (the bounds tested in x's own precision)."""
    info = np.iinfo(new_dtype)
    x = np.asarray(x)
    hi = x >= np.asarray(info.max, np.float64).astype(x.dtype)
    lo = x <= np.asarray(info.min, np.float64).astype(x.dtype)
    out = np.where(np.isnan(x) | hi | lo, 0, np.trunc(x)).astype(new_dtype)
    out = np.where(hi, np.asarray(info.max, new_dtype), out)
    return np.where(lo, np.asarray(info.min, new_dtype), out).astype(new_dtype)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
    (x,), (t,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type,
                                      sharding=sharding)
    new_dtype = np.dtype(new_dtype)
    if type(t) is Zero or not dtypes.is_inexact(new_dtype):
        return ans, Zero.from_primal_value(ans)
    if not dtypes.is_inexact(core.get_aval(x).dtype):
        return ans, Zero.from_primal_value(ans)
    return ans, convert_element_type_p.bind(t, new_dtype=new_dtype, weak_type=weak_type,
                                            sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    old = x.aval
    if type(ct) is Zero:
        return [Zero(old.to_tangent_aval())]
    if not dtypes.is_inexact(old.dtype):
        return [Zero(old.to_tangent_aval())]
    ct_aval = core.get_aval(ct)
    if ct_aval.dtype == old.dtype and ct_aval.weak_type == old.weak_type:
        return [ct]  # a no-op conversion (JAX's staging forwards it)
    return [convert_element_type_p.bind(ct, new_dtype=old.dtype, weak_type=old.weak_type,
                                        sharding=None)]


def _convert_lower(ctx, x, *, new_dtype, weak_type, sharding):
    fn, out = ctx.fn, ctx.avals_out[0]
    in_dt = x.aval.dtype
    if in_dt == out.dtype:
        return x
    if dtypes.is_complex(in_dt) and not dtypes.is_complex(out.dtype):
        x = fn.op1("stablehlo.real", [x], ShapedArray(x.aval.shape, dtypes.real_dtype(in_dt)))
    if out.dtype == np.bool_:
        zero = lowering.full_like(fn, 0, x.aval)
        return lowering.compare_op(fn, x, zero, "NE", out)
    return fn.op1("stablehlo.convert", [x], out)


def _convert_pp(eqn):
    return [(k, eqn.params[k]) for k in sorted(eqn.params) if k != "sharding"]


convert_element_type_p = def_primitive(
    "convert_element_type", abstract_eval=_convert_element_type_abstract_eval,
    impl=_errstate(_convert_impl), jvp=_convert_jvp, transpose=_convert_transpose,
    batch=VECTORIZED, lower=_convert_lower, pp_params=_convert_pp, linear="joint")


def _convert_staging(trace, operand, *, new_dtype, weak_type, sharding):
    """Stages a conversion, except of a host scalar constant (a Python or NumPy scalar):
    that folds into a literal, as JAX's constant folding of convert_element_type does."""
    params = dict(new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    lit = _folded_literal(operand, new_dtype, weak_type)
    if lit is None:
        return trace.default_process_primitive(convert_element_type_p, [operand], params)
    aval = ShapedArray((), new_dtype, weak_type)
    return trace.tracer_cls(trace, aval, core.Literal(lit, aval))


def _folded_literal(operand, new_dtype, weak_type):
    t = type(operand)
    if (t is pe.DynamicJaxprTracer or t is pe.JaxprTracer) and type(operand._var) is core.Literal:
        operand, t = operand._var.val, type(operand._var.val)  # a folded constant, again
    if t is core.TypedScalar:
        operand = operand.val
    elif t not in (int, float, bool, complex) and not (
            isinstance(operand, (np.ndarray, np.generic)) and operand.shape == ()):
        return None
    if dtypes.issubdtype(new_dtype, dtypes.extended):
        return None
    out = np.array(operand)
    if out.dtype.kind == "c" and new_dtype.kind != "c":
        out = out.real
    with np.errstate(all="ignore"):
        out = out.astype(new_dtype)
    if not weak_type:
        return out
    # a weak result folds only when a Python scalar of its value has exactly its type
    val = out.item()
    if dtypes.canonicalize_dtype(dtypes.python_scalar_types_to_dtypes[type(val)]) != new_dtype:
        return None
    return core.typed_scalar(val, new_dtype, True)


pe.custom_staging_rules[convert_element_type_p] = _convert_staging


def host_constant(val, dtype, weak_type: bool = False):
    """A scalar constant of dtype: an Array eagerly, a literal when staged (JAX builds such
    constants as converted NumPy scalars, which its constant folding inlines)."""
    x = np.array(val, dtype)
    if core.trace_ctx.trace is core.eval_trace:
        return Array(x, ShapedArray((), x.dtype, weak_type))
    return convert_element_type_p.bind(x, new_dtype=x.dtype, weak_type=weak_type,
                                       sharding=None)


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    import ml_dtypes  # noqa: PLC0415

    table = {(8, 7): ml_dtypes.bfloat16, (5, 10): np.float16, (8, 23): np.float32,
             (11, 52): np.float64, (4, 3): ml_dtypes.float8_e4m3fn,
             (5, 2): ml_dtypes.float8_e5m2}
    dt = table.get((exponent_bits, mantissa_bits))
    if dt is None:
        raise NotImplementedError(f"reduce_precision to (e{exponent_bits}, m{mantissa_bits}) "
                                  "is only available under jit")
    return x.astype(dt).astype(x.dtype)


reduce_precision_p = def_primitive(
    "reduce_precision", abstract_eval=unop_abstract_eval("reduce_precision", _float),
    impl=_errstate(_reduce_precision_impl),
    jvp=lambda primals, tangents, **p: (
        reduce_precision_p.bind(primals[0], **p),
        tangents[0] if type(tangents[0]) is Zero else reduce_precision_p.bind(tangents[0], **p)),
    transpose=lambda ct, x, **p: [
        Zero(x.aval) if type(ct) is Zero else reduce_precision_p.bind(ct, **p)],
    batch=VECTORIZED,
    lower=lambda ctx, x, *, exponent_bits, mantissa_bits: ctx.fn.op1(
        "stablehlo.reduce_precision", [x], ctx.avals_out[0],
        f"exponent_bits = {exponent_bits} : i32, mantissa_bits = {mantissa_bits} : i32"))


def _stop_gradient_jvp(primals, tangents):
    ans = stop_gradient_p.bind(primals[0])
    return ans, Zero.from_primal_value(ans)


stop_gradient_p = def_primitive(
    "stop_gradient", abstract_eval=lambda x: x, impl=lambda x: x, jvp=_stop_gradient_jvp,
    transpose=NONLINEAR, batch=VECTORIZED, lower=lambda ctx, x: x)
ad.zero_jvp.add(stop_gradient_p)


def _add_any_transpose(ct, x, y):
    return [ct if ad.is_undefined_primal(x) else None, ct if ad.is_undefined_primal(y) else None]


def _add_any_batch(axis_data, vals, dims):
    """add_any needs equal shapes: an unbatched operand is broadcast along the batch axis
    (rank-polymorphic broadcasting would give the wrong type)."""
    (x, y), (dx, dy) = vals, dims
    d = dx if dx is not None else dy
    x = batching.matchaxis(axis_data.size, dx, d, x)
    y = batching.matchaxis(axis_data.size, dy, d, y)
    return add_any_p.bind(x, y), d


def _add_any_abstract_eval(x, y):
    return ShapedArray(x.shape, x.dtype, x.weak_type and y.weak_type)


# add_any accumulates tangents and cotangents; the ad module owns the Primitive object
# (it needs it to accumulate), and its rules are declared here with everyone else's.
add_any_p = def_primitive(
    "add_any", abstract_eval=_add_any_abstract_eval, impl=np.add,
    jvp=lambda primals, tangents: (add_any_p.bind(*primals), ad.add_tangents(*tangents)),
    transpose=_add_any_transpose, batch=_add_any_batch, lower=lowering.binary("stablehlo.add"),
    primitive=ad.add_jaxvals_p, linear="joint")

# ----------------------------------------------------------------------------------------
# lax.* wrappers
# ----------------------------------------------------------------------------------------


def select_n(which, *cases):
    if len(cases) == 1:
        return cases[0]
    return select_n_p.bind(which, *cases)


def select(pred, on_true, on_false):
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):  # noqa: A002
    return clamp_p.bind(min, x, max)


def convert_element_type(operand, new_dtype) -> Any:
    """Converts operand to new_dtype (a no-op when it already has it, as in JAX)."""
    new_dtype = dtypes.canonicalize_dtype(np.dtype(new_dtype))
    aval = core.get_aval(operand)
    if aval.dtype == new_dtype and not aval.weak_type and isinstance(operand,
                                                                     (core.Tracer, Array)):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=False,
                                       sharding=None)


def _convert_element_type(operand, new_dtype=None, weak_type: bool = False):
    """Internal conversion that may produce a weakly typed result."""
    aval = core.get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(
        np.dtype(new_dtype))
    if aval.dtype == new_dtype and aval.weak_type == weak_type:
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype, weak_type=weak_type,
                                       sharding=None)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    return reduce_precision_p.bind(operand, exponent_bits=int(exponent_bits),
                                   mantissa_bits=int(mantissa_bits))


def stop_gradient(x):
    """Stops gradients flowing through every leaf of x."""
    from didax._src import tree_util  # noqa: PLC0415

    def stop(v):
        aval = core.get_aval(v)
        if dtypes.is_inexact(aval.dtype):
            return stop_gradient_p.bind(v)
        return v
    return tree_util.tree_map(stop, x)


stop_gradient_prim = _u(stop_gradient_p)
