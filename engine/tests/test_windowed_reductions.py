"""`lax.reduce_window` against real JAX: the monoid primitives (sum/max/min pooling) with
strides, every padding form, base and window dilation, in every oracle mode (value, jaxpr
round trip, JVP, VJP, grad, vmap); select_and_gather_add / select_and_scatter_add through
first and second derivatives of max pooling; the generic primitive (any computation,
pytrees of operands); dtypes; jaxpr text; errors.
"""

from __future__ import annotations

import contextlib

import didax
import jax
import numpy as np
import pytest
from oracle import (
    bfloat16,
    check_error_against_jax,
    check_many,
    random_value,
    same,
    x64_mode,
)

ALL_MODES = ("eval", "jaxpr", "jvp", "vjp", "vmap", "grad")

# (monoid, window_dimensions, strides, padding, base_dilation, window_dilation)
CONFIGS = {
    "max_pool_same": ("max", (1, 1, 3, 2), (1, 1, 2, 2), "SAME", None, None),
    "max_pool_valid": ("max", (1, 2, 2, 2), (1, 1, 2, 1), "VALID", None, None),
    "max_base_dilation": ("max", (1, 1, 2, 3), (1, 1, 1, 2), ((0, 0), (0, 0), (1, 0), (2, 1)),
                          (1, 1, 2, 1), None),
    "min_pool_same_lower": ("min", (1, 1, 2, 2), (1, 1, 1, 3), "SAME_LOWER", None, None),
    "sum_pool_explicit": ("sum", (1, 1, 2, 3), (1, 1, 2, 1), ((0, 0), (0, 0), (1, 1), (0, 2)),
                          None, None),
    "sum_dilations": ("sum", (1, 2, 2, 2), (1, 1, 2, 2), "SAME", (1, 1, 1, 2), (1, 1, 2, 1)),
    "sum_1d_negative_pad": ("sum", (3,), (2,), ((-1, 2),), None, None),
}


def _pool(kind, wd, ws, pad, bd, wdil):
    def build(jnp, lax):
        op, init = {"max": (lax.max, -jnp.inf), "min": (lax.min, jnp.inf),
                    "sum": (lax.add, 0.0)}[kind]
        return lambda x: lax.reduce_window(x, init, op, wd, ws, pad, bd, wdil)
    return build


def _case(shape, dtype, seed, modes=ALL_MODES):
    rng = np.random.default_rng(seed)
    return dict(args=[random_value(rng, shape, dtype)], modes=modes, seed=seed)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_monoid_reduce_window_matches_jax(name):
    cfg = CONFIGS[name]
    shape = (7,) if len(cfg[1]) == 1 else (2, 3, 7, 6)
    check_many(_pool(*cfg), [_case(shape, np.float32, 0)])


def test_pool_finite_differences_float64():
    with x64_mode():
        for name in ("max_pool_same", "sum_dilations"):
            check_many(_pool(*CONFIGS[name]),
                       [_case((2, 3, 7, 6), np.float64, 1, ("eval", "vjp", "fd"))])


@pytest.mark.parametrize("dtype", [np.float16, bfloat16, np.int32, np.bool_])
def test_pool_dtypes(dtype):
    modes = ("eval", "vjp", "vmap") if dtype in (np.float16, bfloat16) else ("eval", "vmap")
    kinds = ("max", "min") if dtype == np.bool_ else ("max", "sum")

    def build(jnp, lax):
        def f(x):
            outs = []
            for kind in kinds:
                op = {"max": lax.max, "min": lax.min, "sum": lax.add}[kind]
                outs.append(lax.reduce_window(x, _identity(jnp, x.dtype, kind), op,
                                              (2, 2), (1, 2), "SAME"))
            return outs
        return f
    check_many(build, [_case((5, 6), dtype, 2, modes)])


def _identity(jnp, dtype, kind):
    dtype = np.dtype(dtype)
    if kind == "sum":
        return np.zeros((), dtype)
    if dtype == np.bool_:
        return np.array(kind == "min")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(info.min if kind == "max" else info.max, dtype)
    return np.array(-np.inf if kind == "max" else np.inf, dtype)


def _hvp(top, f, x):
    inner = top.grad(lambda x: (f(x) ** 2).sum())
    return top.jvp(inner, (x,), (x[::-1],))


@pytest.mark.parametrize("name", ["max_pool_same", "max_base_dilation", "min_pool_same_lower"])
def test_max_pool_second_derivatives(name):
    """grad of grad: select_and_gather_add and select_and_scatter_add transpose into
    each other (and with base dilation)."""
    x = random_value(np.random.default_rng(3), (2, 2, 6, 5), np.float32)
    pools = {m: _pool(*CONFIGS[name])(m.numpy, m.lax) for m in (didax, jax)}
    same(lambda top, jnp, lax: _hvp(top, pools[top], x), scale=10)
    same(lambda top, jnp, lax: top.jit(lambda x: _hvp(top, pools[top], x))(x), scale=10)


def test_generic_reduce_window():
    def build(jnp, lax):
        def f(x, y):
            prod = lax.reduce_window(x, 1.0, lax.mul, (2, 1), (1, 1), ((1, 0), (0, 1)))
            pair = lax.reduce_window(
                (x, y), (-jnp.inf, 0.0),
                lambda a, b: (lax.max(a[0], b[0]), lax.add(a[1], lax.mul(b[1], b[0]))),
                (2, 2), (1, 2), "SAME", base_dilation=(2, 1))
            return prod, pair
        return f
    rng = np.random.default_rng(4)
    args = [random_value(rng, (4, 5), np.float32), random_value(rng, (4, 5), np.float32)]
    check_many(build, [dict(args=args, modes=("eval", "jaxpr", "jvp", "vmap"))])


def _same_text(build, *args):
    got = str(didax.make_jaxpr(build(didax))(*args))
    want = str(jax.make_jaxpr(build(jax))(*args))
    assert got == want, f"\n--- didax\n{got}\n--- JAX\n{want}"


X = np.linspace(-1, 1, 2 * 3 * 7 * 6, dtype=np.float32).reshape(2, 3, 7, 6)


@pytest.mark.parametrize("name", ["max_pool_same", "max_base_dilation", "sum_dilations"])
def test_jaxpr_text_matches_jax(name):
    cfg = CONFIGS[name]

    def pool(top):
        return _pool(*cfg)(top.numpy, top.lax)
    _same_text(lambda top: pool(top), X)
    _same_text(lambda top: top.grad(lambda x: (pool(top)(x) ** 2).sum()), X)
    _same_text(lambda top: top.vmap(top.grad(lambda x: pool(top)(x).sum()), in_axes=2),
               X[:, :, None])
    _same_text(lambda top: lambda x: top.lax.reduce_window(x, 1.0, top.lax.mul, (1, 1, 2, 2),
                                                           (1, 1, 1, 2), "VALID"), X)


def test_eager_equals_jit_and_jax_exactly():
    f_d = _pool(*CONFIGS["sum_dilations"])(didax.numpy, didax.lax)
    f_j = _pool(*CONFIGS["sum_dilations"])(jax.numpy, jax.lax)
    got, want = np.asarray(f_d(X)), np.asarray(f_j(X))
    assert np.array_equal(got, np.asarray(didax.jit(f_d)(X)))
    assert np.array_equal(got, want)


# (shape, window, strides, padding): windows that never overlap (pooling's usual case,
# lowered as elementwise code) and one overlapping case (XLA's select_and_scatter)
SCATTER_CASES = [((4, 6, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4),
                 ((2, 7, 5, 3), (1, 3, 2, 1), (1, 3, 3, 1), ((0, 0), (1, 1), (0, 2), (0, 0))),
                 ((9,), (3,), (3,), ((0, 0),)),
                 ((2, 6, 6, 2), (1, 2, 2, 1), (1, 1, 1, 1), ((0, 0),) * 4)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("case", range(len(SCATTER_CASES)))
def test_select_and_scatter_add_bitwise(case, dtype):
    """Each window's first extremum in XLA's visiting order receives its cotangent: ties,
    NaN (which ge/le never keep), -0.0 and padding, eagerly and under jit, as JAX."""
    from didax._src.lax import lax as dlax
    from didax._src.lax import windowed_reductions as wr
    from jax._src.lax.windowed_reductions import _select_and_scatter_add

    shape, window, strides, pad = SCATTER_CASES[case]
    rng = np.random.default_rng(case)
    x = np.round(rng.standard_normal(shape) * 2).astype(dtype)
    out = [(d + lo + hi - w) // s + 1 for d, (lo, hi), w, s in zip(shape, pad, window, strides)]
    src = (rng.standard_normal(out) * 4).astype(dtype)
    if dtype == np.float32:
        x.flat[rng.integers(0, x.size, 3)] = np.nan
        src.flat[0] = -0.0
    for sel in ("ge", "le"):
        def f(s, o, sel=sel):
            return wr.select_and_scatter_add_p.bind(
                s, o, select_prim=getattr(dlax, f"{sel}_p"), window_dimensions=window,
                window_strides=strides, padding=pad)
        want = np.asarray(jax.jit(lambda s, o, sel=sel: _select_and_scatter_add(
            s, o, getattr(jax.lax, f"{sel}_p"), window, strides, pad))(src, x))
        assert np.asarray(f(src, x)).tobytes() == want.tobytes()
        assert np.asarray(didax.jit(f)(src, x)).tobytes() == want.tobytes()
        with _taping():  # eager reverse mode computes it on NumPy (lax/_pool_np)
            assert np.asarray(f(src, x)).tobytes() == want.tobytes()


@contextlib.contextmanager
def _taping():
    """As while an eager tape records or pulls back."""
    from didax._src.interpreters import tape
    tape.ACTIVE[0] += 1
    try:
        yield
    finally:
        tape.ACTIVE[0] -= 1


@pytest.mark.parametrize("cfg", [("max", (1, 1, 2, 2), (1, 1, 2, 2), "VALID", None, None),
                                 ("min", (1, 1, 3, 3), (1, 1, 3, 3), "SAME", None, None),
                                 ("max", (1, 2, 2, 1), (1, 2, 3, 1), "SAME", None, None),
                                 ("max", (1, 1, 2, 2), (1, 1, 2, 2), "SAME", None, None)])
def test_pooling_under_the_tape_equals_jit(monkeypatch, cfg):
    """While a tape is active max/min pooling over disjoint windows and its pullback run
    on NumPy (no XLA program is dispatched): values equal jit's (NaN included; signed
    zeros aside), gradients JAX's bit for bit (windows tiling the padded input: from the
    choices the forward pooling remembered)."""
    _forbid_xla(monkeypatch)
    pool_d, pool_j = (_pool(*cfg)(m.numpy, m.lax) for m in (didax, jax))
    x = np.round(np.random.default_rng(1).standard_normal((2, 3, 7, 6)) * 2)
    x = x.astype(np.float32)
    x[0, 0, 0, :2] = np.nan
    with _taping():
        got = np.asarray(pool_d(x))
    monkeypatch.undo()
    assert np.array_equal(got, np.asarray(didax.jit(pool_d)(x)), equal_nan=True)
    x[0, 0, 0, :2] = 0.0
    _forbid_xla(monkeypatch)
    shape = got.shape
    scale = (np.arange(np.prod(shape)) % 5 - 2).reshape(shape).astype(np.float32)
    g = didax.grad(lambda x: (pool_d(x) * scale).sum())(x)
    gj = jax.grad(lambda x: (pool_j(x) * scale).sum())(x)
    assert np.asarray(g).tobytes() == np.asarray(gj).tobytes()


def _forbid_xla(monkeypatch):
    """Eager evaluation may not compile a one-equation XLA program (lax.dispatch)."""
    from didax._src.lax import dispatch

    def compile_equation(prim, *_):
        raise AssertionError(f"{prim.name} was dispatched to XLA")
    monkeypatch.setattr(dispatch, "_by_key", {})
    monkeypatch.setattr(dispatch, "compile_equation", compile_equation)


@pytest.mark.parametrize("build,args", [
    (lambda l: lambda x: l.reduce_window(x, 0.0, l.add, (2, 2), (1, 1), "VALID"),
     (np.ones((3, 4, 5), np.float32),)),
    (lambda l: lambda x: l.reduce_window(x, 0.0, l.add, (2, 0), (1, 1), "VALID"),
     (np.ones((4, 5), np.float32),)),
    (lambda l: lambda x: l.reduce_window(x, 0.0, l.add, (2, 2), (1,), "VALID"),
     (np.ones((4, 5), np.float32),)),
    (lambda l: lambda x: l.reduce_window(x, 1.0, l.mul, (2, 2), (1, 1), "VALID"),
     (np.ones((4, 5), np.float16),)),
    (lambda l: lambda x: l.reduce_window((x, x), (0.0,), l.add, (2, 2), (1, 1), "VALID"),
     (np.ones((4, 5), np.float32),)),
    (lambda l: lambda x: l.reduce_window(x, 0.0, l.add, (2, 2), (1, 1), "BAD"),
     (np.ones((4, 5), np.float32),)),
])
def test_reduce_window_errors_match_jax(build, args):
    check_error_against_jax(lambda jnp, lax: build(lax), args)


def test_max_pool_window_dilation_has_no_vjp():
    check_error_against_jax(
        lambda jnp, lax: lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,),
                                                     "VALID", window_dilation=(2,)).sum(),
        (np.arange(6.0, dtype=np.float32),), transform=lambda mod, f: mod.grad(f))


def test_reduce_window_shape_tuple():
    args = ((7, 6), (2, 3), (2, 1), ((1, 0), (0, 2)), (1, 2), (2, 1))
    assert didax.lax.reduce_window_shape_tuple(*args) == jax.lax.reduce_window_shape_tuple(
        *args)
