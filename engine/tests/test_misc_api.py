"""Smaller public APIs against JAX: jax.nn.dot_product_attention (grouped heads, masks,
bias, gradients), jax.nn.scaled_dot_general, jax.debug.breakpoint (interactive commands,
and the end of input quitting the program as JAX's debugger does), jnp.array of ranges."""

from __future__ import annotations

import io

import didax
import jax
import numpy as np
import pytest
from jaxcompare import assert_same, same, same_error


def _attention(lib):
    nn, jnp = lib.nn, lib.numpy
    r = np.random.RandomState(0)
    q = r.randn(2, 5, 4, 8).astype(np.float32)
    k, v = (r.randn(2, 7, 2, 8).astype(np.float32) for _ in range(2))
    bias = r.randn(2, 4, 5, 7).astype(np.float32)
    lens = jnp.array([3, 5], jnp.int32), jnp.array([6, 7], jnp.int32)
    return (nn.dot_product_attention(q, k, v),
            nn.dot_product_attention(q, k, v, bias, np.ones((1, 1, 5, 7), bool), scale=0.5),
            nn.dot_product_attention(q[:, :, :2], k, v, is_causal=True, local_window_size=2),
            nn.dot_product_attention(q, k, v, query_seq_lengths=lens[0],
                                     key_value_seq_lengths=lens[1]),
            nn.dot_product_attention(q[0, :, :2], k[0], v[0]),
            lib.jit(lib.grad(lambda q: nn.dot_product_attention(q, k, v, bias).sum()))(q))


def test_dot_product_attention():
    assert_same(_attention(didax), _attention(jax), scale=10.0)
    same_error(lambda lib, jnp: lib.nn.dot_product_attention(
        np.ones((1, 2, 3, 4), np.float32), np.ones((1, 2, 2, 4), np.float32),
        np.ones((1, 2, 2, 4), np.float32)))


def test_scaled_dot_general():
    dn = (((1,), (0,)), ((), ()))
    same(lambda lib, jnp: lib.nn.scaled_dot_general(jnp.ones((3, 4)), jnp.ones((4, 2)), dn))
    same_error(lambda lib, jnp: lib.nn.scaled_dot_general(
        jnp.ones((3, 64)), jnp.ones((64, 2)), dn,
        configs=[lib.nn.get_scaled_dot_general_config("mxfp8")] * 3))


def test_array_of_ranges():
    same(lambda lib, jnp: (jnp.array(range(5)), jnp.array([range(3), range(3)]),
                           jnp.array(range(0))))


def _f(x):
    y = didax.numpy.sin(x)
    didax.debug.breakpoint()
    return y * 2


@pytest.mark.parametrize("jit", [False, True])
def test_breakpoint_commands(monkeypatch, capsys, jit):
    monkeypatch.setattr("sys.stdin", io.StringIO("p y\nx + 1\nw\nc\n"))
    out = (didax.jit(_f) if jit else _f)(2.0)
    text = capsys.readouterr().out
    assert float(out) == pytest.approx(2 * np.sin(2.0), rel=1e-6)
    assert text.startswith("Entering jdb:\n(jdb) ")
    assert "Array(0.9092974, dtype=float32" in text and "(jdb) " + (
        "Array(3., dtype=float32" if jit else "3.0") in text
    assert "debug.breakpoint()" in text  # `w` shows the breakpoint's line


def test_breakpoint_without_input_quits_and_says_why(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as e:
        _f(1.0)
    assert e.value.code == 0
    captured = capsys.readouterr()
    assert captured.out == "Entering jdb:\n(jdb) "
    assert "no interactive debugger is available" in captured.err
