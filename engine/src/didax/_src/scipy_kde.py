"""`jax.scipy.stats.gaussian_kde` (a pytree: it passes through jit and vmap) and
`jax.scipy.stats.sem`, computed as JAX computes them (Scott's or Silverman's bandwidth, the
weighted data covariance, kernels evaluated by vmap over a whitened space).

May import everything below the public modules (it uses vmap and jit).
"""

from __future__ import annotations

import functools

import numpy as np

from didax._src import api, dtypes, random, random_extra
from didax._src.numpy import array_creation as creation
from didax._src.numpy import linalg as jla
from didax._src.numpy import manipulation as manip
from didax._src.numpy import products, statistics, ufuncs, ufuncs_math
from didax._src.numpy import reductions as red
from didax._src.numpy.util import promote_args_inexact, promote_dtypes_inexact
from didax._src.pjit import jit
from didax._src.scipy import linalg as sla
from didax._src.scipy import special
from didax._src.tree_util import register_pytree_node_class


def _kernel_eval(in_log: bool, points, values, xi, precision):
    points, values, xi, precision = promote_dtypes_inexact(points, values, xi, precision)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = sla.cholesky(precision, lower=True)
    points = products.dot(points, whitening)
    xi = products.dot(xi, whitening)
    log_norm = red.sum(ufuncs_math.log(products.diag(whitening))) - 0.5 * d * np.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * red.sum(ufuncs.square(x_train - x_test))
        return ufuncs_math.log(y_train) + arg if in_log else y_train * ufuncs_math.exp(arg)

    reduce = special.logsumexp if in_log else red.sum

    def reduced_kernel(x):
        return reduce(api.vmap(kernel, in_axes=(None, 0, 0))(x, points, values), axis=0)

    return api.vmap(reduced_kernel)(xi)


_kernel_eval_jit = jit(_kernel_eval, static_argnums=0)


def _kernel_convolve(chol, norm, target, weights, mean):
    diff = target - mean[:, None]
    alpha = sla.cho_solve(chol, diff)
    arg = 0.5 * red.sum(diff * alpha, axis=0)
    return norm * red.sum(ufuncs_math.exp(-arg) * weights)


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 - JAX's (and SciPy's) name
    """A Gaussian kernel density estimate of `dataset` (shape (d, n), or (n,) for d = 1)."""

    __slots__ = ("neff", "dataset", "weights", "covariance", "inv_cov")

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = manip.atleast_2d(dataset)
        if dtypes.is_complex(dataset.dtype):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            dataset, weights = promote_dtypes_inexact(dataset, weights)
            weights = manip.atleast_1d(weights)
            weights = weights / red.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            (dataset,) = promote_dtypes_inexact(dataset)
            weights = creation.full(n, 1.0 / n, dtype=dataset.dtype)
        self.dataset, self.weights = dataset, weights
        self.neff = 1 / red.sum(weights ** 2)
        factor = self._factor(bw_method, d)
        data_covariance = manip.atleast_2d(
            statistics.cov(dataset, rowvar=1, bias=False, aweights=weights))
        data_inv_cov = jla.inv(data_covariance)
        self.covariance = data_covariance * factor ** 2
        self.inv_cov = data_inv_cov / factor ** 2

    def _factor(self, bw_method, d):
        bw_method = "scott" if bw_method is None else bw_method
        if bw_method == "scott":
            return ufuncs.power(self.neff, -1.0 / (d + 4))
        if bw_method == "silverman":
            return ufuncs.power(self.neff * (d + 2) / 4.0, -1.0 / (d + 4))
        if np.ndim(bw_method) == 0 and not isinstance(bw_method, str) and \
                not callable(bw_method):
            return bw_method
        if callable(bw_method):
            return bw_method(self)
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                         "callable.")

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        del aux_data
        kde = cls.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    d = property(lambda self: self.dataset.shape[0])
    n = property(lambda self: self.dataset.shape[1])

    def evaluate(self, points):
        points = self._reshape_points(points)
        result = _kernel_eval_jit(False, self.dataset.T, self.weights[:, None], points.T,
                                  self.inv_cov)
        return result[:, 0]

    __call__ = pdf = evaluate

    def logpdf(self, x):
        x = self._reshape_points(x)
        result = _kernel_eval_jit(True, self.dataset.T, self.weights[:, None], x.T,
                                  self.inv_cov)
        return result[:, 0]

    def integrate_gaussian(self, mean, cov):
        mean = manip.atleast_1d(manip.squeeze(mean))
        cov = manip.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        chol = sla.cho_factor(self.covariance + cov)
        norm = 1.0 / (ufuncs_math.sqrt(2 * np.pi) ** self.d
                      * red.prod(products.diag(chol[0])))
        return _kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    def integrate_box_1d(self, low, high):
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        return _box_1d(self, low, high)

    def integrate_kde(self, other):
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        chol = sla.cho_factor(self.covariance + other.covariance)
        norm = 1.0 / (ufuncs_math.sqrt(2 * np.pi) ** self.d
                      * red.prod(products.diag(chol[0])))
        sm, lg = (self, other) if self.n < other.n else (other, self)
        result = api.vmap(functools.partial(_kernel_convolve, chol, norm, lg.dataset,
                                            lg.weights), in_axes=1)(sm.dataset)
        return red.sum(result * sm.weights)

    def resample(self, key, shape=()):
        return _resample(self, key, tuple(shape))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError(
            "only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method):
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        if dtypes.is_complex(np.result_type(points)):
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = manip.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return manip.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


@jit
def _box_1d(kde, low, high):
    sigma = manip.squeeze(ufuncs_math.sqrt(kde.covariance))
    low = manip.squeeze((low - kde.dataset) / sigma)
    high = manip.squeeze((high - kde.dataset) / sigma)
    return red.sum(kde.weights * (special.ndtr(high) - special.ndtr(low)))


@functools.partial(jit, static_argnames=("shape",))
def _resample(kde, key, shape):
    ind_key, eps_key = random.split(key)
    ind = random.choice(ind_key, kde.n, shape=shape, p=kde.weights)
    eps = random_extra.multivariate_normal(
        eps_key, creation.zeros(kde.d, kde.covariance.dtype), kde.covariance, shape=shape,
        dtype=kde.dataset.dtype).T
    return kde.dataset[:, ind] + eps


def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False):
    """The standard error of the mean of a along axis."""
    (b,) = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / \
            ufuncs_math.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~ufuncs_math.isnan(b)).sum(axis, keepdims=keepdims)
        return statistics.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / \
            ufuncs_math.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
