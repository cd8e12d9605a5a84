"""Differential-testing helpers: run the same program under didax and under real JAX (the
test oracle) and compare values (with per-dtype tolerances), dtypes, weak types, shapes,
tree structures and error classes/messages; plus finite-difference gradient checks.

The central entry point is `check_against_jax(fn_builder, args, modes=...)`, where
`fn_builder(jnp_module, lax_module)` returns the function under test. It is called once
with didax's modules and once with JAX's, and every requested mode is compared:

  eval   f(*args)                                (value, dtype, weak_type, shape)
  jaxpr  didax only: make_jaxpr(f) type-checks, and evaluating it reproduces eval
  jvp    jvp(f, diff args, random tangents)
  jvp2   the JVP of the JVP (second-order forward mode)
  vjp    vjp(f, diff args) pulled back from random cotangents
  grad   grad of a random weighting of f's real, inexact outputs
  vmap   vmap(f) with batch dims at several positions (0, last, unbatched operands)
  fd     didax only (float64): jvp and vjp agree with central finite differences

JAX's side of all modes runs in one `jax.jit` (one compilation per call) so the suite
stays fast; Python scalars and float0 values are closed over, so they keep the semantics
they have eagerly (weak types, literals).
"""

from __future__ import annotations

import contextlib
import functools
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import didax
import didax.lax as dlax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from didax._src import core as dcore
from didax._src.config import config as dconfig
from jax import lax as jlax

DEFAULT_MODES = ("eval", "jaxpr", "jvp", "vjp", "vmap", "grad")
BATCH = 3

# (rtol, atol) by dtype name: didax computes eagerly with NumPy, JAX with XLA, so
# transcendental functions may differ by a few ulps.
TOLERANCES = {
    "float16": (4e-3, 4e-3),
    "bfloat16": (3e-2, 3e-2),
    "float32": (2e-5, 2e-6),
    "float64": (1e-12, 1e-13),
    "complex64": (2e-5, 2e-6),
    "complex128": (1e-12, 1e-13),
}
# XLA options for the oracle's executables: they run once, so compile time dominates.
FAST_COMPILE = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True}
# derivatives compound the error of several operations
DERIVATIVE_SCALE = 10.0

bfloat16 = np.dtype(ml_dtypes.bfloat16)
float0 = np.dtype([("float0", np.void, 0)])


# ----------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def x64_mode(enabled: bool = True):
    """Sets jax_enable_x64 in both didax and JAX for the duration."""
    prev_d = dconfig._read("jax_enable_x64")
    prev_j = jax.config._read("jax_enable_x64")
    dconfig.update("jax_enable_x64", enabled)
    jax.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        dconfig.update("jax_enable_x64", prev_d)
        jax.config.update("jax_enable_x64", prev_j)


def needs_x64(*dts) -> bool:
    return any(np.dtype(d).itemsize == 8 and np.dtype(d).kind in "iufb" or
               np.dtype(d) == np.complex128 for d in dts if d is not None)


def seed_of(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


# ----------------------------------------------------------------------------------------
# value generation
# ----------------------------------------------------------------------------------------


def is_inexact(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind in "fc" or dt == bfloat16


def is_complex(dt) -> bool:
    return np.dtype(dt).kind == "c"


def random_value(rng: np.random.Generator, shape, dtype, kind: str = "normal"):
    """A random array of `dtype`. kinds: normal, positive, unit (|x| < 0.9), gt1, small
    (|x| <= 3, integers included), nonzero, bits (full integer range), bool."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return _random_int(rng, shape, dtype, kind)
    real = _random_real(rng, shape, kind)
    if dtype.kind == "c":
        real = real + 1j * _random_real(rng, shape, kind)
    return np.asarray(real).astype(dtype)


def _random_real(rng, shape, kind):
    if kind == "positive":
        return rng.uniform(0.5, 2.5, shape)
    if kind == "unit":
        return rng.uniform(-0.9, 0.9, shape)
    if kind == "gt1":
        return rng.uniform(1.2, 3.0, shape)
    if kind == "small":
        return rng.integers(-3, 4, shape).astype(np.float64)
    if kind == "nonzero":
        return rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return rng.normal(size=shape)


def _random_int(rng, shape, dtype, kind):
    info = np.iinfo(dtype)
    if kind == "bits":
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    if kind in ("positive", "gt1"):
        lo, hi = 1, 6
    elif kind == "nonzero":
        v = rng.integers(1, 6, shape) * (rng.choice([-1, 1], shape) if info.min < 0 else 1)
        return v.astype(dtype)
    else:
        lo, hi = (0, 6) if info.min == 0 else (-5, 6)
    return rng.integers(lo, hi, shape).astype(dtype)


def tangent_for(rng, x):
    """A random tangent (or cotangent) for a value of x's type (float0 for ints/bools)."""
    shape, dt = np.shape(x), _dtype_of(x)
    if not is_inexact(dt):
        return np.zeros(shape, float0)
    return random_value(rng, shape, dt)


def _dtype_of(x):
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, (int, float, complex)):
        return None
    return np.dtype(x.dtype)


# ----------------------------------------------------------------------------------------
# comparison
# ----------------------------------------------------------------------------------------


def tolerance(dtype, scale: float = 1.0) -> tuple[float, float]:
    rtol, atol = TOLERANCES.get(np.dtype(dtype).name, (0.0, 0.0))
    return rtol * scale, atol * scale


def _leaf_info(x, side: str):
    """(shape, dtype, weak_type, host value) of an output leaf (a Python scalar stays one,
    as a vmap output with out_axes=None does in JAX)."""
    if isinstance(x, (bool, int, float, complex)):
        return (), type(x).__name__, None, np.asarray(x)
    if side == "didax":
        if isinstance(x, np.ndarray) and x.dtype == float0:
            return x.shape, float0, False, None
        assert isinstance(x, didax.Array), f"didax returned {type(x).__name__}, not an Array"
        return x.shape, x.dtype, x.aval.weak_type, np.asarray(x)
    if isinstance(x, np.ndarray) and x.dtype == float0:
        return x.shape, float0, False, None
    aval = jax.typeof(x)
    return tuple(aval.shape), np.dtype(aval.dtype), aval.weak_type, np.asarray(x)


def assert_close_arrays(got, want, dtype, scale=1.0, what="") -> None:
    """Elementwise comparison: exact for integers/bools, NaN==NaN, infinities equal."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    rtol, atol = tolerance(dtype, scale)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    g = got.astype(np.complex128 if is_complex(dtype) else np.float64)
    w = want.astype(g.dtype)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def assert_tree_matches(d_out, j_out, *, scale=1.0, check_weak=True, what="result") -> None:
    """didax pytree `d_out` equals JAX pytree `j_out`: structure, shapes, dtypes, weak
    types and values."""
    d_leaves, d_tree = didax.tree_util.tree_flatten(d_out)
    j_leaves, j_tree = jax.tree_util.tree_flatten(j_out)
    assert str(d_tree) == str(j_tree), f"{what}: tree {d_tree} != {j_tree}"
    for i, (d, j) in enumerate(zip(d_leaves, j_leaves)):
        where = f"{what} leaf {i}"
        ds, ddt, dw, dv = _leaf_info(d, "didax")
        js, jdt, jw, jv = _leaf_info(j, "jax")
        assert ds == js, f"{where}: shape {ds} != JAX's {js}"
        assert np.dtype(ddt) == np.dtype(jdt), f"{where}: dtype {ddt} != JAX's {jdt}"
        if check_weak:
            assert dw == jw, f"{where}: weak_type {dw} != JAX's {jw}"
        if dv is not None:
            assert_close_arrays(dv, jv, ddt, scale, where)


# ----------------------------------------------------------------------------------------
# the two sides
# ----------------------------------------------------------------------------------------


def build_both(fn_builder: Callable) -> tuple[Callable, Callable]:
    return fn_builder(dnp, dlax), fn_builder(jnp, jlax)


def _partial(f, args, diff):
    def g(*dargs):
        full = list(args)
        for i, v in zip(diff, dargs):
            full[i] = v
        return f(*full)
    return g


def _weighted_sum(np_mod, out, weights):
    """sum_i sum(real(out_i) * w_i) over inexact leaves (a real scalar)."""
    leaves = [o for o in _leaves(np_mod, out) if is_inexact(o.dtype)]
    total = 0.0
    for o, w in zip(leaves, weights):
        total = total + np_mod.sum(np_mod.real(o) * w)
    return total


def _leaves(np_mod, out):
    mod = didax if np_mod is dnp else jax
    return mod.tree_util.tree_leaves(out)


class Plan:
    """Everything both sides need for one comparison: arguments, which are
    differentiated, tangents, cotangents, grad weights and batched arguments."""

    def __init__(self, f_j, args, diff, rng, in_axes_list, batch_args):
        self.args = list(args)
        self.diff = list(diff)
        self.tangents = [tangent_for(rng, args[i]) for i in self.diff]
        self.tangents2 = [tangent_for(rng, args[i]) for i in self.diff]
        out_shape = jax.eval_shape(f_j, *args)
        out_leaves, self.out_tree = jax.tree_util.tree_flatten(out_shape)
        self.out_avals = out_leaves
        self.cts = [np.zeros(o.shape, float0) if not is_inexact(o.dtype)
                    else random_value(rng, o.shape, o.dtype) for o in out_leaves]
        self.weights = [random_value(rng, o.shape, _real_dtype(o.dtype))
                        for o in out_leaves if is_inexact(o.dtype)]
        self.in_axes_list = in_axes_list
        self.batched = [_batched_args(args, batch_args, axes) for axes in in_axes_list]


def _real_dtype(dt):
    dt = np.dtype(dt)
    return {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}.get(dt, dt)


def default_in_axes(args) -> list[tuple]:
    """Batch-dim layouts to test: all at 0; even args at the last position with odd args
    unbatched; and the reverse."""
    n = len(args)
    configs = [(0,) * n, tuple(-1 if i % 2 == 0 else None for i in range(n))]
    if n > 1:
        configs.append(tuple(None if i % 2 == 0 else -1 for i in range(n)))
    return configs


def _batched_args(args, batch_args, in_axes):
    out = []
    for i, (a, ax) in enumerate(zip(args, in_axes)):
        if ax is None:
            out.append(a)
            continue
        samples = [b[i] for b in batch_args]
        stacked = np.stack([np.asarray(s) for s in samples])
        out.append(np.moveaxis(stacked, 0, ax if ax >= 0 else stacked.ndim + ax))
    return out


def rolled_batch(args, size=BATCH):
    """A default batch: each example rolls the flattened arguments (keeps their domain)."""
    return [[np.roll(np.asarray(a).ravel(), k).reshape(np.shape(a))
             if not isinstance(a, (int, float, complex, bool)) else a for a in args]
            for k in range(size)]


def _run_modes(np_mod, lax_mod, f, plan: Plan, modes, side: str) -> dict:
    """The results of every mode for one side (a dict mode -> pytree)."""
    mod = didax if side == "didax" else jax
    args, diff = plan.args, plan.diff
    res: dict[str, Any] = {}
    if "eval" in modes:
        res["eval"] = f(*args)
    g = _partial(f, args, diff)
    primals = [args[i] for i in diff]
    if "jvp" in modes and diff:
        res["jvp"] = mod.jvp(g, primals, list(plan.tangents))
    if "jvp2" in modes and diff:
        inner = lambda *p: mod.jvp(g, list(p), list(plan.tangents))[1]  # noqa: E731
        res["jvp2"] = mod.jvp(inner, primals, list(plan.tangents2))
    if "vjp" in modes and diff:
        out, pullback = mod.vjp(g, *primals)
        cts = (didax if side == "didax" else jax).tree_util.tree_unflatten(
            _tree_for(side, plan), plan.cts)
        res["vjp"] = (out, pullback(cts))
    if "grad" in modes and diff and plan.weights:
        h = lambda *p: _weighted_sum(np_mod, g(*p), plan.weights)  # noqa: E731
        res["grad"] = mod.grad(h, argnums=tuple(range(len(diff))))(*primals)
    if "vmap" in modes:
        res["vmap"] = [mod.vmap(f, in_axes=axes)(*bargs)
                       for axes, bargs in zip(plan.in_axes_list, plan.batched)]
    return res


def _tree_for(side, plan):
    if side == "jax":
        return plan.out_tree
    return didax.tree_util.tree_structure(
        jax.tree_util.tree_unflatten(plan.out_tree, [0] * plan.out_tree.num_leaves))


def _jax_results(f_j, plans: Sequence[Plan], modes_list) -> list[dict]:
    """JAX's results of all modes of all plans, computed inside a single jax.jit (one
    compilation): array arguments are traced, Python scalars and float0 values are closed
    over."""
    fields = [(p.args, p.tangents, p.tangents2, p.cts, p.weights, p.batched) for p in plans]
    leaves, tree = jax.tree_util.tree_flatten(fields)
    dynamic = [isinstance(x, (np.ndarray, np.generic)) and np.dtype(x.dtype) != float0
               for x in leaves]

    def run(*dyn):
        it = iter(dyn)
        full = [next(it) if d else x for x, d in zip(leaves, dynamic)]
        results = []
        for plan, modes, vals in zip(plans, modes_list, jax.tree_util.tree_unflatten(tree, full)):
            p = Plan.__new__(Plan)
            p.__dict__.update(plan.__dict__)
            p.args, p.tangents, p.tangents2, p.cts, p.weights, p.batched = vals
            results.append(_run_modes(jnp, jlax, f_j, p, modes, "jax"))
        return results

    dyn = [x for x, d in zip(leaves, dynamic) if d]
    return jax.jit(run).lower(*dyn).compile(compiler_options=FAST_COMPILE)(*dyn)


def check_against_jax(fn_builder: Callable, args: Sequence[Any],
                      modes: Sequence[str] = ("eval", "jvp", "vjp", "vmap", "grad"), *,
                      diff_argnums: Sequence[int] | None = None,
                      in_axes_list: Sequence[tuple] | None = None,
                      batch_args: Sequence[Sequence[Any]] | None = None,
                      check_weak: bool = True, tol_scale: float = 1.0,
                      seed: int = 0) -> dict:
    """Runs fn_builder's function under didax and JAX in every mode and compares.

    args: arrays (NumPy) or Python scalars. diff_argnums: which args are differentiated
    (default: the NumPy arrays of inexact dtype). batch_args: BATCH argument lists the
    vmap examples are stacked from (default: rolled copies of args). Returns didax's
    results by mode.
    """
    case = dict(args=args, modes=modes, diff_argnums=diff_argnums, in_axes_list=in_axes_list,
                batch_args=batch_args, check_weak=check_weak, tol_scale=tol_scale, seed=seed)
    return check_many(fn_builder, [case])[0]


def check_many(fn_builder: Callable, cases: Sequence[dict]) -> list[dict]:
    """check_against_jax for several argument sets (dicts of its keyword arguments plus
    `args`) with one JAX compilation for all of them."""
    f_d, f_j = build_both(fn_builder)
    prepared = [_prepare(f_j, **c) for c in cases]
    want = _jax_results(f_j, [p[0] for p in prepared], [p[1] for p in prepared])
    out = []
    for i, ((plan, jax_modes, _), w, c) in enumerate(zip(prepared, want, cases)):
        try:
            out.append(_compare(f_d, plan, jax_modes, w, c))
        except AssertionError as e:
            desc = ", ".join(f"{np.asarray(a).dtype}{list(np.shape(a))}" for a in plan.args)
            raise AssertionError(f"case {i} ({desc}): {e}") from None
    return out


def _prepare(f_j, args, modes=DEFAULT_MODES, diff_argnums=None, in_axes_list=None,
             batch_args=None, seed=0, **_):
    rng = np.random.default_rng(seed)
    if diff_argnums is None:
        diff_argnums = [i for i, a in enumerate(args)
                        if isinstance(a, (np.ndarray, np.generic)) and is_inexact(a.dtype)]
    in_axes_list = list(in_axes_list or default_in_axes(args))
    plan = Plan(f_j, args, diff_argnums, rng, in_axes_list, batch_args or rolled_batch(args))
    jax_modes = [m for m in modes if m not in ("jaxpr", "fd")]
    return plan, jax_modes, rng


def _compare(f_d, plan: Plan, jax_modes, want: dict, case: dict) -> dict:
    """didax's results of one case, compared with JAX's."""
    tol_scale, check_weak = case.get("tol_scale", 1.0), case.get("check_weak", True)
    modes = case.get("modes", DEFAULT_MODES)
    got = _run_modes(dnp, dlax, f_d, plan, jax_modes, "didax")
    for mode in jax_modes:
        if mode not in want:
            continue
        scale = tol_scale * (1.0 if mode in ("eval", "vmap") else DERIVATIVE_SCALE)
        assert mode in got, f"didax produced no {mode} result"
        assert_tree_matches(got[mode], want[mode], scale=scale, check_weak=check_weak,
                            what=mode)
    if "jaxpr" in modes:
        check_jaxpr_roundtrip(f_d, plan.args, tol_scale)
    if "fd" in modes and plan.diff:
        check_finite_differences(f_d, plan.args, plan.diff, np.random.default_rng(1))
    return got


# ----------------------------------------------------------------------------------------
# didax-only checks: staged jaxprs and finite differences
# ----------------------------------------------------------------------------------------


def check_jaxpr_roundtrip(f, args, tol_scale=1.0) -> None:
    """make_jaxpr(f) type-checks and evaluating it gives the eager result (types too)."""
    closed = didax.make_jaxpr(f)(*args)
    dcore.check_jaxpr(closed.jaxpr)
    flat_args = didax.tree_util.tree_leaves(args)
    outs = dcore.eval_jaxpr(closed.jaxpr, closed.consts, *flat_args)
    eager = didax.tree_util.tree_leaves(f(*args))
    assert len(outs) == len(eager)
    for i, (o, e, aval) in enumerate(zip(outs, eager, closed.out_avals)):
        assert tuple(np.shape(o)) == e.shape == aval.shape, f"jaxpr output {i} shape"
        assert np.dtype(dcore.get_aval(o).dtype) == e.dtype == aval.dtype, \
            f"jaxpr output {i} dtype"
        assert aval.weak_type == e.aval.weak_type, f"jaxpr output {i} weak_type"
        assert_close_arrays(np.asarray(o), np.asarray(e), e.dtype, tol_scale,
                            f"jaxpr output {i}")


def numerical_jvp(f, args, diff, tangents, eps):
    """Central differences of f along tangents (didax eager, float64)."""
    def shifted(sign):
        full = list(args)
        for i, t in zip(diff, tangents):
            full[i] = np.asarray(args[i]) + sign * eps * np.asarray(t)
        return [np.asarray(o, np.complex128 if is_complex(o.dtype) else np.float64)
                for o in didax.tree_util.tree_leaves(f(*full))]
    plus, minus = shifted(1.0), shifted(-1.0)
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def check_finite_differences(f, args, diff, rng=None, eps=1e-6, rtol=1e-5, atol=1e-6):
    """didax's jvp and vjp of f (w.r.t. args[diff], float64) match central differences,
    and vjp is the adjoint of jvp: <ct, J t> == <J^T ct, t>."""
    rng = rng or np.random.default_rng(0)
    tangents = [random_value(rng, np.shape(args[i]), np.asarray(args[i]).dtype)
                for i in diff]
    g = _partial(f, args, diff)
    primals = [args[i] for i in diff]
    _, t_out = didax.jvp(g, primals, tangents)
    t_leaves = didax.tree_util.tree_leaves(t_out)
    num = numerical_jvp(f, args, diff, tangents, eps)
    for i, (a, n) in enumerate(zip(t_leaves, num)):
        if a.dtype == float0:
            continue
        np.testing.assert_allclose(np.asarray(a), n, rtol=rtol, atol=atol,
                                   err_msg=f"jvp output {i} vs finite differences")
    out, pullback = didax.vjp(g, *primals)
    out_leaves, out_tree = didax.tree_util.tree_flatten(out)
    cts = [tangent_for(rng, o) for o in out_leaves]
    ct_in = pullback(didax.tree_util.tree_unflatten(out_tree, cts))
    lhs = sum(_vdot(c, t) for c, t in zip(cts, t_leaves))
    rhs = sum(_vdot(c, t) for c, t in zip(ct_in, tangents))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9,
                               err_msg="vjp is not the transpose of jvp")


def _vdot(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == float0 or b.dtype == float0:
        return 0.0
    # JAX pairs cotangents and tangents without conjugation: Re(sum(ct * t))
    return np.real(np.sum(a * b))


# ----------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------


def raised(fn: Callable, *args, **kwargs) -> BaseException | None:
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the result under test
        return e
    return None


def check_error_against_jax(fn_builder: Callable, args: Sequence[Any], *,
                            message: str = "exact", transform: Callable | None = None):
    """Both sides raise, with the same exception class name (or a didax class that derives
    from one of the same name). message: "exact" (identical text), "class" (only the
    class), or a substring both messages contain. `transform(mod, f)` wraps the function
    (e.g. lambda mod, f: mod.grad(f)). Returns (didax error, JAX error)."""
    f_d, f_j = build_both(fn_builder)
    if transform is not None:
        f_d, f_j = transform(didax, f_d), transform(jax, f_j)
    e_j = raised(f_j, *args)
    assert e_j is not None, "JAX did not raise; the test expectation is wrong"
    e_d = raised(f_d, *args)
    assert e_d is not None, f"didax did not raise; JAX raised {type(e_j).__name__}: {e_j}"
    assert_same_error(e_d, e_j, message)
    return e_d, e_j


def assert_same_error(e_d: BaseException, e_j: BaseException, message: str = "exact"):
    d_names = [c.__name__ for c in type(e_d).__mro__]
    assert type(e_j).__name__ in d_names, (
        f"didax raised {type(e_d).__name__}: {e_d}\nJAX raised {type(e_j).__name__}: {e_j}")
    if message == "exact":
        assert _first_lines(e_d) == _first_lines(e_j), (
            f"messages differ:\ndidax: {e_d}\nJAX:   {e_j}")
    elif message != "class":
        assert message in str(e_d), f"didax message lacks {message!r}: {e_d}"
        assert message in str(e_j), f"JAX message lacks {message!r}: {e_j}"


def _first_lines(e: BaseException, n: int = 1) -> str:
    return "\n".join(str(e).strip().splitlines()[:n])


# ----------------------------------------------------------------------------------------
# convenience for transformation tests
# ----------------------------------------------------------------------------------------


def both(fn_builder: Callable, call: Callable[[Any, Callable], Any], *,
         scale: float = 1.0, check_weak: bool = True):
    """Builds the function for both libraries, runs call(module, f) with didax and jax
    (module = the top-level package), compares and returns didax's result."""
    f_d, f_j = build_both(fn_builder)
    got = call(didax, f_d)
    want = call(jax, f_j)
    assert_tree_matches(got, want, scale=scale, check_weak=check_weak)
    return got


def same(call: Callable[[Any, Any, Any], Any], *, scale=1.0, check_weak=True):
    """call(jax_like, jnp_like, lax_like) under both libraries; compares the results."""
    got = call(didax, dnp, dlax)
    want = call(jax, jnp, jlax)
    assert_tree_matches(got, want, scale=scale, check_weak=check_weak)
    return got


__all__ = [
    "BATCH", "DEFAULT_MODES", "Plan", "assert_close_arrays", "assert_same_error",
    "assert_tree_matches", "bfloat16", "both", "build_both", "check_against_jax", "check_many",
    "check_error_against_jax", "check_finite_differences", "check_jaxpr_roundtrip",
    "default_in_axes", "float0", "functools", "is_complex", "is_inexact", "needs_x64",
    "numerical_jvp", "raised", "random_value", "rolled_batch", "same", "seed_of",
    "tangent_for", "tolerance", "x64_mode",
]
