"""Eager reverse mode evaluates on the host (NumPy) op by op: jnp functions JAX wraps in
`jit` are not dispatched to XLA while a tape is active (a custom JVP rule computing its
primal, as relu's does), and the host kernels that make an eager training step fast give
exactly NumPy's (and XLA's) bits: binary operations with a small broadcast operand, a
select against broadcast zeros. Compared with JAX where JAX has the feature."""

from __future__ import annotations

import didax
import jax
import numpy as np
import pytest
from didax._src.lax.lax import _binary_on_host
from didax._src.lax.select_convert import _select_n_impl
from didax._src.numpy import util
from oracle import x64_mode


def test_jitted_jnp_functions_run_op_by_op_under_the_tape(monkeypatch):
    x = (np.arange(24, dtype=np.float32).reshape(4, 6) - 11) / 3
    calls = []
    eager_call = util._eager_call

    def spy(*args):
        calls.append(args[1])
        return eager_call(*args)
    monkeypatch.setattr(util, "_eager_call", spy)
    f = lambda nn: lambda x: (nn.relu(x) * nn.gelu(x)).sum()  # noqa: E731
    g = didax.grad(f(didax.nn))(x)
    assert calls == []  # (relu's custom JVP rule computes relu(x) on the eval trace)
    np.testing.assert_allclose(g, jax.grad(f(jax.nn))(x), rtol=1e-6)
    assert np.array_equal(didax.nn.relu(x), jax.nn.relu(x))
    assert calls  # plain eager code still calls them through their jit, as JAX does


SHAPES = [((32, 28, 28, 8), (1, 1, 1, 8)), ((1, 1, 1, 8), (32, 28, 28, 8)),
          ((32, 10), (1, 10)), ((64, 64), (64, 1)), ((4, 5, 6, 7), (1, 5, 1, 7)),
          ((100, 30), (1, 30)), ((3, 200, 9), (1, 1, 9)), ((3,), (3,)), ((2, 0, 4), (1, 1, 4))]


@pytest.mark.parametrize("fn", [np.add, np.subtract, np.true_divide, np.maximum, np.greater,
                                np.power])
def test_binary_with_a_small_broadcast_operand_is_numpys(fn):
    rng = np.random.default_rng(0)
    for xs, ys in SHAPES:
        x = rng.standard_normal(xs).astype(np.float32)
        y = rng.standard_normal(ys).astype(np.float32)
        if x.size:
            x.flat[0] = np.nan
        with np.errstate(all="ignore"):  # (the dispatcher silences NumPy's warnings too)
            got, want = _binary_on_host(fn, x, y), fn(x, y)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.tobytes() == want.tobytes(), (xs, ys)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_with_zero_is_numpys(dtype):
    """A ReLU's max(x, 0) on the host: NaN, signed zeros, infinities, denormals as NumPy."""
    x = (np.random.default_rng(2).standard_normal((400, 100)) * 3).astype(dtype)  # (the
    # bit path's size)
    tiny = np.finfo(dtype).smallest_subnormal
    x[0, :10] = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, tiny, -tiny, 1.0, -1.0]
    for zero in (np.zeros((), dtype), np.array(-0.0, dtype)):
        assert _binary_on_host(np.maximum, x, zero).tobytes() == np.maximum(x, zero).tobytes()
        assert _binary_on_host(np.maximum, zero, x).tobytes() == np.maximum(zero, x).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
def test_select_against_broadcast_zeros_is_exact(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((64, 70)) * 10).astype(dtype)
    if dtype != np.int32:
        a[0, :4] = [np.inf, -0.0, np.nan, -np.inf]
    which = rng.random(a.shape) > 0.5
    for fill in (0.0, -0.0, 1.0):
        f = np.ndarray(a.shape, a.dtype, np.array(fill, dtype), 0, (0, 0))  # all strides 0
        for cases in ((f, a), (a, f)):
            got = _select_n_impl(which, *cases)
            assert got.tobytes() == np.where(which, cases[1], cases[0]).tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 28, 28, 8), (64, 16), (8, 7, 7, 3)])
def test_bias_gradient_sum_under_the_tape(dtype, shape):
    """A bias's gradient sums a batch of images to one value per feature: on the host as a
    BLAS product with a row of ones, JAX's values within float rounding."""
    x = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    b = np.linspace(-1, 1, shape[-1]).astype(dtype)

    def loss(jnp):
        return lambda b, x: (jnp.tanh(x + b) * x).sum()
    with x64_mode(dtype == np.float64):
        got = didax.grad(loss(didax.numpy))(b, x)
        want = jax.grad(loss(jax.numpy))(b, x)
    assert got.shape == want.shape and got.dtype == want.dtype == dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.sqrt(x.size))


def test_conv_padded_copies_reused_across_placements():
    """Padded copies reuse zero-bordered buffers: paddings that give the same padded shape
    with the input placed elsewhere, taken in turns, keep JAX's gradients."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)

    def loss(lax, padding):
        def f(x, w):
            y = lax.conv_general_dilated(x, w, (1, 1), padding,
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return (y * y).sum()
        return f
    for _ in range(2):
        for padding in (((1, 1), (1, 1)), ((0, 2), (2, 0)), ((2, 0), (0, 2))):
            got = didax.grad(loss(didax.lax, padding), argnums=(0, 1))(x, w)
            want = jax.grad(loss(jax.lax, padding), argnums=(0, 1))(x, w)
            for g, v in zip(got, want):
                np.testing.assert_allclose(g, v, rtol=2e-5, atol=2e-4)
