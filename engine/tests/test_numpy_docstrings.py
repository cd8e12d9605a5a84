"""jnp behaviours the API documentation's examples rely on, compared with JAX: plain eager
calls of functions JAX wraps in jit give jit's values (XLA's rewrites included), integer
inputs to the SVD/QR family, r_/c_ directives, einsum's sublist form, piecewise with scalar
conditions, broadcast_in_dim with unordered dimensions, delete with traced unique indices,
trim_zeros over axes, fromfunction on scalar indices, copies that survive donation, and
jitted sorting of complex numbers and scans over empty axes.
"""

from __future__ import annotations

from array import array as pyarray

import didax
import jax
import numpy as np
import pytest
from jaxcompare import same, same_error


def test_linspace_eager_is_jits_value():
    # 25 * (3 * 0.2f) is 15.000001 op by op; XLA folds it to 5 * 3 = 15 (and JAX's
    # eager linspace runs that XLA program), which moves histogram bin edges.
    got = same(lambda jx, jnp: jnp.linspace(0, 25, 6))
    assert float(got[3]) == 15.0
    same(lambda jx, jnp: jnp.histogram(jnp.array([1, 2, 3, 10, 11, 15, 19, 25]),
                                       range=(0, 25), bins=5))
    same(lambda jx, jnp: jnp.linspace(jnp.zeros(2), jnp.arange(2.0) + 7, 5, axis=-1))


@pytest.mark.parametrize("name", ["svdvals", "pinv", "matrix_rank", "cond", "qr_r",
                                  "lstsq", "lstsq_rcond", "lstsq_numpy_resid"])
def test_linalg_of_integer_matrices(name):
    a = np.array([[2, 1], [1, 3], [0, 1]])
    calls = {
        "svdvals": lambda jnp: jnp.linalg.svdvals(a),
        "pinv": lambda jnp: jnp.linalg.pinv(a),
        "matrix_rank": lambda jnp: (jnp.linalg.matrix_rank(a), jnp.linalg.matrix_rank(
            a, rtol=2.0), jnp.linalg.matrix_rank(np.eye(3), tol=0.5)),
        "cond": lambda jnp: (jnp.linalg.cond(a[:2]), jnp.linalg.cond(np.zeros((2, 2))),
                             jnp.linalg.cond(np.array([[1.0, 2], [2, 4]]), p=1)),
        "qr_r": lambda jnp: abs(jnp.linalg.qr(a, mode="r")),
        "lstsq": lambda jnp: jnp.linalg.lstsq(a, np.array([5, 6, 1])),
        "lstsq_rcond": lambda jnp: jnp.linalg.lstsq(a, np.ones((3, 2)), rcond=0.5)[1:],
        "lstsq_numpy_resid": lambda jnp: jnp.linalg.lstsq(a.T, np.ones(2),
                                                          numpy_resid=True)[1:],
    }
    same(lambda jx, jnp: calls[name](jnp), scale=10)


def test_inverse_real_ffts_of_integers():
    x = np.array([[1, 3, 5], [2, 4, 6]])
    same(lambda jx, jnp: (jnp.fft.irfft(x), jnp.fft.irfft(x, n=3), jnp.fft.irfftn(x),
                          jnp.fft.hfft(x), jnp.fft.irfft2(x)))
    same_error(lambda jx, jnp: jx.lax.fft(np.ones(3, np.complex64), "RFFT", (3,)))


def test_array_from_buffer_objects_and_copies_survive_donation():
    same(lambda jx, jnp: (jnp.array(pyarray("i", [2, 3, 5, 7])),
                          jnp.asarray(pyarray("d", [0.5, 1.5]))))
    for jx, jnp in ((didax, didax.numpy), (jax, jax.numpy)):
        double = jx.jit(lambda v: 2 * v, donate_argnums=0)
        x = jnp.arange(4)
        np.testing.assert_array_equal(double(x.copy()), [0, 2, 4, 6])
        np.testing.assert_array_equal(x, [0, 1, 2, 3])      # x itself was not donated
        assert jnp.array(x) is not x
        assert hasattr(x, "__dlpack__")
        np.testing.assert_array_equal(np.from_dlpack(x), [0, 1, 2, 3])


@pytest.mark.parametrize("key", [("0,2", [1, 2, 3], [4, 5, 6]), ("0,2,0", [1, 2], [4, 5]),
                                 ("0,2,-2", [1, 2, 3], [4, 5, 6]), ("r", [1, 2], [4, 5]),
                                 ("c", [1, 2], [4, 5]), ("1,3,0", np.ones((2, 2)),
                                                         np.zeros((2, 2)))])
def test_concat_directives(key):
    same(lambda jx, jnp: (jnp.r_[key], jnp.c_[key]))


def test_einsum_sublist_form():
    x, m = np.arange(4), np.arange(16).reshape(4, 4)
    a = np.ones((2, 3, 4))
    same(lambda jx, jnp: (jnp.einsum(x, (0,), x, (0,)), jnp.einsum(x, (0,), x, (0,), ()),
                          jnp.einsum(m, (0, 1), x, (1,), (0,)), jnp.einsum(m, (0, 0)),
                          jnp.einsum(a, [Ellipsis, 1], a, [Ellipsis, 1], [Ellipsis])))


def test_piecewise_like_jax():
    x = np.array([-4, -3, -2, -1, 0, 1, 2, 3, 4])
    same(lambda jx, jnp: (
        jnp.piecewise(x, [x < -1, x > 1], [lambda v: 1 + v, lambda v: v - 1, 0]),
        jnp.piecewise(x, np.array([False, True, False]),
                      [lambda v: v * 0, lambda v: v * 10, lambda v: v * 100]),
        jnp.piecewise(x, [x > 0], [lambda v, f: f * v, 0.5], 10),
        jnp.piecewise(x.astype(np.float32), [x < 0, x > 2], [-1.5, 1.5, 7])))
    same_error(lambda jx, jnp: jnp.piecewise(x, x > 0, [lambda v: v, 0.5]))


def test_broadcast_in_dim_with_unordered_dimensions():
    a = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    same(lambda jx, jnp: jx.lax.broadcast_in_dim(a, (2, 3, 4), (1, 0)))
    same(lambda jx, jnp: jx.jit(lambda v: jx.lax.broadcast_in_dim(v, (2, 3, 4), (1, 0)))(a))
    same_error(lambda jx, jnp: jx.lax.broadcast_in_dim(a, (3, 3, 4), (1, 1)), "class")


def test_delete_with_traced_unique_indices():
    a = np.array([4, 5, 6, 7, 8, 9])
    same(lambda jx, jnp: jx.jit(jnp.delete, static_argnames=["assume_unique_indices"])(
        a, np.array([3, 0, -1]), assume_unique_indices=True))


def test_trim_zeros_and_fromfunction():
    x = np.zeros((4, 5), np.float32)
    x[1:3, 1:4] = 1
    same(lambda jx, jnp: [jnp.trim_zeros(x, **kw) for kw in
                          ({}, {"trim": "f"}, {"axis": 0}, {"axis": 1}, {"trim": "b"})])
    seen = {}

    def f(lib):
        def g(i, j):
            seen[lib] = i.shape
            return i + j, i * j
        return g
    same(lambda jx, jnp: (jnp.fromfunction(jnp.multiply, (3, 6), dtype=int),
                          jnp.fromfunction(f(jx.__name__), (2, 3))))
    assert seen["didax"] == seen["jax"] == ()
    same(lambda jx, jnp: [jnp.isscalar(v) for v in (np.array(1.0), np.array([1]), 1.0,
                                                    jnp.array(2), None, [1])])


def test_jitted_sort_of_complex_numbers_and_cumsum_over_empty_axes():
    c = np.array([1 + 2j, 2 + 4j, 3 - 1j, 2 + 3j, np.nan, 2 - 1j], np.complex64)
    same(lambda jx, jnp: jx.jit(jnp.sort)(c))
    same(lambda jx, jnp: jnp.sort_complex(np.array([[5, 3, 4], [6, 9, 2]])))
    same(lambda jx, jnp: [jx.jit(f)(np.zeros((0, 3), np.float32)) for f in
                          (lambda v: jnp.cumsum(v, 0), lambda v: jnp.cumprod(v, 0))])


def test_i0_under_jit():
    x = np.array([0.0, 0.5, 3.0, 10.0, 29.0, 31.0, -4.0], np.float32)
    got = same(lambda jx, jnp: jx.jit(jnp.i0)(x), scale=10)
    assert np.all(np.isfinite(np.asarray(got)))


def test_orthogonal_initializers_and_scipy_trapezoid():
    same(lambda jx, jnp: (jx.nn.initializers.orthogonal()(jx.random.key(42), (2, 3)),
                          jx.nn.initializers.orthogonal(column_axis=0, scale=2.0)(
                              jx.random.key(1), (2, 2, 3)),
                          jx.nn.initializers.delta_orthogonal()(jx.random.key(4), (3, 3, 3))),
         scale=10)
    x = np.linspace(0, 2, 9).astype(np.float32)
    same(lambda jx, jnp: (jx.scipy.integrate.trapezoid(x**2, x),
                          jx.scipy.integrate.trapezoid(np.arange(6.0).reshape(2, 3), dx=0.5,
                                                       axis=0)))
