"""jax.scipy.fft (type-2 DCT and its inverse) against JAX: values and dtypes over axes,
lengths n / s, norms, complex inputs, and derivatives and compilation through them."""

import didax
import jax
import numpy as np
import pytest

RNG = np.random.default_rng(1)
X3 = RNG.normal(size=(3, 4, 5)).astype(np.float32)
XC = (RNG.normal(size=6) + 1j * RNG.normal(size=6)).astype(np.complex64)


def cases(m):
    f, n = m.scipy.fft, m.numpy
    out = []
    for norm in (None, "ortho"):
        out += [f.dct(X3, norm=norm), f.idct(X3, axis=0, n=6, norm=norm),
                f.dct(X3[0, 0], n=3, norm=norm), f.idct(X3[1, 1], norm=norm),
                f.dctn(X3, norm=norm), f.idctn(X3, axes=(-1, 0), s=(3, 6), norm=norm),
                f.dctn(X3[0], s=[7]), f.idctn(X3, axes=(1,))]
    return out + [f.dct(np.arange(6)), f.idct(XC), f.dctn(XC.reshape(2, 3)),
                  m.grad(lambda v: n.sum(f.dct(v, norm="ortho") ** 3))(X3[0, 0]),
                  m.jit(lambda v: f.idctn(f.dctn(v) * 2.0))(X3)]


def test_dct_as_jax():
    for a, b in zip(cases(didax), cases(jax)):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5,
                                   atol=1e-5 * (1 + np.abs(np.asarray(b)).max()))


def test_round_trip_and_errors():
    f = didax.scipy.fft
    np.testing.assert_allclose(f.idctn(f.dctn(X3, norm="ortho"), norm="ortho"), X3, atol=1e-5)
    with pytest.raises(NotImplementedError, match="Only DCT type 2"):
        f.dct(X3, type=3)
    with pytest.raises(ValueError, match="norm='forward' is not implemented"):
        f.idct(X3, norm="forward")


def test_staged_like_jax():
    """Compiled, the DCTs are JAX's computation (dctn two axes at a time, the scaling in
    float32): the float32 bits match."""
    for name in ("dct", "idct", "dctn", "idctn"):
        for kw in ({}, {"norm": "ortho"}):
            d = didax.jit(lambda x, n=name, k=kw: getattr(didax.scipy.fft, n)(x, **k))(X3)
            j = jax.jit(lambda x, n=name, k=kw: getattr(jax.scipy.fft, n)(x, **k))(X3)
            assert np.asarray(d).tobytes() == np.asarray(j).tobytes(), (name, kw)
