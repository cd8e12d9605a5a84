"""Small differential helpers shared by the jit/AOT/callback/custom-rule/viz suites: compare
a didax result with real JAX's (tree structure, shapes, dtypes, weak types, values with
per-dtype tolerances) and compare raised errors (class and text).

Real JAX is the test oracle only; the engine itself never imports it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import didax
import jax
import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)

# (rtol, atol): didax evaluates eagerly with NumPy and JAX with XLA, so transcendental
# results may differ by an ulp or two; jitted code runs through the same XLA.
TOLERANCE = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (2e-2, 2e-2),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
    "complex64": (1e-5, 1e-6),
    "complex128": (1e-12, 1e-14),
}


@contextlib.contextmanager
def x64(enabled: bool = True):
    """jax_enable_x64 in both libraries for the duration."""
    prev_d, prev_j = didax.config.jax_enable_x64, jax.config.jax_enable_x64
    didax.config.update("jax_enable_x64", enabled)
    jax.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        didax.config.update("jax_enable_x64", prev_d)
        jax.config.update("jax_enable_x64", prev_j)


def _info(x, lib):
    """(shape, dtype, weak_type, host value) of one output leaf."""
    if isinstance(x, np.ndarray) and x.dtype.names == ("float0",):
        return x.shape, "float0", False, None
    if lib == "didax":
        if isinstance(x, (bool, int, float, complex)):
            return (), type(x).__name__, None, np.asarray(x)
        assert isinstance(x, didax.Array), f"didax returned {type(x).__name__}, not an Array"
        return x.shape, x.dtype.name, x.aval.weak_type, np.asarray(x)
    if isinstance(x, (bool, int, float, complex)):
        return (), type(x).__name__, None, np.asarray(x)
    aval = jax.typeof(x)
    return tuple(aval.shape), np.dtype(aval.dtype).name, aval.weak_type, np.asarray(x)


def assert_close(got, want, dtype_name: str, scale: float = 1.0, what: str = "") -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    rtol, atol = TOLERANCE.get(dtype_name, (0.0, 0.0))
    if rtol == 0:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    kind = np.complex128 if "complex" in dtype_name else np.float64
    np.testing.assert_allclose(got.astype(kind), want.astype(kind), rtol=rtol * scale,
                               atol=atol * scale, equal_nan=True, err_msg=what)
    # signed zeros and infinities must agree exactly
    g, w = got.astype(kind).ravel(), want.astype(kind).ravel()
    if "complex" not in dtype_name:
        exact = (g == 0) | np.isinf(g)
        np.testing.assert_array_equal(np.signbit(g[exact]), np.signbit(w[exact]),
                                      err_msg=f"{what}: signs of zeros/infinities")


def assert_same(got, want, *, scale: float = 1.0, weak: bool = True, what: str = "result"):
    """didax pytree `got` matches JAX pytree `want` leaf by leaf."""
    d_leaves, d_tree = didax.tree_util.tree_flatten(got)
    j_leaves, j_tree = jax.tree_util.tree_flatten(want)
    assert str(d_tree) == str(j_tree), f"{what}: tree {d_tree} != JAX's {j_tree}"
    for i, (d, j) in enumerate(zip(d_leaves, j_leaves)):
        where = f"{what} leaf {i}"
        if isinstance(d, str) or isinstance(j, str) or d is None or j is None:
            assert d == j, f"{where}: {d!r} != JAX's {j!r}"
            continue
        ds, ddt, dw, dv = _info(d, "didax")
        js, jdt, jw, jv = _info(j, "jax")
        assert ds == js, f"{where}: shape {ds} != JAX's {js}"
        assert ddt == jdt, f"{where}: dtype {ddt} != JAX's {jdt}"
        if weak:
            assert dw == jw, f"{where}: weak_type {dw} != JAX's {jw}"
        if dv is not None:
            assert_close(dv, jv, ddt, scale, where)


def raised(fn: Callable, *args, **kwargs) -> BaseException | None:
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is what is under test
        return e
    return None


def assert_same_error(e_d: BaseException | None, e_j: BaseException | None,
                      text: str = "exact") -> None:
    """Both raised, with the same class name (or a didax subclass of one so named);
    text: 'exact' (same first line), 'class', or a substring of both messages."""
    assert e_j is not None, "JAX did not raise: the expectation is wrong"
    assert e_d is not None, f"didax did not raise; JAX raised {type(e_j).__name__}: {e_j}"
    names = [c.__name__ for c in type(e_d).__mro__]
    assert type(e_j).__name__ in names, (
        f"didax raised {type(e_d).__name__}: {e_d}\nJAX raised {type(e_j).__name__}: {e_j}")
    if text == "exact":
        first_d = str(e_d).strip().splitlines()[0] if str(e_d).strip() else ""
        first_j = str(e_j).strip().splitlines()[0] if str(e_j).strip() else ""
        assert first_d == first_j, f"messages differ:\ndidax: {e_d}\nJAX:   {e_j}"
    elif text != "class":
        assert text in str(e_d), f"didax message lacks {text!r}: {e_d}"
        assert text in str(e_j), f"JAX message lacks {text!r}: {e_j}"


def same(call: Callable[[Any, Any], Any], **kw):
    """call(jax_like, jnp_like) under both libraries; the results must match."""
    got = call(didax, didax.numpy)
    want = call(jax, jax.numpy)
    assert_same(got, want, **kw)
    return got


def same_error(call: Callable[[Any, Any], Any], text: str = "exact"):
    """call(jax_like, jnp_like) raises the same error under both libraries."""
    e_j = raised(call, jax, jax.numpy)
    e_d = raised(call, didax, didax.numpy)
    assert_same_error(e_d, e_j, text)
    return e_d, e_j
