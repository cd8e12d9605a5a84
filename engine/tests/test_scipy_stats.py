"""jax.scipy.stats distributions against JAX: values, dtypes, weak types, and their
derivatives, batching and compilation."""

import didax
import jax
import numpy as np
import pytest


def cases(m):
    st, n = m.scipy.stats, m.numpy
    x = n.array([-1.5, 0.0, 0.3, 2.0])
    cov = n.array([[2.0, 0.3], [0.3, 1.0]])
    return {
        "norm": lambda: (st.norm.logpdf(x, 0.5, 2.0), st.norm.pdf(x), st.norm.cdf(x, 1.0),
                         st.norm.logcdf(x), st.norm.sf(x), st.norm.logsf(x),
                         st.norm.ppf(n.array([0.1, 0.5, 0.9])),
                         st.norm.isf(n.array([0.1, 0.5])), st.norm.logpdf(1.0)),
        "uniform": lambda: (st.uniform.logpdf(x, -1, 2), st.uniform.pdf(x),
                            st.uniform.cdf(x, -1, 2)),
        "expon": lambda: (st.expon.logpdf(x, 0, 2.0), st.expon.pdf(x), st.expon.cdf(x)),
        "laplace": lambda: (st.laplace.logpdf(x, 0.2, 1.5), st.laplace.pdf(x)),
        "logistic": lambda: (st.logistic.logpdf(x), st.logistic.cdf(x),
                             st.logistic.pdf(x)),
        "cauchy": lambda: (st.cauchy.logpdf(x, 0.1, 2.0), st.cauchy.pdf(x)),
        "bernoulli": lambda: (st.bernoulli.logpmf(n.array([0, 1, 2]), 0.3),
                              st.bernoulli.pmf(n.array([0, 1]), 0.3)),
        "poisson": lambda: (st.poisson.logpmf(n.array([0, 1, 5]), 2.5),
                            st.poisson.pmf(n.array([0, 3]), 2.5)),
        "mvn": lambda: (st.multivariate_normal.logpdf(n.array([[0.1, 0.2], [1.0, -1.0]]),
                                                      n.zeros(2), cov),
                        st.multivariate_normal.logpdf(n.array([0.1, 0.2]), n.zeros(2), 1.5),
                        st.multivariate_normal.pdf(0.3, 0.0, 2.0)),
        "transformed": lambda: (m.grad(lambda a: st.norm.logpdf(a, 1.0, 2.0))(0.3),
                                m.vmap(lambda a: st.norm.logpdf(a))(x),
                                m.jit(st.norm.logcdf)(x),
                                m.grad(lambda c: st.multivariate_normal.logpdf(
                                    n.ones(2), n.zeros(2), c))(cov)),
    }


@pytest.mark.parametrize("name", list(cases(jax)))
def test_distribution_as_jax(name):
    d, j = cases(didax)[name](), cases(jax)[name]()
    dl, jl = didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)
    assert len(dl) == len(jl)
    for a, b in zip(dl, jl):
        assert a.dtype == b.dtype and bool(a.weak_type) == bool(b.weak_type), (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def more_cases(m):
    st, n = m.scipy.stats, m.numpy
    x = n.array([0.2, 0.7, 1.5, 3.0])
    k = n.array([0.0, 1.0, 2.0, 4.0])
    q = n.array([0.1, 0.4, 0.8])
    return {
        "t": lambda: (st.t.logpdf(x, 3.0), st.t.pdf(x, 2.5, 0.5, 2.0),
                      m.grad(lambda v: st.t.logpdf(v, df=1).sum())(x)),
        "gamma": lambda: (st.gamma.logpdf(x, 2.0), st.gamma.pdf(x, 1.5, 0.1, 2.0),
                          st.gamma.cdf(x, 2.0), st.gamma.logcdf(x, 2.0)),
        "chi2": lambda: (st.chi2.logpdf(x, 3), st.chi2.pdf(x, 2.0), st.chi2.cdf(x, 3)),
        "beta": lambda: (st.beta.logpdf(x / 4, 2.0, 3.0), st.beta.pdf(x / 4, 0.5, 0.5)),
        "pareto": lambda: (st.pareto.logpdf(x + 1, 2.0), st.pareto.cdf(x + 1, 2.0),
                           st.pareto.logcdf(x + 1, 2.0), st.pareto.sf(x + 1, 3.0),
                           st.pareto.ppf(q, 2.0)),
        "gumbel": lambda: (st.gumbel_r.logpdf(x), st.gumbel_r.cdf(x, 0.5, 2.0),
                           st.gumbel_r.logsf(x), st.gumbel_r.ppf(q), st.gumbel_l.logpdf(x),
                           st.gumbel_l.cdf(x), st.gumbel_l.logsf(x), st.gumbel_l.ppf(q)),
        "discrete": lambda: (st.geom.logpmf(k + 1, 0.3), st.binom.pmf(k, 4, 0.3),
                             st.nbinom.logpmf(k, 3, 0.4), st.poisson.cdf(k, 2.0),
                             st.bernoulli.cdf(n.array([0.0, 1.0]), 0.3),
                             st.bernoulli.ppf(q, 0.3)),
        "dirichlet": lambda: (st.dirichlet.logpdf(n.array([0.2, 0.3, 0.5]),
                                                  n.array([1.0, 2.0, 3.0])),
                              st.dirichlet.pdf(n.array([[0.2, 0.1], [0.8, 0.9]]),
                                               n.array([1.5, 2.0]))),
        "rest": lambda: (st.expon.sf(x), st.expon.logcdf(x), st.expon.ppf(q),
                         st.cauchy.cdf(x), st.cauchy.ppf(q), st.cauchy.logsf(x),
                         st.logistic.isf(q), st.logistic.sf(x), st.laplace.cdf(x - 1),
                         st.uniform.ppf(q)),
    }


@pytest.mark.parametrize("name", list(more_cases(jax)))
def test_more_distributions_as_jax(name):
    d, j = more_cases(didax)[name](), more_cases(jax)[name]()
    dl, jl = didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)
    assert len(dl) == len(jl)
    for a, b in zip(dl, jl):
        assert a.dtype == b.dtype and bool(a.weak_type) == bool(b.weak_type), (a, b)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)


def test_module_form_and_gaussian_kde():
    import didax.scipy.stats.norm as dnorm
    import didax.scipy.stats.t as dt
    import jax.scipy.stats.norm as jnorm

    x = np.linspace(0.1, 2.0, 5).astype(np.float32)
    np.testing.assert_allclose(dnorm.logpdf(x), jnorm.logpdf(x), rtol=1e-6)
    assert dt.pdf is didax.scipy.stats.t.pdf

    def kde(m):
        st = m.scipy.stats
        data = np.random.RandomState(0).randn(2, 40).astype(np.float32)
        k1 = st.gaussian_kde(data[0])
        k2 = st.gaussian_kde(data, bw_method="silverman", weights=np.arange(1.0, 41.0))
        pts = np.array([[0.0, 0.5], [0.1, -0.2]], np.float32)
        return (k1(np.array([0.0, 0.5])), k1.logpdf(0.2), k1.integrate_box_1d(-1.0, 1.0),
                k1.covariance, k1.neff, k2.evaluate(pts), k2.pdf(pts),
                k2.integrate_gaussian(np.zeros(2), np.eye(2)), k1.integrate_kde(k1),
                m.jit(lambda k, p: k(p))(k1, np.array([0.3])),
                st.sem(data, axis=1), k1.resample(m.random.key(0), (3,)).shape)
    d, j = kde(didax), kde(jax)
    for a, b in zip(didax.tree_util.tree_leaves(d), jax.tree_util.tree_leaves(j)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-5, atol=1e-6)
