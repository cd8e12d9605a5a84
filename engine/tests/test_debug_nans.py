"""`jax_debug_nans` / `jax_debug_infs` against JAX: which calls raise FloatingPointError,
with what message, and what is printed on the way (the de-optimized re-run of a jit)."""

from __future__ import annotations

import contextlib
import io

import didax
import jax
import numpy as np


def _run(lib, flag, body):
    """stdout and (exception class, first message line) of body(lib) with flag set."""
    buf = io.StringIO()
    err = None
    with contextlib.redirect_stdout(buf), getattr(lib, flag)(True):
        try:
            body(lib)
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            err = (type(e).__name__, str(e).splitlines()[0])
    return buf.getvalue(), err


def _f(lib):
    def f(x):
        w = 3 * lib.numpy.square(x)
        return lib.numpy.log(-w)
    return f


CASES = {
    "eager_jnp": lambda lib: _f(lib)(5.0),
    "jit": lambda lib: lib.jit(_f(lib))(5.0),
    "lax_eager": lambda lib: lib.lax.log(np.float32(-1.0)),
    "clean": lambda lib: print(lib.jit(_f(lib))(-1.0)),
    "jit_nan_literal": lambda lib: lib.jit(lambda x: x + lib.numpy.nan)(1.0),
    "sum_inf": lambda lib: lib.numpy.exp(np.float32(100.0)),
}


def test_debug_nans_as_jax():
    for name, body in CASES.items():
        assert _run(didax, "debug_nans", body) == _run(jax, "debug_nans", body), name


def test_debug_infs_as_jax():
    for name in ("sum_inf", "clean"):
        body = CASES[name]
        assert _run(didax, "debug_infs", body) == _run(jax, "debug_infs", body), name


def test_off_by_default_and_in_a_context():
    for lib in (didax, jax):
        assert np.isnan(lib.jit(_f(lib))(5.0))
        with lib.debug_nans(True), lib.debug_nans(False):
            assert np.isnan(_f(lib)(5.0))
