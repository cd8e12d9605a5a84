"""`jax.scipy.linalg`'s Schur-based functions: `schur`, `hessenberg`, `rsf2csf`, `sqrtm`,
`funm`, and the eigenvalues of `eigh_tridiagonal`.

`schur_p` and `hessenberg_p` run LAPACK's gees / gehrd+orghr on the host (SciPy's LAPACK,
the library jaxlib's CPU kernels call), eagerly and from compiled code, as didax's `eig`
does. Like JAX's, they have no derivative. The triangular recurrences (the square root of
a triangular matrix, Parlett's recurrence for funm) run one superdiagonal at a time: entry
(i, i+p) needs only diagonals below p, which one matrix product supplies.
May import core, dtypes, interpreters, lax, jit, callback and numpy.
"""

from __future__ import annotations

import numpy as np

from didax._src import dtypes
from didax._src.core import ShapedArray
from didax._src.lax._define import NONLINEAR, def_primitive, unsupported
from didax._src.lax.control_flow.conditionals import cond
from didax._src.lax.reductions import Precision
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import linalg as jla
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import linalg_eig
from didax._src.numpy import products as prod
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.linalg_decomp import _batch_leading, _host_lowering
from didax._src.numpy.util import jit_like_jax, promote_dtypes_complex, promote_dtypes_inexact
from didax._src.numpy.vectorize import vectorize

_NO_DERIVATIVE = unsupported("LAPACK's Schur and Hessenberg reductions have no derivative "
                             "rule in JAX either")


def _square_abstract_eval(name):
    def rule(a, **params):
        if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
            raise ValueError(f"Argument to {name} must have shape [..., n, n], "
                             f"got shape {a.shape}")
        if not dtypes.is_inexact(a.dtype):
            raise TypeError(f"{name} requires a floating-point or complex argument, "
                            f"got {a.dtype}.")
        return [ShapedArray(a.shape, a.dtype)] * 2
    return rule


def _per_matrix(a, fn):
    """fn(matrix) -> (x, y) over the leading batch dimensions of a."""
    flat = a.reshape((-1,) + a.shape[-2:])
    pairs = [fn(m) for m in flat]
    return [np.stack([p[k] for p in pairs]).reshape(a.shape).astype(a.dtype) for k in (0, 1)]


def _schur_impl(a):
    import scipy.linalg  # noqa: PLC0415 - jaxlib's own dependency, loaded on first use

    output = "complex" if np.iscomplexobj(a) else "real"
    return _per_matrix(a, lambda m: scipy.linalg.schur(m, output=output))


def _hessenberg_impl(a):
    import scipy.linalg  # noqa: PLC0415

    return _per_matrix(a, lambda m: scipy.linalg.hessenberg(m, calc_q=True))


def _host_primitive(name, impl):
    prim = def_primitive(name, abstract_eval=_square_abstract_eval(name), impl=impl,
                         jvp=_NO_DERIVATIVE, transpose=NONLINEAR, batch=None,
                         lower=_host_lowering(impl), multiple_results=True)
    from didax._src.interpreters import batching  # noqa: PLC0415

    batching.primitive_batchers[prim] = _batch_leading(prim)
    return prim


schur_p = _host_primitive("schur", _schur_impl)
hessenberg_p = _host_primitive("hessenberg", _hessenberg_impl)


@jit_like_jax("_schur", static_argnames=("output",))
def _schur(a, output):
    a, = promote_dtypes_inexact(ac.asarray(a))
    if output == "complex":
        a = a.astype(dtypes.to_complex_dtype(a.dtype))
    return list(schur_p.bind(a))  # ([T, Z]: a list, as JAX's)


def schur(a, output: str = "real"):
    """(T, Z) with a = Z T Z^H, Z unitary and T upper (quasi-)triangular: the real Schur
    form (2x2 blocks for complex eigenvalue pairs) or, with output="complex", triangular."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', "
                         f"got output={output!r}.")
    return _schur(a, output)


@jit_like_jax("hessenberg", static_argnames=("calc_q", "overwrite_a", "check_finite"))
def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False,
               check_finite: bool = True):
    """The upper Hessenberg form h = Q^H a Q (and Q with `calc_q`)."""
    del overwrite_a, check_finite
    a, = promote_dtypes_inexact(ac.asarray(a))
    if a.shape[-1] == 0:
        return (ac.zeros_like(a), ac.zeros_like(a)) if calc_q else ac.zeros_like(a)
    h, q = hessenberg_p.bind(a)
    return (h, q) if calc_q else h

# ---- rsf2csf ---------------------------------------------------------------------------


def _givens_update(m: int, t, z):
    """One Givens rotation in rows/columns m-1, m that zeroes t[m, m-1]."""
    n = t.shape[0]
    mu = linalg_eig.eigvals(t[m - 1:m + 1, m - 1:m + 1]) - t[m, m]
    r = jla.norm(ac.array([mu[0], t[m, m - 1]])).astype(t.dtype)
    c, s = mu[0] / r, t[m, m - 1] / r
    g = ac.array([[um.conj(c), s], [-s, c]], dtype=t.dtype)
    gh = um.conj(g).T
    rows = t[m - 1:m + 1]
    cols_on = np.arange(n) >= m - 1
    t = t.at[m - 1:m + 1].set(ln.where(cols_on, prod.matmul(g, ln.where(cols_on, rows, 0)),
                                       rows))
    cols = t[:, m - 1:m + 1]
    rows_on = (np.arange(n) < m + 1)[:, None]
    t = t.at[:, m - 1:m + 1].set(ln.where(rows_on, prod.matmul(ln.where(rows_on, cols, 0), gh),
                                          cols))
    z = z.at[:, m - 1:m + 1].set(prod.matmul(z[:, m - 1:m + 1], gh))
    return t, z


def _rsf2csf_2d(t, z):
    t, z = promote_dtypes_complex(t, z)
    eps = float(dtypes.finfo(t.dtype).eps)
    n = t.shape[0]
    for m in range(n - 1, 0, -1):
        big = uf.abs(t[m, m - 1]) > eps * (uf.abs(t[m - 1, m - 1]) + uf.abs(t[m, m]))
        t, z = cond(big, lambda tz, m=m: _givens_update(m, *tz), lambda tz: tz, (t, z))
        t = t.at[m, m - 1].set(0.0)
    return t, z


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form (T triangular) from a real one (T quasi-triangular)."""
    del check_finite
    T, Z = ac.asarray(T), ac.asarray(Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError("Input 'T' must be square.")
    if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
        raise ValueError("Input 'Z' must be square.")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    return vectorize(_rsf2csf_2d, signature="(n,n),(n,n)->(n,n),(n,n)")(T, Z)

# ---- sqrtm, funm -----------------------------------------------------------------------


def _superdiagonal(x, p: int):
    return prod.diagonal(x, offset=p)


def _sqrtm_triu(t):
    """The upper triangular U with U @ U = t (t triangular), diagonal by diagonal."""
    d = um.sqrt(prod.diagonal(t))
    u = prod.diag(d)
    n = t.shape[0]
    for p in range(1, n):
        # (U @ U)[i, i+p] sums U[i, k] U[k, i+p] over i < k < i+p: diagonals >= p are 0
        s = _superdiagonal(prod.matmul(u, u), p)
        tp = _superdiagonal(t, p)
        u = u + prod.diag(ln.where(tp == s, 0.0, (tp - s) / (d[:n - p] + d[p:])), k=p)
    return u


@jit_like_jax("_sqrtm")
def _sqrtm(a):
    t, z = schur(a, output="complex")
    root = _sqrtm_triu(t)
    hi = Precision.HIGHEST
    return prod.matmul(prod.matmul(z, root, precision=hi), um.conj(z.T), precision=hi)


def sqrtm(A, blocksize: int = 1):
    """The principal matrix square root of A (complex; via the complex Schur form)."""
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    return _sqrtm(A)


def _parlett(f, t):
    """Parlett's recurrence: F = func(T) from its diagonal, for upper triangular T."""
    n = t.shape[0]
    minden = uf.abs(t[0, 0])
    td = prod.diagonal(t)
    for p in range(1, n):
        # the commutator's entry (i, i+p) is exactly the recurrence's numerator
        s = _superdiagonal(prod.matmul(t, f) - prod.matmul(f, t), p)
        den = td[p:] - td[:n - p]
        f = f + prod.diag(ln.where(den != 0, s / ln.where(den != 0, den, 1), s), k=p)
        minden = uf.minimum(minden, red.min(uf.abs(den)))
    return f, minden


def funm(A, func, disp: bool = True):
    """func(A) for a function func of the eigenvalues (applied elementwise to a vector),
    by Schur decomposition and Parlett's recurrence; with disp=False also an error
    estimate."""
    A = ac.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    t, z = rsf2csf(*schur(A))
    f = prod.diag(func(prod.diagonal(t))).astype(t.dtype)
    f, minden = _parlett(f, t)
    f = prod.matmul(prod.matmul(z, f), um.conj(z.T))
    if disp:
        return f
    tol = float(np.finfo(np.float32 if f.dtype == np.complex64 else np.float64).eps)
    minden = ln.where(minden == 0.0, tol, minden)
    err = ln.where(red.any(um.isinf(f)), np.inf, uf.minimum(1, uf.maximum(
        tol, (tol / minden) * jla.norm(prod.triu(t, 1), 1))))
    return f, err

# ---- eigh_tridiagonal ------------------------------------------------------------------


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """The eigenvalues (ascending) of the symmetric tridiagonal matrix with diagonal d and
    off-diagonal e. didax computes eigenvalues only, from the dense matrix."""
    del tol, key
    if not eigvals_only:
        raise NotImplementedError(
            "jax.scipy.linalg.eigh_tridiagonal with eigenvectors is not implemented in didax "
            "(JAX's come from randomized inverse iteration); use eigvals_only=True, or "
            "jnp.linalg.eigh of the dense matrix jnp.diag(d) + jnp.diag(e, 1) + "
            "jnp.diag(e, -1) instead.")
    alpha, beta = ac.asarray(d), ac.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError("diagonal and off-diagonal values must have same dtype, got "
                        f"{alpha.dtype} and {beta.dtype}")
    if alpha.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError("Only float32 and float64 inputs are supported as inputs to "
                        f"jax.scipy.linalg.eigh_tridiagonal, got {alpha.dtype} and "
                        f"{beta.dtype}")
    if alpha.shape[0] <= 1:
        return um.real(alpha)
    dense = prod.diag(alpha) + prod.diag(um.conj(beta), 1) + prod.diag(beta, -1)
    w = jld.eigvalsh(dense)
    return _select_eigenvalues(w, select, select_range)


def _select_eigenvalues(w, select, select_range):
    if select == "a":
        return w
    if select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        lo, hi = (int(v) for v in select_range)
        if lo > hi:
            raise ValueError("Got empty index range in select_range.")
        return w[lo:hi + 1]
    if select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented.")
    raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
