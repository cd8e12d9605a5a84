"""`def_primitive`: declares a primitive in one call with all its rules — eager impl (NumPy),
abstract evaluation, JVP, transpose, batching and StableHLO lowering — writing each rule into
the table of the interpreter that owns it. A rule may instead be an explicit, documented gap
(`NONLINEAR`, `unsupported("why")`); `declared_gaps` records them and the rule-coverage test
fails on any silent one.

Also the standard shape/dtype rules of elementwise ops (JAX's `naryop`/`unop` semantics and
error messages). May import core, dtypes, array, the interpreters and lax.dispatch.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes, eager_xla
from didax._src.array import Array, to_numpy
from didax._src.core import Primitive, ShapedArray, get_aval
from didax._src.interpreters import ad, batching, lowering, tape
from didax._src.interpreters import partial_eval as pe
from didax._src.lax import dispatch

TABLES = ("impl", "abstract_eval", "jvp", "transpose", "batch", "lower")

# prim -> {table: reason} for rules deliberately absent
declared_gaps: dict[Primitive, dict[str, str]] = {}
all_primitives: list[Primitive] = []
# prim -> name of the module whose def_primitive call declared it
declared_in: dict[Primitive, str] = {}


class _Gap:
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self):
        return f"unsupported({self.reason!r})"


def unsupported(reason: str) -> _Gap:
    """An explicit gap: this rule does not exist, because `reason`."""
    return _Gap(reason)


NONLINEAR = _Gap("the primitive is not linear in any argument, so it never appears in a "
                 "linear jaxpr and needs no transpose")
ZERO_JVP = object()  # output is piecewise constant: its derivative is a symbolic zero
VECTORIZED = object()  # elementwise unary: batch dims pass through
BROADCASTING = object()  # elementwise n-ary: batch dims broadcast
SELF_IMPL = object()  # eager evaluation by evaluating the primitive's jaxpr expansion
COMPILED = object()  # eager evaluation by compiling the primitive alone (lax.dispatch)


def def_primitive(name: str, *, abstract_eval: Callable, impl: Callable | _Gap | None,
                  jvp: Any, transpose: Any, batch: Any, lower: Any,
                  multiple_results: bool = False, pp: Callable | None = None,
                  eager_impl: Callable | None = None,
                  primitive: Primitive | None = None,
                  pp_params: Callable | None = None,
                  linear: str | None = None) -> Primitive:
    """Declares primitive `name` with every rule.

    impl(*numpy_values, **params) -> numpy value(s) runs eagerly (wrapped so arguments are
    converted and results become Arrays of the abstract-evaluated type); `impl=COMPILED`
    runs the primitive eagerly as its own XLA executable, exactly as jit would; `eager_impl`
    instead receives the raw arguments (for higher-order primitives). `linear`: "joint"
    when the primitive is linear in its differentiable arguments together ("each": in each
    separately), so its transpose rule is also its VJP (the eager tape uses it).
    """
    # `primitive`: declare the rules of a Primitive object created by a lower layer (the ad
    # interpreter owns add_any's object because it accumulates cotangents with it).
    prim = primitive if primitive is not None else Primitive(name, multiple_results)
    prim.abstract_eval = abstract_eval = _cached_abstract_eval(abstract_eval)
    gaps: dict[str, str] = {}
    if eager_impl is not None:
        prim.impl = eager_impl
    elif impl is COMPILED:
        prim.impl = functools.partial(dispatch.apply_primitive, prim)
    elif isinstance(impl, _Gap):
        gaps["impl"] = impl.reason
        prim.impl = _raise_impl(name, impl.reason)
    elif name in XLA_EAGER:
        prim.impl = _xla_eager_impl(prim, impl)
    elif name == "div":
        prim.impl = _div_impl(prim, impl)
    else:
        prim.impl = _wrap_numpy_impl(prim, impl)
    _register_jvp(prim, jvp, gaps)
    _register(prim, transpose, ad.primitive_transposes, "transpose", gaps)
    if linear is not None:
        ad.linearity[prim] = linear
    _register_batch(prim, batch, gaps)
    _register(prim, lower, lowering.lowerings, "lower", gaps)
    if pp is not None:
        core.pp_eqn_rules[prim] = pp
    if pp_params is not None:
        core.pp_params_rules[prim] = pp_params
    if gaps:
        declared_gaps[prim] = gaps
    all_primitives.append(prim)
    declared_in[prim] = sys._getframe(1).f_globals.get("__name__", "?")
    return prim


_CACHE_LIMIT = 8192


def _cached_abstract_eval(rule: Callable) -> Callable:
    """Memoizes abstract evaluation on (input avals, params): shape rules run once per
    signature instead of once per operation (errors are never cached)."""
    cache: dict = {}

    def cached(*avals, **params):
        try:
            key = (avals, tuple(params.items()))
            return cache[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable parameter
            return rule(*avals, **params)
        out = rule(*avals, **params)
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = out
        return out

    cached.__wrapped__ = rule
    cached.cache = cache
    return cached


def _register(prim, rule, table, key, gaps) -> None:
    """None means the declaring module registers the rule right after this call (the
    rule-coverage test checks every table is filled or the gap declared)."""
    if isinstance(rule, _Gap):
        gaps[key] = rule.reason
    elif rule is not None:
        table[prim] = rule


def _register_jvp(prim, jvp, gaps) -> None:
    if jvp is None:
        return
    if jvp is ZERO_JVP:
        ad.defjvp_zero(prim)
    elif isinstance(jvp, _Gap):
        gaps["jvp"] = jvp.reason
    elif isinstance(jvp, tuple):
        ad.defjvp(prim, *jvp)
    elif callable(jvp):
        ad.primitive_jvps[prim] = jvp
    else:
        raise ValueError(f"{prim}: bad jvp rule {jvp!r}")


def _register_batch(prim, batch, gaps) -> None:
    if batch is VECTORIZED:
        batching.defvectorized(prim)
        ad.pointwise.add(prim)
    elif batch is BROADCASTING:
        batching.defbroadcasting(prim)
        ad.pointwise.add(prim)
    elif isinstance(batch, _Gap):
        gaps["batch"] = batch.reason
    elif batch is not None:
        batching.primitive_batchers[prim] = batch


def _raise_impl(name: str, reason: str) -> Callable:
    def impl(*args, **params):
        raise NotImplementedError(f"{name} cannot be evaluated eagerly: {reason}")
    return impl


def _wrap_numpy_impl(prim: Primitive, np_impl: Callable) -> Callable:
    """Eager evaluation: avals in, the cached abstract evaluation for the output type,
    host values in, NumPy out, wrapped as an Array of exactly that type."""
    abstract_eval = prim.abstract_eval
    if prim.multiple_results:
        def impl(*args, **params):
            avals = [x.aval if type(x) is Array else get_aval(x) for x in args]
            out_avals = abstract_eval(*avals, **params)
            outs = _quiet(np_impl, [_host(x, a) for x, a in zip(args, avals)], params)
            return [_wrap(o, a) for o, a in zip(outs, out_avals)]
    else:
        cache = abstract_eval.cache

        def impl(*args, **params):
            # the hot path of every eager operation: the abstract-eval cache and NumPy's
            # error state are used inline (each call saved here is ~0.3 us per operation)
            avals, hosts = [], []
            for x in args:
                if type(x) is Array:
                    avals.append(x.aval)
                    v = x._npy
                    hosts.append(v if v is not None else x._value)
                else:
                    a = get_aval(x)
                    avals.append(a)
                    hosts.append(to_numpy(x, a))
            avals = tuple(avals)
            try:
                out_aval = cache[(avals, tuple(params.items()))]
            except (KeyError, TypeError):
                out_aval = abstract_eval(*avals, **params)
            token = _set_fp_errors(_IGNORE_FP_ERRORS)
            try:
                out = np_impl(*hosts, **params)
            finally:
                _reset_fp_errors(token)
            return _wrap(out, out_aval)
    return impl


def on_numpy_while_taping(prim: Primitive, np_impl: Callable, fits: Callable) -> None:
    """Eager reverse mode for a primitive XLA evaluates eagerly (impl=COMPILED): while a
    tape records or pulls back (tape.ACTIVE: the step already evaluates on NumPy), cases
    `fits(*args, **params)` accepts run `np_impl` on the host instead of dispatching a
    one-equation XLA program; plain eager code still compiles it (eager equals jit)."""
    compiled, on_numpy, active = prim.impl, _wrap_numpy_impl(prim, np_impl), tape.ACTIVE

    def impl(*args, **params):
        if active[0] and fits(*args, **params):
            return on_numpy(*args, **params)
        return compiled(*args, **params)
    prim.impl = impl


try:  # NumPy's error state is a context variable; setting it directly costs ~0.1 us
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE_FP_ERRORS = _make_extobj(all="ignore")
    _set_fp_errors, _reset_fp_errors = _extobj_contextvar.set, _extobj_contextvar.reset

    def _quiet(np_impl, args, params):
        token = _extobj_contextvar.set(_IGNORE_FP_ERRORS)
        try:
            return np_impl(*args, **params)
        finally:
            _extobj_contextvar.reset(token)
except ImportError:  # pragma: no cover - other NumPy layouts
    _IGNORE_FP_ERRORS = None
    _saved_fp_errors: list = []

    def _set_fp_errors(_):
        _saved_fp_errors.append(np.seterr(all="ignore"))

    def _reset_fp_errors(_):
        np.seterr(**_saved_fp_errors.pop())

    def _quiet(np_impl, args, params):
        with np.errstate(all="ignore"):
            return np_impl(*args, **params)


# Primitives evaluated eagerly by XLA when their result is floating point (eager_xla.py:
# NumPy would round these differently from XLA — and so from `jit` and from JAX).
XLA_EAGER = frozenset({
    "exp", "exp2", "log", "log1p", "expm1", "tanh", "logistic", "sin", "cos", "tan", "asin",
    "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "atan2", "pow", "erf", "erfc",
    "erf_inv", "lgamma", "digamma", "igamma", "igammac", "zeta", "polygamma", "cbrt", "rsqrt",
    "regularized_incomplete_beta",
    "reduce_sum", "reduce_prod", "dot_general", "cumsum", "cumprod", "cumlogsumexp",
})



# Of these, the ones whose result depends only on the order of additions (fixed by the
# shape, not the values): for each signature, one check on random data tells whether NumPy
# adds in XLA's order there (BLAS and XLA often agree on small matrix products) — if so,
# the signature stays on NumPy, which is faster than an XLA dispatch.
_ORDER_ONLY = frozenset({"dot_general", "reduce_sum", "reduce_prod", "cumsum", "cumprod"})


_float_kinds: dict = {}  # dtype -> whether XLA's rounding of it shows (_xla_rounds_visibly)
_inexact_kinds: dict = {}  # dtype -> whether it is a float or complex type (_div_impl)


def _xla_eager_impl(prim: Primitive, np_impl: Callable) -> Callable:
    numpy_impl = _wrap_numpy_impl(prim, np_impl)
    abstract_eval = prim.abstract_eval
    cache = abstract_eval.cache
    multiple = prim.multiple_results
    numpy_ok: dict | None = {} if prim.name in _ORDER_ONLY else None
    decided: dict = {}  # (avals, params) of Array arguments -> a program, or _ON_NUMPY
    execute = eager_xla.execute
    taping = tape.ACTIVE
    visible = _float_kinds
    # (the result has its first operand's dtype, except a dot with preferred_element_type)
    typed_result = prim.name == "dot_general"

    def impl(*args, **params):
        x = args[0]
        if taping[0] or (type(x) is Array and visible.get(x.aval.dtype) is False and not (
                typed_result and params["preferred_element_type"] is not None)):
            # eager reverse mode (see tape.ACTIVE), and float64 or integer operands (known
            # once a result of their type was seen), stay on NumPy
            return numpy_impl(*args, **params)
        try:  # the hot path: Array arguments of a signature already decided
            avals = tuple([x.aval for x in args if type(x) is Array])
            key = (avals, tuple(params.items()))
            how = decided.get(key) if len(avals) == len(args) else None
        except TypeError:
            how = None
        if how is not None:
            if how is _ON_NUMPY:
                return numpy_impl(*args, **params)
            return execute(how, args, avals, multiple)
        return _decide(args, params)

    def _decide(args, params):
        avals = tuple([x.aval if type(x) is Array else get_aval(x) for x in args])
        key = (avals, tuple(params.items()))
        try:
            out_aval = cache[key]
        except (KeyError, TypeError):
            out_aval = abstract_eval(*avals, **params)
        how = _ON_NUMPY
        if _xla_rounds_visibly((out_aval[0] if multiple else out_aval).dtype) and not (
                numpy_ok is not None and _numpy_ok(numpy_ok, key, avals, out_aval, params)):
            how = eager_xla.program_for(prim, args, avals, out_aval, params) or _ON_NUMPY
        if all(type(x) is Array for x in args):
            try:
                decided[key] = how
            except TypeError:
                pass
        if how is _ON_NUMPY:
            return numpy_impl(*args, **params)
        return execute(how, args, avals, multiple)

    def _numpy_ok(table, key, avals, out_aval, params) -> bool:
        try:
            ok = table.get(key)
        except TypeError:
            return False
        if ok is None:
            ok = table[key] = _numpy_adds_as_xla(prim, np_impl, avals, out_aval, params)
        return ok
    return impl


_ON_NUMPY = object()  # (a signature NumPy evaluates)


def _xla_rounds_visibly(dt) -> bool:
    """Whether XLA's rounding of this result type can show where programs look: float32
    and complex64 (a 1-ulp difference is ~1e-7, which `allclose(atol=1e-6)` or a finite-
    difference check sees). float64 results stay on NumPy: their ~1e-16 differences are
    below any tolerance programs use, and NumPy is several times faster eagerly."""
    visible = _float_kinds.get(dt)
    if visible is None:  # (ml_dtypes floats have kind "V": NumPy rounds as XLA)
        visible = _float_kinds[dt] = isinstance(dt, np.dtype) and (
            (dt.kind == "f" and dt.itemsize <= 4) or (dt.kind == "c" and dt.itemsize <= 8))
    return visible


def _numpy_adds_as_xla(prim, np_impl, avals, out_aval, params) -> bool:
    """Whether NumPy's result equals XLA's, bit for bit, on random data of these types (on
    at least ~512 output elements, over several draws when the output is small: two orders
    of addition agree on one sum quite often by chance)."""
    size = max(1, core._prod(out_aval.shape))
    rng = np.random.default_rng(len(avals))
    for _ in range(min(64, -(-512 // size))):
        args = [_random_array(rng, a, near_one=prim.name in ("reduce_prod", "cumprod"))
                for a in avals]
        with np.errstate(all="ignore"):
            want = eager_xla.run(prim, [Array(x, a) for x, a in zip(args, avals)], avals,
                                 out_aval, params)
            if want is None:  # (XLA cannot evaluate it: NumPy it is)
                return True
            want = np.asarray(want)
            got = np.asarray(np_impl(*args, **params), dtype=want.dtype)
        if got.shape != want.shape or \
                np.ascontiguousarray(got).tobytes() != np.ascontiguousarray(want).tobytes():
            return False
    return True


def _random_array(rng, aval, near_one: bool = False) -> np.ndarray:
    dt = np.dtype(aval.dtype)
    if dt.kind in "fc":
        x = rng.standard_normal(aval.shape)
        if near_one:  # (products of many random normals are all 0 or inf)
            x = 1 + x / max(8, core._prod(aval.shape))
        if dt.kind == "c":
            x = x + 1j * rng.standard_normal(aval.shape)
        return np.asarray(x, dt)
    return np.asarray(rng.integers(-3, 4, aval.shape), dt)


def _div_impl(prim: Primitive, np_impl: Callable) -> Callable:
    """Floating division by a broadcast divisor (a scalar, a constant, or a broadcast view)
    multiplies by its reciprocal, as XLA rewrites `x / broadcast(y)` — so eager `x / 10`,
    `x / x.sum()` or `x / x.sum(0)` round as JAX's eager and jitted code do."""
    numpy_impl = _wrap_numpy_impl(prim, np_impl)

    def reciprocal_impl(x, y):
        dt = y.dtype
        return np.multiply(x, np.divide(np.asarray(1, dt), y, dtype=dt), dtype=dt)
    mul_impl = _wrap_numpy_impl(prim, reciprocal_impl)

    def impl(x, y, **params):
        # (a scalar divided by a scalar Array is no broadcast: XLA divides, unless the
        # divisor is a constant of the program — a Python or NumPy scalar)
        if (np.shape(x) and (_is_broadcast(y) or (
                np.shape(y) != np.shape(x) and np.size(y) < np.size(x)))) or (
                type(y) is not Array and not isinstance(y, core.Tracer)):
            dt = get_aval(y).dtype
            inexact = _inexact_kinds.get(dt)
            if inexact is None:
                inexact = _inexact_kinds[dt] = isinstance(dt, np.dtype) and dt.kind in "fc"
            if inexact:
                return mul_impl(x, y, **params)
        return numpy_impl(x, y, **params)
    return impl


def _is_broadcast(y) -> bool:
    """y is a scalar, or a host view repeating values along some dimension (what
    broadcast_in_dim gives eagerly)."""
    if type(y) is Array:
        v = y._npy
        if v is None:
            return not y.aval.shape
    elif isinstance(y, core.Tracer):
        return False
    else:
        v = y
    shape = np.shape(v)
    if not shape:
        return True
    strides = getattr(v, "strides", None)
    return strides is not None and any(s == 0 and n > 1 for s, n in zip(strides, shape))


def _host(x, aval):
    if type(x) is Array:
        v = x._npy
        return v if v is not None else x._value
    return to_numpy(x, aval)


_new_array = Array.__new__


def _wrap(out, aval) -> Array:
    if type(out) is not np.ndarray or out.dtype != aval.dtype:
        out = np.asarray(out, dtype=aval.dtype)
    if out.shape != aval.shape:
        out = np.broadcast_to(out, aval.shape)
    a = _new_array(Array)
    a._npy = out
    a._buf = None
    a._device = None
    a.aval = aval
    return a


# ----------------------------------------------------------------------------------------
# Standard shape and dtype rules (JAX's messages)
# ----------------------------------------------------------------------------------------

_float = (np.floating,)
_complex = (np.complexfloating,)
_int = (np.integer,)
_bool = (np.bool_,)
_signedint = (np.signedinteger,)
_num = _int + _float + _complex
_any = _int + _float + _complex + _bool
_bool_or_int = _int + _bool
_ordered = _int + _float + _bool
_float_or_complex = _float + _complex

# lax names whose dtype-mismatch error suggests a promoting jnp function (as JAX's do)
_JNP_EQUIV = {
    "add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "max": "maximum",
    "min": "minimum", "pow": "float_power", "atan2": "arctan2", "nextafter": "nextafter",
    "eq": "equal", "ne": "not_equal", "select": "where", "concatenate": "concatenate",
    "shift_left": "left_shift", "shift_right_arithmetic": "right_shift",
    "shift_right_logical": "right_shift",
}


def dtype_str(dt) -> str:
    return np.dtype(dt).name


def _float0_error(name: str, pos: int | None) -> TypeError:
    where = " array" if pos is None else f" at position {pos}"
    return TypeError(
        f"Called {name} with a float0{where}. float0s do not support any operations by "
        "design, because they are not compatible with non-trivial vector spaces. No implicit "
        "dtype conversion is done. You can use np.zeros_like(arr, dtype=np.float) to cast a "
        "float0 array to a regular zeros array. \nIf you didn't expect to get a float0 you "
        "might have accidentally taken a gradient with respect to an integer argument.")


_accepted_cache: dict = {}


def check_accepted(name: str, aval, accepted: Sequence[type], pos: int | None) -> None:
    dt = aval.dtype
    key = (dt, accepted)
    ok = _accepted_cache.get(key)
    if ok is None:
        ok = _accepted_cache[key] = any(dtypes.issubdtype(dt, t) for t in accepted)
    if ok:
        return
    if dt == dtypes.float0:
        raise _float0_error(name, pos)
    names = ", ".join(t.__name__ for t in accepted)
    if pos is None:
        raise TypeError(f"{name} does not accept dtype {dtype_str(dt)}. Accepted dtypes are "
                        f"subtypes of {names}.")
    raise TypeError(f"{name} does not accept dtype {dtype_str(dt)} at position {pos}. "
                    f"Accepted dtypes at position {pos} are subtypes of {names}.")


def check_same_dtypes(name: str, *avals) -> None:
    if len(avals) < 2:
        return
    dt = avals[0].dtype
    if any(a.dtype != dt for a in avals[1:]):
        msg = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(dtype_str(a.dtype) for a in avals)}.")
        if name in _JNP_EQUIV:
            msg += (f" (Tip: jnp.{_JNP_EQUIV[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
        raise TypeError(msg)


def broadcast_shapes_rule(name: str, *shapes) -> tuple[int, ...]:
    shapes = [s for s in shapes if s]
    if not shapes:
        return ()
    if len(shapes) == 1:
        return tuple(shapes[0])
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for ds in zip(*shapes):
        non1 = [d for d in ds if d != 1]
        if not non1:
            out.append(1)
        elif all(d == non1[0] for d in non1):
            out.append(non1[0])
        else:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(tuple(s)) for s in shapes)}.")
    return tuple(out)


def unop_abstract_eval(name: str, accepted, result_dtype: Callable | None = None,
                       weak_rule: Callable | None = None) -> Callable:
    def rule(x, **params):
        check_accepted(name, x, accepted, None)
        dt = x.dtype if result_dtype is None else result_dtype(x.dtype, **params)
        weak = x.weak_type if weak_rule is None else weak_rule(x, **params)
        return ShapedArray(x.shape, dt, weak)
    return rule


def naryop_abstract_eval(name: str, accepted: Sequence[Sequence[type]],
                         result_dtype: Callable | None = None,
                         weak_rule: Callable | None = None,
                         require_same: bool = True) -> Callable:
    accepted = tuple(tuple(a) for a in accepted)
    fast_ok: dict = {}

    def rule(*avals, **params):
        if len(avals) == 2 and result_dtype is None and weak_rule is None:
            x, y = avals
            # Common case: same dtype, same shape (or a scalar operand).
            if x.dtype == y.dtype and (x.shape == y.shape or not y.shape or not x.shape):
                ok = fast_ok.get(x.dtype)
                if ok is None:
                    try:
                        check_accepted(name, x, accepted[0], 0)
                        check_accepted(name, y, accepted[1], 1)
                        ok = fast_ok[x.dtype] = True
                    except TypeError:
                        ok = fast_ok[x.dtype] = False
                if ok:
                    return ShapedArray(x.shape if x.shape else y.shape, x.dtype,
                                       x.weak_type and y.weak_type)
        return slow(*avals, **params)

    def slow(*avals, **params):
        for i, (a, acc) in enumerate(zip(avals, accepted)):
            check_accepted(name, a, acc, i)
        if require_same:
            check_same_dtypes(name, *avals)
        shape = broadcast_shapes_rule(name, *[a.shape for a in avals])
        dt = avals[0].dtype if result_dtype is None else result_dtype(*avals, **params)
        if weak_rule is not None:
            weak = weak_rule(*avals, **params)
        else:
            weak = all(a.weak_type for a in avals)
        return ShapedArray(shape, dt, weak)
    return rule


def false_weak(*avals, **params) -> bool:
    return False


# ----------------------------------------------------------------------------------------
# Glue the interpreters need from the primitive layer
# ----------------------------------------------------------------------------------------


_lax_module: list = []


def unbroadcast(aval, x):
    """Sums x down to aval's shape (the transpose of elementwise broadcasting)."""
    x_shape = x.shape if hasattr(x, "shape") else np.shape(x)
    if tuple(aval.shape) == tuple(x_shape):
        return x
    if not _lax_module:
        from didax._src.lax import lax as lax_mod  # noqa: PLC0415 - lax sits above _define

        _lax_module.append(lax_mod)
    lax = _lax_module[0]
    if not aval.shape:
        return lax.reduce_sum(x, tuple(range(len(x_shape))))
    dims = tuple(i for i, (a, b) in enumerate(zip(aval.shape, x_shape)) if a == 1 and b != 1)
    if not dims:
        return x
    summed = lax.reduce_sum(x, dims)
    return lax.reshape(summed, aval.shape)


def eval_params_key(params: dict) -> Any:
    return tuple(sorted(params.items()))


__all__ = ["def_primitive", "unsupported", "NONLINEAR", "ZERO_JVP", "VECTORIZED", "COMPILED",
           "BROADCASTING", "declared_gaps", "all_primitives", "pe"]
