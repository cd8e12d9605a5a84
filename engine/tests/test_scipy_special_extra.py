"""jax.scipy.special boxcox, boxcox1p, poch, bernoulli, erfcx, bessel_jn, expn, exp1 and
expi against JAX: values over their branches (lmbda == 0, m == 0, erfcx's asymptotic range,
the exponential integrals' series / continued fraction / edge cases), dtypes, weak types,
derivatives and jit."""

import didax
import jax
import numpy as np
import pytest


def cases(m):
    s, n = m.scipy.special, m.numpy
    x = n.array([0.1, 0.5, 1.0, 2.5, 7.0])
    xe = n.array([-3.0, -0.5, 0.0, 0.7, 5.0, 12.0, 30.0, 200.0])
    return [s.boxcox(x, 0.5), s.boxcox(x, 0.0), s.boxcox(2.0, 0.3),
            s.boxcox1p(x, n.array([0.0, 1.0, -0.5, 2.0, 0.3])),
            s.poch(x, 2.0), s.poch(x, n.array([0.0, 1.5, -0.3, 3.0, 0.5])), s.poch(3.0, 2.0),
            *[s.bernoulli(k) for k in (0, 2, 3, 12, 25)], s.erfcx(xe), s.erfcx(1.5),
            m.grad(lambda z: s.poch(z, 2.5))(1.5), m.grad(lambda z: s.poch(1.5, z))(2.5),
            m.grad(s.erfcx)(0.7), m.grad(s.erfcx)(40.0), m.grad(lambda v: s.boxcox(3.0, v))(0.5),
            m.jit(s.erfcx)(xe)]


def integral_cases(m):
    s, n = m.scipy.special, m.numpy
    x = n.array([0.0, 0.01, 0.3, 1.0, 1.5, 3.0, 10.0, 35.0, 45.0, 80.0])
    xn = n.array([-30.0, -5.0, -1.0, -0.2, 0.2, 1.0, 4.0, 20.0, 60.0, 85.0])
    z = n.array([0.5, 1.0, 2.5, 7.0, 15.0])
    return [s.exp1(x), *[s.expn(k, x) for k in (0, 2, 3, 7)], s.exp1(1.0), s.expi(2.0),
            s.expn(n.array([1.0, 2.0, 5.0, 6000.0]), n.array([0.5, 2.0, 3.0, 1.0])),
            s.expi(xn), s.bessel_jn(z, v=0), s.bessel_jn(z, v=4),
            s.bessel_jn(n.array([[1.0, 2.0], [3.0, 4.0]]), v=2, n_iter=30),
            m.grad(s.exp1)(0.7), m.grad(lambda v: s.expn(3, v))(2.0), m.grad(s.expi)(1.5),
            m.grad(s.expi)(-1.5), m.jit(s.expi)(xn),
            m.grad(lambda v: s.bessel_jn(v, v=2)[2])(1.3)]


@pytest.mark.parametrize("cases", [cases, integral_cases])
def test_special_functions_as_jax(cases):
    for a, b in zip(cases(didax), cases(jax), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        assert bool(a.weak_type) == bool(b.weak_type), (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)
