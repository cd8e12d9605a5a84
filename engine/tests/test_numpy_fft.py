"""jnp.fft against JAX: every transform (lengths, axes, norms), frequencies, shifts, and
their jit, grad, jvp and vmap."""

import didax
import jax
import numpy as np
import pytest


def programs(m):
    n = m.numpy
    F = n.fft
    x = n.arange(12.0).reshape(3, 4) * 0.5 + 1
    z = x + 1j * n.cos(x)
    return {
        "fft": lambda: (F.fft(x), F.ifft(z), F.fft(x, n=6, axis=0, norm="ortho"),
                        F.ifft(z, n=3, norm="forward")),
        "rfft": lambda: (F.rfft(x), F.irfft(z), F.irfft(z, n=7), F.rfft(x, n=5, axis=0)),
        "2d_nd": lambda: (F.fft2(x), F.ifft2(z, norm="forward"), F.rfft2(x), F.irfft2(z),
                          F.fftn(x), F.rfftn(x, s=(2, 6)), F.irfftn(z)),
        "hermitian": lambda: (F.hfft(z), F.ihfft(x)),
        "freq_shift": lambda: (F.fftfreq(5), F.fftfreq(6, 0.1), F.rfftfreq(7, 2.0),
                               F.fftshift(x), F.ifftshift(x, axes=0)),
        "transformed": lambda: (
            m.jit(F.fft)(x), m.jit(lambda a: F.irfft(a, n=6))(z),
            m.grad(lambda a: n.sum(n.abs(F.fft(a)) ** 2))(x),
            m.grad(lambda a: n.sum(F.rfft(a).real))(x),
            m.grad(lambda a: n.sum(F.irfft(a.astype(n.complex64))))(x),
            m.jit(m.grad(lambda a: n.sum(F.rfft(a).imag ** 2)))(x),
            m.vmap(F.fft)(x), m.jvp(F.rfft, (x,), (n.ones_like(x),))[1]),
    }


@pytest.mark.parametrize("name", list(programs(jax)))
def test_fft_as_jax(name):
    d, j = programs(didax)[name](), programs(jax)[name]()
    for a, b in zip(didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)):
        assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)


def test_fft_primitive_prints_as_jax():
    texts = [str(m.make_jaxpr(m.numpy.fft.rfft2)(m.numpy.ones((2, 4)))) for m in (didax, jax)]
    assert texts[0] == texts[1]
