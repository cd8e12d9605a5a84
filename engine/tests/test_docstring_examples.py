"""JAX 0.10.2's own docstring examples that didax got wrong (jnp.linspace bits, sort_complex,
piecewise with an array of conditions, trim_zeros on N-d input, irfft of real input, lax.fft
of integers), each compared with JAX.
"""

from __future__ import annotations

import didax
import jax
import numpy as np
from jaxcompare import assert_same, same


def test_eager_linspace_is_bitwise_jax():
    """JAX runs linspace compiled even eagerly (XLA fuses start*(1-t) + stop*t into an FMA);
    op by op, two of these points were one ulp off and cos(theta) changed sign at pi/2."""
    th = {lib: lib.numpy.linspace(-lib.numpy.pi, lib.numpy.pi, 9) for lib in (didax, jax)}
    assert np.asarray(th[didax]).tobytes() == np.asarray(th[jax]).tobytes()
    got = np.asarray(didax.numpy.cos(th[didax]))
    want = np.asarray(jax.numpy.cos(th[jax]))
    assert np.array_equal(np.sign(got), np.sign(want))
    same(lambda j, jnp: jnp.linspace(-3, 5, 7, dtype=jnp.float32))
    same(lambda j, jnp: jnp.linspace(0, 10, 5, dtype=jnp.int32))


def test_sort_complex_sorts_the_last_axis():
    same(lambda j, jnp: jnp.sort_complex(jnp.array([[5, 3, 4], [6, 9, 2]])))
    same(lambda j, jnp: jnp.sort_complex(jnp.array([1 + 2j, 2 + 4j, 3 - 1j, 2 + 3j])))


def test_piecewise_takes_conditions_as_one_array():
    x = np.arange(-4, 5, dtype=np.int32)
    conds = [lambda jnp: [x < 0, x >= 0], lambda jnp: jnp.array([False, True, False]),
             lambda jnp: [x < -1, x > 1]]
    funcs = [[lambda v: 0 * v, lambda v: v], [lambda v: v * 0, lambda v: v * 10, lambda v: v * 100],
             [lambda v: 1 + v, lambda v: v - 1, 0]]
    for c, f in zip(conds, funcs):
        same(lambda j, jnp, c=c, f=f: jnp.piecewise(x, c(jnp), f))


def test_trim_zeros_n_dimensional_and_axis():
    x = np.zeros((4, 5), np.float32)
    x[1:3, 1:4] = 1
    for kw in ({}, {"trim": "f"}, {"trim": "b"}, {"axis": 0}, {"axis": 1}, {"axis": -1}):
        same(lambda j, jnp, kw=kw: jnp.trim_zeros(x, **kw))
    same(lambda j, jnp: jnp.trim_zeros(jnp.array([0, 0, 2, 0, 1, 4, 3, 0, 0, 0]), trim="f"))


def test_irfft_and_lax_fft_accept_real_and_integer_input():
    a = np.array([[1., 2.], [3., 4.]], np.float32)
    same(lambda j, jnp: jnp.fft.irfft(a, axis=0))
    same(lambda j, jnp: jnp.fft.irfftn(a))
    same(lambda j, jnp: j.lax.fft(np.arange(4), "RFFT", (4,)))
    got = didax.jit(lambda v: didax.numpy.fft.irfft(v))(a)
    assert_same(got, jax.jit(lambda v: jax.numpy.fft.irfft(v))(a))


def test_broadcast_in_dim_in_any_dimension_order():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    bid = lambda j: lambda v: j.lax.broadcast_in_dim(v, (2, 4, 3), (2, 0))  # noqa: E731
    same(lambda j, jnp: bid(j)(x))
    same(lambda j, jnp: j.jit(bid(j))(x))
    # (JAX's own transpose rule fails for permuted dimensions: no grad comparison)
    same(lambda j, jnp: j.vmap(bid(j))(np.stack([x, x + 1])))
    same(lambda j, jnp: j.lax.broadcast_in_dim(jnp.arange(3).reshape(3, 1), (2, 3, 4), (1, 0)))


def test_broadcast_like():
    same(lambda j, jnp: j.lax.broadcast_like(jnp.array([1, 2, 3]), jnp.zeros((2, 3))))


def test_linalg_of_integer_matrices_as_floats():
    a = np.array([[1, 2], [3, 4]], np.int32)
    for f in ("svdvals", "matrix_rank", "cond", "pinv"):
        same(lambda j, jnp, f=f: getattr(jnp.linalg, f)(a), scale=10)
    same(lambda j, jnp: jnp.linalg.lstsq(a, np.array([3, 7]))[0], scale=100)
    same(lambda j, jnp: jnp.linalg.qr(a)[1].dtype == jnp.float32)


def test_fromfunction_maps_over_scalar_coordinates():
    same(lambda j, jnp: jnp.fromfunction(jnp.multiply, shape=(3, 6), dtype=int))
    same(lambda j, jnp: jnp.fromfunction(lambda x: (x + 1) * jnp.arange(3), shape=(2,)))
    same(lambda j, jnp: jnp.fromfunction(lambda x, y: (x + y, x * y), shape=(3, 5)))


def test_eig_eigvals_roots_poly():
    """The general eigendecomposition (LAPACK geev, as JAX on CPU) and what builds on it."""
    a = np.array([[1., 2.], [3., 4.]], np.float32)

    def close(call, rtol=1e-6):  # LAPACK builds differ in the last bits and signs of 0
        got, want = call(didax, didax.numpy), call(jax, jax.numpy)
        for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            assert np.asarray(g).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=1e-6)
    close(lambda j, jnp: jnp.linalg.eig(np.array([[1., 2.], [2., 1.]], np.float32)))
    close(lambda j, jnp: jnp.linalg.eigvals(np.array([[0., -1.], [1., 0.]])))
    close(lambda j, jnp: j.jit(jnp.linalg.eigvals)(a))
    close(lambda j, jnp: j.vmap(jnp.linalg.eigvals)(np.stack([a, 2 * a])))
    close(lambda j, jnp: j.grad(lambda m: jnp.linalg.eigvals(m).real.sum())(a))
    close(lambda j, jnp: jnp.roots(np.array([0., 0., 1., -3., 2.])))
    close(lambda j, jnp: j.jit(lambda p: jnp.roots(p, strip_zeros=False))(
        np.array([0., 1., -3., 2.])))
    close(lambda j, jnp: jnp.poly(a), rtol=1e-5)
    assert str(didax.make_jaxpr(didax.numpy.linalg.eigvals)(a)) == str(
        jax.make_jaxpr(jax.numpy.linalg.eigvals)(a))


def test_approx_max_min_k_exact_on_cpu():
    x = np.array([[3., 1., 4., 1.], [5., 9., 2., 6.]], np.float32)
    same(lambda j, jnp: j.lax.approx_max_k(x, 2))
    same(lambda j, jnp: j.lax.approx_min_k(x, 2, reduction_dimension=0))
    same(lambda j, jnp: j.jit(lambda v: j.lax.approx_min_k(v, 3))(x))
    same(lambda j, jnp: j.grad(lambda v: j.lax.approx_max_k(v, 2)[0].sum())(x))
