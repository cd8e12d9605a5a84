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
