"""`jax.scipy.linalg`'s special matrices — circulant, companion, fiedler(_companion),
hankel, leslie, convolution_matrix, dft, hadamard, helmert, hilbert / invhilbert,
pascal / invpascal — and the functions built from didax's factorizations: `polar` (from
the SVD), `expm_frechet` (the JVP of `expm`), `solve_sylvester` and `qr_multiply`.

The constructors follow JAX's definitions (jax/_src/scipy/linalg.py): the same dtypes
(float32 Pascal matrices, int Hadamard, complex DFT), N-d inputs giving batches of matrices.
May import core, dtypes, lax, jit, interpreters (ad) and numpy, and scipy.linalg / special.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from didax._src import dtypes
from didax._src.interpreters import ad
from didax._src.lax import lax, shapes
from didax._src.numpy import array_creation as ac
from didax._src.numpy import lax_numpy as ln
from didax._src.numpy import linalg as jla
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import manipulation as man
from didax._src.numpy import products as prod
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.util import (
    check_arraylike,
    jit_like_jax,
    promote_args_inexact,
    promote_dtypes,
    promote_dtypes_inexact,
)
from didax._src.numpy.vectorize import vectorize
from didax._src.scipy import linalg as sla
from didax._src.scipy.special_more import comb

# ---- matrices from a vector ------------------------------------------------------------


def circulant(c):
    """The circulant matrix whose first column is c (out[i, j] = c[(i - j) mod n])."""
    check_arraylike("circulant", c)
    c = man.atleast_1d(ac.asarray(c))
    n = c.shape[-1]
    return c[..., (np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def _hankel_2d(c, r):
    m, n = c.shape[0], r.shape[0]
    if m == 0 or n == 0:
        return ac.empty((m, n), dtype=dtypes.result_type(c, r))
    v = man.concatenate((c, r[1:]))
    return v[np.arange(m)[:, None] + np.arange(n)[None, :]]


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (zeros by default)."""
    if r is None:
        check_arraylike("hankel", c)
        c = ac.asarray(c)
        r = ac.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = ac.asarray(c), ac.asarray(r)
    for name, v in (("c", c), ("r", r)):
        if v.ndim == 0:
            raise ValueError(f"hankel: {name} must be at least 1-dimensional, got a scalar.")
    c, r = promote_dtypes(c, r)
    return vectorize(_hankel_2d, signature="(m),(n)->(m,n)")(c, r)


def _leslie_2d(f, s):
    f, s = promote_dtypes(f, s)
    return prod.diag(s, k=-1).at[0].set(f)


def leslie(f, s):
    """The Leslie matrix: fecundities f in the first row, survival rates s below the
    diagonal."""
    check_arraylike("leslie", f, s)
    f, s = man.atleast_1d(f), man.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError("The length of f along the last axis must be at least 2; "
                         f"got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along the last axis "
                         "must be one less than the length of f; got f shape "
                         f"{f.shape} and s shape {s.shape}.")
    return vectorize(_leslie_2d, signature="(n),(m)->(n,n)")(f, s)


def _companion_2d(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return ac.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first)."""
    a, = promote_args_inexact("companion", a)
    a = man.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2; "
                         f"got shape {a.shape}.")
    return vectorize(_companion_2d, signature="(n)->(m,m)")(a)


def fiedler(a):
    """The symmetric Fiedler matrix |a[i] - a[j]|."""
    check_arraylike("fiedler", a)
    a = man.atleast_1d(a)
    return uf.abs(a[..., None] - a[..., None, :])


def _fiedler_companion_2d(a):
    n = a.shape[0] - 1
    if n == 0:
        return ac.empty((0, 0), dtype=a.dtype)
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    conditions = [(i == 0) & (j == 0), (i == 1) & (j == 0), (j == i + 1) & even,
                  (j == i + 2) & even, (j == i - 1) & even & (i >= 2),
                  (j == i - 2) & odd & (i >= 3)]
    one, zero = ac.array(1, dtype=a.dtype), ac.array(0, dtype=a.dtype)
    choices = [-a[1], one, -a[np.minimum(i + 2, n)], one, -a[np.minimum(i + 1, n)], one]
    return ln.select([ac.asarray(c) for c in conditions], choices, default=zero)


def fiedler_companion(a):
    """The Fiedler companion matrix (pentadiagonal) of the polynomial a."""
    a, = promote_args_inexact("fiedler_companion", a)
    a = man.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero "
                         f"length, but got an array of shape {a.shape}.")
    return vectorize(_fiedler_companion_2d, signature="(n)->(m,m)")(a)


def _trims(n: int, m: int, mode: str) -> tuple[int, int]:
    if mode == "same":
        trim = min(n, m) - 1
        return trim // 2, trim - trim // 2
    if mode == "valid":
        return min(n, m) - 1, min(n, m) - 1
    return 0, 0


@jit_like_jax("convolution_matrix", static_argnames=("n", "mode"), eager_compiled=True)
def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix A with A @ v == np.convolve(a, v, mode) for v of length n."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = ac.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pads = [(0, 0, 0)] * (a.ndim - 1) + [(0, n - 1, 0)]
    zero = lax._const(a, 0)
    az, raz = shapes.pad(a, zero, pads), shapes.pad(man.flip(a, -1), zero, pads)
    length = m + n - 1
    tb, te = _trims(n, m, mode)
    col0 = shapes.slice_in_dim(az, tb, length - te, axis=-1)
    row0 = shapes.slice_in_dim(raz, length - n - tb, length - tb, axis=-1)
    return sla.toeplitz(col0, row0)

# ---- matrices of a size ----------------------------------------------------------------


@jit_like_jax("hilbert", static_argnames=("n",), eager_compiled=True)
def hilbert(n: int):
    """The n x n Hilbert matrix 1 / (i + j + 1)."""
    a = shapes.broadcasted_iota(dtypes.default_float_dtype(), (n, 1), 0)
    return 1 / (a + a.T + 1)


@jit_like_jax("invhilbert", static_argnames=("n",), eager_compiled=True)
def invhilbert(n: int):
    """The inverse of the n x n Hilbert matrix (in floating point)."""
    a = ac.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    s = i + j
    return ((-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1)
            * comb(s, i) ** 2)


def _binom(n, k):
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def _check_kind(kind):
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; "
                         f"got {kind}")
    return kind


@jit_like_jax("pascal", static_argnames=("n", "kind"), eager_compiled=True)
def pascal(n: int, kind: str | None = None):
    """The n x n Pascal matrix (binomial coefficients): symmetric, lower or upper."""
    kind = _check_kind(kind)
    a = ac.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind != "symmetric":
        return lower if kind == "lower" else lower.T
    return prod.dot(lower, lower.T)


@jit_like_jax("invpascal", static_argnames=("n", "kind"), eager_compiled=True)
def invpascal(n: int, kind: str | None = None):
    """The inverse of `pascal(n, kind)`."""
    kind = _check_kind(kind)
    a = ac.arange(n, dtype=dtypes.default_float_dtype())
    i, j = a[:, None], a[None, :]
    lower = (-1.0) ** (i - j) * _binom(i, j)
    if kind != "symmetric":
        return lower if kind == "lower" else lower.T
    return prod.dot(lower.T, lower)


@jit_like_jax("helmert", static_argnames=("n", "full"), eager_compiled=True)
def helmert(n: int, full: bool = False):
    """The Helmert matrix: (n-1) x n orthonormal contrasts, or n x n with `full`."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = ac.arange(n - 1)[:, None], ac.arange(n)[None, :]
    k = (i + 1).astype(dtypes.default_float_dtype())
    denom = um.sqrt(k * (k + 1))
    h = ln.where(j <= i, 1.0 / denom, ln.where(j == i + 1, -k / denom, ac.zeros_like(denom)))
    if full:
        first = ac.full((1, n), 1.0 / math.sqrt(n), dtype=h.dtype)
        h = man.concatenate([first, h], axis=0)
    return h


@jit_like_jax("hadamard", static_argnames=("n", "dtype"), eager_compiled=True)
def hadamard(n: int, dtype=int):
    """The n x n Sylvester Hadamard matrix (n a power of 2)."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = ac.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = man.concatenate([man.concatenate([h, h], axis=1),
                             man.concatenate([h, -h], axis=1)], axis=0)
    return h


@jit_like_jax("dft", static_argnames=("n", "scale", "dtype"), eager_compiled=True)
def dft(n: int, scale: str | None = None, *, dtype=None):
    """The n x n discrete Fourier transform matrix exp(-2 pi i jk / n), optionally scaled
    by 1/sqrt(n) ("sqrtn") or 1/n ("n")."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dtype = dtypes.default_complex_dtype() if dtype is None else np.dtype(dtype)
    if not dtypes.issubdtype(dtype, np.complexfloating):
        raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = ac.arange(n, dtype=dtype)
    omegas = um.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        return omegas / um.sqrt(n)
    return omegas / n if scale == "n" else omegas

# ---- built from factorizations ---------------------------------------------------------


def _polar_2d(a, side: str):
    u, s, vh = jld.svd(a, full_matrices=False)
    s = s.astype(u.dtype)
    unitary = prod.matmul(u, vh)
    if side == "right":
        return unitary, prod.matmul(um.conj(vh.T) * s[None, :], vh)
    return unitary, prod.matmul(u * s[None, :], um.conj(u.T))


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side="right") or a = p u ("left"): u with orthonormal columns,
    p positive semidefinite. didax computes both from the SVD; JAX's default QDWH
    iteration converges to the same factors."""
    del eps, max_iterations
    a = ac.asarray(a)
    if a.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    m, n = a.shape[-2:]
    if method == "qdwh" and ((side == "right") != (m >= n)):
        raise NotImplementedError("method='qdwh' only supports mxn matrices where m < n "
                                  "where side='right' and m >= n side='left', got "
                                  f"{a.shape} with side={side!r}")
    a, = promote_dtypes_inexact(a)
    sig = "(m,n)->(m,n),(n,n)" if side == "right" else "(m,n)->(m,n),(m,m)"
    return vectorize(lambda x: _polar_2d(x, side), signature=sig)(a)


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
    """The Frechet derivative of expm at A in direction E (and expm(A) with
    `compute_expm`)."""
    del method
    A, E = ac.asarray(A), ac.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError("expected A and E to be the same shape, got "
                         f"A.shape={A.shape} E.shape={E.shape}")
    primal_out, tangent_out = ad.jvp_flat(lambda a: [sla.expm(a)], [A], [E])
    return (primal_out[0], tangent_out[0]) if compute_expm else tangent_out[0]


def _sylvester_2d(a, b, c):
    """X with A X + X B = C, from the Kronecker form (I (x) A + B^T (x) I) vec X = vec C
    (column-major vec)."""
    m, n = c.shape
    big = prod.kron(ac.eye(n, dtype=a.dtype), a) + prod.kron(b.T, ac.eye(m, dtype=a.dtype))
    x = jla.solve(big, c.T.reshape(m * n))
    return x.reshape(n, m).T


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """The solution X of A X + X B = C (a unique one exists when A and -B share no
    eigenvalue). didax solves the Kronecker form directly, for small matrices."""
    del method, tol
    A, B, C = promote_dtypes_inexact(ac.asarray(A), ac.asarray(B), ac.asarray(C))
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\n"
                         f"B: {B.shape}\nC: {C.shape}")
    return vectorize(_sylvester_2d, signature="(m,m),(n,n),(m,n)->(m,n)")(A, B, C)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """(Q c or c Q, R) for the QR factorization a = Q R, without forming Q for the
    caller (didax forms it internally)."""
    del overwrite_a, overwrite_c
    if pivoting:
        raise NotImplementedError(
            "jax.scipy.linalg.qr_multiply(pivoting=True) is not implemented in didax; "
            "use pivoting=False (or jax.scipy.linalg.qr and a matmul) instead.")
    a, c = promote_dtypes_inexact(ac.asarray(a), ac.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    _check_qr_multiply_shapes(a, c, mode, m, k)
    q, r = jld.qr(a, mode="reduced")
    if conjugate:
        q = um.conj(q)
    out = prod.matmul(q, c) if mode == "left" else prod.matmul(c, q)
    return (out.ravel() if onedim else out), r


def _check_qr_multiply_shapes(a, c, mode, m, k):
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"Array shapes are not compatible for Q @ c operation: a has shape "
                         f"{tuple(a.shape)} so Q has {k} columns, but c has {c.shape[-2]} "
                         f"rows (expected {k}).")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"Array shapes are not compatible for c @ Q operation: a has shape "
                         f"{tuple(a.shape)} so Q has {m} rows, but c has {c.shape[-1]} "
                         f"columns (expected {m}).")

