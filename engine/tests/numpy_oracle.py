"""Helpers for the didax.numpy tests: run a jnp function under didax and under real JAX
(the oracle) on the same inputs and compare values (per-dtype tolerances), dtypes, weak
types, shapes, pytree structure and error classes; plus grad/vmap/jaxpr comparisons.

Inputs are described once and materialized for each library: NumPy arrays and Python
scalars pass through unchanged; `W(v)` is `asarray(v)` of the library (a weakly typed
array); `L(...)` is a list whose elements are materialized recursively.
"""

from __future__ import annotations

import contextlib
import warnings

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
from didax._src.config import config as dconfig

TOL = {"float16": 4e-3, "bfloat16": 3e-2, "float32": 2e-5, "float64": 1e-12,
       "complex64": 2e-5, "complex128": 1e-12}


class W:
    """asarray(value) in the library under test (keeps Python-scalar weak typing)."""

    def __init__(self, value, dtype=None):
        self.value, self.dtype = value, dtype

    def __repr__(self):
        return f"W({self.value!r})"


class L(list):
    """A list whose elements are materialized per library."""


def materialize(x, np_mod):
    if isinstance(x, W):
        return np_mod.asarray(x.value, x.dtype)
    if isinstance(x, L):
        return [materialize(e, np_mod) for e in x]
    if isinstance(x, tuple):
        return tuple(materialize(e, np_mod) for e in x)
    if isinstance(x, dict):
        return {k: materialize(v, np_mod) for k, v in x.items()}
    return x


def outcome(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - comparing failures is the point
            return "err", e


def _is_array(x) -> bool:
    return isinstance(x, (jax.Array, didax.Array)) or hasattr(x, "aval")


def assert_leaf_equal(d, j, where="", rtol=None):
    if _is_array(j):
        assert _is_array(d), f"{where}: didax gave {type(d)}, JAX an Array"
        assert d.shape == j.shape, f"{where}: shape {d.shape} vs {j.shape}"
        assert d.dtype == j.dtype, f"{where}: dtype {d.dtype} vs {j.dtype}"
        assert bool(d.weak_type) == bool(j.weak_type), \
            f"{where}: weak_type {d.weak_type} vs {j.weak_type}"
        dv, jv = np.asarray(d), np.asarray(j)
    else:
        assert not _is_array(d) or np.ndim(d) == np.ndim(j), f"{where}: {type(d)} vs {type(j)}"
        assert type(d) is type(j) or _is_array(d), f"{where}: {type(d)} vs {type(j)}"
        dv, jv = np.asarray(d), np.asarray(j)
    assert_values_close(dv, jv, where, rtol)


def assert_values_close(dv, jv, where="", rtol=None):
    if jv.dtype.kind in "fc" or jv.dtype.name == "bfloat16":
        tol = rtol if rtol is not None else TOL.get(jv.dtype.name, 1e-6)
        np.testing.assert_allclose(dv.astype(np.complex128 if jv.dtype.kind == "c" else
                                             np.float64),
                                   jv.astype(np.complex128 if jv.dtype.kind == "c" else
                                             np.float64),
                                   rtol=tol, atol=tol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(dv, jv, err_msg=where)


def assert_tree_equal(d, j, where="", rtol=None):
    dl, dt = jax.tree_util.tree_flatten(d, is_leaf=_is_array)
    jl, jt = jax.tree_util.tree_flatten(j, is_leaf=_is_array)
    assert len(dl) == len(jl) and str(dt) == str(jt), f"{where}: structure {dt} vs {jt}"
    for i, (a, b) in enumerate(zip(dl, jl)):
        assert_leaf_equal(a, b, f"{where}[{i}]", rtol)


def check(name, *args, rtol=None, fn=None, **kwargs):
    """getattr(np_module, name)(*args, **kwargs) agrees between didax and JAX (or both
    raise the same exception class)."""
    dfn = fn(dnp) if fn else getattr(dnp, name)
    jfn = fn(jnp) if fn else getattr(jnp, name)
    d = outcome(dfn, *materialize(args, dnp), **materialize(kwargs, dnp))
    j = outcome(jfn, *materialize(args, jnp), **materialize(kwargs, jnp))
    if j[0] == "err":
        assert d[0] == "err", f"{name}: JAX raised {j[1]!r}, didax returned {d[1]!r}"
        assert _same_error_class(d[1], j[1]), f"{name}: {d[1]!r} vs {j[1]!r}"
        return
    if d[0] == "err":
        raise AssertionError(f"{name}: didax raised {d[1]!r}; JAX returned {j[1]!r}") \
            from d[1]
    assert_tree_equal(d[1], j[1], name, rtol)


def _same_error_class(de, je) -> bool:
    if type(de).__name__ == type(je).__name__:
        return True
    base = (TypeError, ValueError, IndexError, NotImplementedError, OverflowError,
            ZeroDivisionError, KeyError, AttributeError, RuntimeError)
    return any(isinstance(de, b) and isinstance(je, b) for b in base)


@contextlib.contextmanager
def x64(enabled=True):
    prev_d, prev_j = dconfig._read("jax_enable_x64"), jax.config._read("jax_enable_x64")
    dconfig.update("jax_enable_x64", enabled)
    jax.config.update("jax_enable_x64", enabled)
    try:
        yield
    finally:
        dconfig.update("jax_enable_x64", prev_d)
        jax.config.update("jax_enable_x64", prev_j)


def check_grad(fn_of_np, *args, argnums=0, rtol=None):
    """grad of sum(fn(np_module)(*args)) agrees (real outputs)."""
    def scalar(np_mod, lib):
        f = fn_of_np(np_mod)
        return lambda *a: np_mod.sum(np_mod.real(f(*a)))
    dg = didax.grad(scalar(dnp, didax), argnums)(*materialize(args, dnp))
    jg = jax.grad(scalar(jnp, jax), argnums)(*materialize(args, jnp))
    assert_tree_equal(dg, jg, "grad", rtol)


def check_vmap(fn_of_np, *args, in_axes=0, rtol=None):
    dv = didax.vmap(fn_of_np(dnp), in_axes)(*materialize(args, dnp))
    jv = jax.vmap(fn_of_np(jnp), in_axes)(*materialize(args, jnp))
    assert_tree_equal(dv, jv, "vmap", rtol)


def jaxpr_prims(closed) -> list[str]:
    """Primitive names of a jaxpr, nested jaxprs included, in order."""
    out: list[str] = []

    def walk(jaxpr):
        for e in jaxpr.eqns:
            out.append(e.primitive.name)
            for p in e.params.values():
                inner = getattr(p, "jaxpr", p)
                if hasattr(inner, "eqns"):
                    walk(inner)
    walk(closed.jaxpr)
    return out


def check_prims(fn_of_np, *args, **kwargs):
    """make_jaxpr of fn stages the same multiset of primitives in didax as in JAX."""
    dj = didax.make_jaxpr(fn_of_np(dnp), **kwargs)(*materialize(args, dnp))
    jj = jax.make_jaxpr(fn_of_np(jnp), **kwargs)(*materialize(args, jnp))
    assert sorted(jaxpr_prims(dj)) == sorted(jaxpr_prims(jj)), f"{dj}\nvs JAX\n{jj}"


def rand(shape, dtype=np.float32, seed=0, low=-3, high=3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    if dt.kind in "iu":
        lo = max(low, 0) if dt.kind == "u" else low
        return rng.integers(lo, high, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dt)
    return rng.uniform(low, high, shape).astype(dt)
