"""jax.scipy.stats truncnorm, gennorm, wrapcauchy, betabinom, multinomial, poisson.entropy,
mode and rankdata against JAX: values (tails, invalid parameters), dtypes, weak types, a derivative
and compilation."""

import didax
import jax
import numpy as np
import pytest


def cases(m):
    st, n = m.scipy.stats, m.numpy
    x = n.array([-3.0, -1.5, -0.2, 0.0, 0.3, 1.2, 2.0, 4.0])
    tn = st.truncnorm
    th = n.array([-0.5, 0.0, 1.0, 3.0, 6.2, 7.0])
    k = n.array([-1, 0, 1, 3, 5, 6])
    p = n.array([0.2, 0.3, 0.5])
    data = n.array([[3, 1, 3, 2], [1, 1, 2, 2], [5, 5, 5, 0]])
    r = n.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0])
    return {
        "truncnorm": lambda: [getattr(tn, f)(x, *ab) for f in
                              ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
                              for ab in ((-1.0, 2.5), (0.5, 3.0, 0.2, 1.5), (-6.0, -2.0),
                                         (1.0, 1.0), (3.0, 9.0))],
        "truncnorm_grad_jit": lambda: (m.grad(lambda a: tn.logpdf(0.3, a, 2.0))(-1.0),
                                       m.grad(lambda v: tn.cdf(v, -1.0, 2.0))(0.3),
                                       m.jit(lambda v: tn.logsf(v, -1.0, 2.0))(x)),
        "gennorm": lambda: (st.gennorm.logpdf(x, 1.5), st.gennorm.pdf(x, 0.8),
                            st.gennorm.cdf(x, 2.5)),
        "wrapcauchy": lambda: (st.wrapcauchy.logpdf(th, 0.4), st.wrapcauchy.pdf(th, 0.9),
                               st.wrapcauchy.pdf(th, 1.2)),
        "betabinom": lambda: (st.betabinom.logpmf(k, 5, 2.0, 3.0),
                              st.betabinom.pmf(k, 5, 0.5, 0.5),
                              st.betabinom.pmf(0, 0, 1.0, 1.0),
                              st.betabinom.pmf(k, 5, -1.0, 1.0)),
        "multinomial": lambda: (st.multinomial.logpmf(n.array([1, 2, 3]), 6, p),
                                st.multinomial.pmf(n.array([[1, 2, 3], [0, 0, 5]]), 6, p)),
        "poisson_entropy": lambda: (
            st.poisson.entropy(n.array([0.0, 0.5, 3.0, 9.9, 10.0, 42.0, 99.0, 100.0, 1e3])),
            st.poisson.entropy(2.5), st.poisson.entropy(n.array([1.0, 20.0]), n.zeros((3, 1))),
            m.grad(st.poisson.entropy)(3.0)),
        "mode": lambda: (tuple(st.mode(data)), tuple(st.mode(data, axis=1, keepdims=True)),
                         tuple(st.mode(data, axis=None))),
        "rankdata": lambda: [st.rankdata(r, method=mth) for mth in
                             ("average", "min", "max", "dense", "ordinal")]
                            + [st.rankdata(data, axis=1), st.rankdata(n.array([1.0, n.nan])),
                               st.rankdata(data)],
    }


@pytest.mark.parametrize("name", list(cases(jax)))
def test_distribution_as_jax(name):
    d, j = cases(didax)[name](), cases(jax)[name]()
    dl, jl = didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)
    assert len(dl) == len(jl)
    for a, b in zip(dl, jl):
        assert a.dtype == b.dtype and bool(a.weak_type) == bool(b.weak_type), (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def test_multinomial_needs_integer_counts():
    with pytest.raises(ValueError, match="x and n must be of integer type"):
        didax.scipy.stats.multinomial.logpmf(didax.numpy.array([1.0, 2.0]), 3, didax.numpy.array([0.5, 0.5]))


def test_float32_bits_match_jax():
    """pdf/cdf/sf pass loc and scale on to the jitted log-densities as JAX does, and betaln
    follows cdflib's algdiv as JAX's does: the printed digits are JAX's."""
    x = np.linspace(-2, 3, 41).astype(np.float32)
    k = np.arange(-1, 8).astype(np.float32)
    a = np.array([0.5, 2.0, 3.5, 7.0, 10.0, 25.0, 300.0], np.float32)
    b = np.array([3.0, 5.0, 0.7, 9.0, 10.0, 3.0, 0.01], np.float32)
    def outputs(m):
        tn = m.scipy.stats.truncnorm
        return [tn.pdf(x, -1.0, 1.0), tn.cdf(x, -1.0, 1.0), tn.sf(x, -1.0, 1.0),
                m.scipy.stats.wrapcauchy.pdf(np.abs(x), 0.3),
                m.scipy.stats.betabinom.pmf(k, 6, 2.0, 3.0), m.scipy.special.betaln(a, b)]
    for d, j in zip(outputs(didax), outputs(jax), strict=True):
        assert np.asarray(d).tobytes() == np.asarray(j).tobytes(), (d, j)
