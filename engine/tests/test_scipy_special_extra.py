"""jax.scipy.special boxcox, boxcox1p, poch, bernoulli and erfcx against JAX: values over
their branches (lmbda == 0, m == 0, erfcx's asymptotic range), dtypes, weak types,
derivatives and jit."""

import didax
import jax
import numpy as np


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


def test_special_functions_as_jax():
    for a, b in zip(cases(didax), cases(jax), strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        assert bool(a.weak_type) == bool(b.weak_type), (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)
