"""`jax.scipy.linalg`: SciPy's names and conventions over didax's linear algebra.

Cholesky and LU factors with their solves (`cho_factor`/`cho_solve`,
`lu_factor`/`lu_solve`/`lu`), triangular solves, `expm` (scaling and squaring of a
degree-13 Padé approximant, Higham's method), `block_diag`, and SciPy's spellings of
`cholesky` (upper by default), `inv`, `det`, `solve`, `eigh`, `svd` and `qr`. Everything
is written with jnp/lax operations, so it differentiates, batches and compiles like any
other program. Triangular solves are unrolled substitutions; they are meant for the
small matrices a playground program uses.

May import core, dtypes, lax and numpy (the implementation modules).
"""

from __future__ import annotations

import builtins

import numpy as np

from didax._src.custom_derivatives import custom_jvp
from didax._src.lax import lax, shapes
from didax._src.numpy import linalg as jla
from didax._src.numpy import linalg_decomp as jld
from didax._src.numpy import manipulation as man
from didax._src.numpy import products as prod
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.array_creation import eye, zeros
from didax._src.numpy.lax_numpy import where
from didax._src.numpy.util import ensure_arraylike, promote_dtypes, promote_dtypes_inexact


def _inexact(*xs):
    xs = [ensure_arraylike("jax.scipy.linalg", x) for x in xs]
    return promote_dtypes_inexact(*xs)


def _mT(a):
    return man.swapaxes(a, -1, -2)


def _op(a, trans):
    """a, a.T or a^H for SciPy's trans = 0/'N', 1/'T', 2/'C'."""
    if trans in (0, "N"):
        return a
    if trans in (1, "T"):
        return _mT(a)
    if trans in (2, "C"):
        return um.conj(_mT(a))
    raise ValueError(f"Invalid 'trans' value {trans!r}")


# ---- triangular solves -----------------------------------------------------------------


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """x with op(a) x = b, a triangular (only its `lower` or upper triangle is read)."""
    del overwrite_b, debug, check_finite
    a, b = _inexact(a, b)
    vec = np.ndim(b) == np.ndim(a) - 1
    bm = man.expand_dims(b, -1) if vec else b
    t = prod.tril(a) if lower else prod.triu(a)
    if trans not in (0, "N"):
        t, lower = _op(t, trans), not lower
    x = _substitute(t, bm, lower, unit_diagonal)
    return x[..., 0] if vec else x


def _substitute(t, b, lower, unit_diagonal):
    """Forward (lower) or back substitution, one row of the solution at a time."""
    n = np.shape(t)[-1]
    rows: list = [None] * n
    order = range(n) if lower else reversed(range(n))
    for k in order:
        done = [j for j in range(n) if rows[j] is not None]
        r = b[..., k:k + 1, :]
        if done:
            coeffs = man.concatenate([t[..., k:k + 1, j:j + 1] for j in done], axis=-1)
            r = uf.subtract(r, prod.matmul(coeffs, man.concatenate([rows[j] for j in done],
                                                               axis=-2)))
        rows[k] = r if unit_diagonal else uf.true_divide(r, t[..., k:k + 1, k:k + 1])
    return man.concatenate(rows, axis=-2)


# ---- Cholesky --------------------------------------------------------------------------


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    # as JAX: the upper factor is the lower one of a^H (so upper reads a's upper triangle)
    factor = _cholesky_lower(a if lower else um.conj(_mT(a)))
    return factor if lower else um.conj(_mT(factor))


@custom_jvp
def _cholesky_lower(a):
    """The lower factor, from a's lower triangle (SciPy's and JAX's: no symmetrizing)."""
    return jla.cholesky(a, symmetrize_input=False)


@_cholesky_lower.defjvp
def _cholesky_lower_jvp(primals, tangents):
    """JAX's rule: dL = L phi(L^-1 dA L^-H), phi = the lower triangle with half its
    diagonal, using all of dA (so the gradient is not confined to one triangle)."""
    (a,), (da,) = primals, tangents
    L = _cholesky_lower(a)
    m = solve_triangular(L, da, lower=True)
    inner = um.conj(_mT(solve_triangular(L, um.conj(_mT(m)), lower=True)))
    n = np.shape(a)[-1]
    phi = uf.multiply(prod.tril(inner), uf.subtract(1.0, uf.multiply(0.5, eye(n, dtype=L.dtype))))
    return L, prod.matmul(L, phi)


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact(c, b)
    if lower:  # c c^H x = b
        y = solve_triangular(c, b, lower=True)
        return solve_triangular(c, y, trans="C", lower=True)
    y = solve_triangular(c, b, trans="C", lower=False)  # c^H c x = b
    return solve_triangular(c, y, lower=False)


# ---- LU --------------------------------------------------------------------------------


def lu_factor(a, overwrite_a=False, check_finite=True):
    """(lu, piv): L (unit diagonal, below) and U packed in one matrix, and LAPACK's pivots
    (row i was swapped with row piv[i], in order)."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    _require_square("lu_factor", a)
    lu_, perm, _ = jla._lu(a)
    return lu_, _pivots_of(perm)


def _require_square(name, a):
    shape = np.shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise NotImplementedError(f"jax.scipy.linalg.{name} of a non-square matrix (shape "
                                  f"{shape}) is not implemented in didax")


def _pivots_of(perm):
    """The swap sequence (LAPACK pivots) that produces the row permutation perm."""
    n = np.shape(perm)[-1]
    where_is = man.broadcast_to(shapes.iota(np.int32, n), np.shape(perm))
    pivs = []
    for i in range(n):
        # the position currently holding row perm[i]
        hit = uf.equal(where_is, man.expand_dims(perm[..., i], -1))
        p = red.argmax(hit, axis=-1).astype(np.int32)
        pivs.append(p)
        where_is = _swap(where_is, i, man.expand_dims(p, -1))
    return man.stack(pivs, axis=-1)


def _swap(v, i: int, p):
    """v (..., n) with entries i and p[..., 0] exchanged (p traced, one per batch)."""
    n = np.shape(v)[-1]
    onehot_i = uf.equal(shapes.iota(np.int32, n), np.int32(i))
    onehot_p = uf.equal(shapes.iota(np.int32, n), p)
    at_i = red.sum(where(onehot_i, v, 0), axis=-1, keepdims=True)
    at_p = red.sum(where(onehot_p, v, 0), axis=-1, keepdims=True)
    return where(onehot_i, at_p, where(onehot_p, at_i, v))


def _perm_of(piv):
    """The row permutation produced by applying LAPACK's swaps in order."""
    n = np.shape(piv)[-1]
    perm = man.broadcast_to(shapes.iota(np.int32, n), np.shape(piv))
    for i in range(n):
        perm = _swap(perm, i, man.expand_dims(piv[..., i], -1))
    return perm


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    del overwrite_b, check_finite
    lu_, piv = lu_and_piv
    lu_, b = _inexact(lu_, b)
    vec = np.ndim(b) == 1
    bm = man.expand_dims(b, -1) if vec else b
    perm = _perm_of(piv)
    n = np.shape(lu_)[-1]
    p = lax.convert_element_type(uf.equal(man.expand_dims(perm, -1), shapes.iota(np.int32, n)),
                                 lu_.dtype)  # p[i, j] = 1 where row i of P a is row j
    if trans in (0, "N"):  # L U x = P b
        y = _substitute(prod.tril(lu_, -1) + eye(n, dtype=lu_.dtype), prod.matmul(p, bm),
                        True, True)
        x = _substitute(prod.triu(lu_), y, False, False)
    else:  # (P^T L U)^T x = b: U^T L^T P x = b
        y = solve_triangular(lu_, bm, trans=trans, lower=False)
        z = solve_triangular(lu_, y, trans=trans, lower=True, unit_diagonal=True)
        x = prod.matmul(_mT(p), z)
    return x[..., 0] if vec else x


def lu(a, permute_l=False, overwrite_a=False, check_finite=True):
    """(p, l, u) with a = p @ l @ u (or (p @ l, u) with permute_l)."""
    del overwrite_a, check_finite
    (a,) = _inexact(a)
    _require_square("lu", a)
    lu_, perm, _ = jla._lu(a)
    m, n = np.shape(a)[-2:]
    k = builtins.min(m, n)
    l_ = prod.tril(lu_[..., :, :k], -1) + eye(m, k, dtype=lu_.dtype)
    u = prod.triu(lu_[..., :k, :])
    p = _mT(lax.convert_element_type(
        uf.equal(man.expand_dims(perm, -1), shapes.iota(np.int32, m)), lu_.dtype))
    return (prod.matmul(p, l_), u) if permute_l else (p, l_, u)


# ---- SciPy spellings of the jnp.linalg functions ---------------------------------------


def inv(a, overwrite_a=False, check_finite=True):
    return jla.inv(a)


def det(a, overwrite_a=False, check_finite=True):
    return jla.det(a)


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, debug=False,
          check_finite=True, assume_a="gen"):
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"Expected assume_a to be one of 'gen', 'sym', 'her' or 'pos'; "
                         f"got {assume_a!r}")
    if assume_a == "pos":
        return cho_solve(cho_factor(a, lower=lower), b)
    return jla.solve(a, b)


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         turbo=True, eigvals=None, type=1, check_finite=True):  # noqa: A002 - SciPy's name
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    w, v = jld.eigh(a, UPLO="L" if lower else "U")
    return w if eigvals_only else (w, v)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True,
        lapack_driver="gesdd"):
    return jld.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    if pivoting:
        raise NotImplementedError("qr with pivoting=True is not implemented")
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = jld.qr(a, mode="complete" if mode == "full" else "reduced")
    return (r,) if mode == "r" else (q, r)


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column `c` and first row `r` (default conj(c));
    N-d inputs give a batch of matrices over their leading axes."""
    if r is None:
        c = ensure_arraylike("toeplitz", c)
        r = um.conjugate(c)
    else:
        c, r = ensure_arraylike("toeplitz", c, r)
    c, r = promote_dtypes(man.atleast_1d(c), man.atleast_1d(r))
    batch = np.broadcast_shapes(np.shape(c)[:-1], np.shape(r)[:-1])
    m, n = np.shape(c)[-1], np.shape(r)[-1]
    c = man.broadcast_to(c, batch + (m,))
    r = man.broadcast_to(r, batch + (n,))
    if m == 0 or n == 0:
        return zeros(batch + (m, n), c.dtype)
    elems = man.concatenate([man.flip(c, -1), r[..., 1:]], axis=-1)
    idx = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]  # out[i, j] = c[i - j]
    return elems[..., idx]


def block_diag(*arrs):
    """The arrays (each at most 2-D) along the diagonal of one matrix, zeros elsewhere."""
    if not arrs:
        return zeros((1, 0))
    arrs = _block_operands(arrs)
    dtype = arrs[0].dtype
    cols = builtins.sum(np.shape(a)[1] for a in arrs)
    rows, acc = [], 0
    for a in arrs:
        r, c = np.shape(a)
        rows.append(man.concatenate([zeros((r, acc), dtype), a,
                                     zeros((r, cols - acc - c), dtype)], axis=1))
        acc += c
    return man.concatenate(rows, axis=0)


def _block_operands(arrs):
    arrs = promote_dtypes(*[ensure_arraylike("block_diag", a) for a in arrs])
    out = []
    for i, a in enumerate(arrs):
        if np.ndim(a) > 2:
            raise ValueError(f"Arguments to jax.scipy.linalg.block_diag must have at most 2 "
                             f"dimensions, got {a} at argument {i}.")
        out.append(man.reshape(a, (1, -1)) if np.ndim(a) < 2 else a)
    return out


# ---- expm ------------------------------------------------------------------------------

# Higham (2005): the largest 1-norm for which the Padé approximant of degree m is
# accurate to unit roundoff, in double and single precision.
_THETA = {np.dtype(np.float64): ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1),
                                 (7, 9.504178996162932e-1), (9, 2.097847961257068e0),
                                 (13, 5.371920351148152e0)),
          np.dtype(np.float32): ((3, 4.258730016922831e-001), (5, 1.880152677804762e+000),
                                 (7, 3.925724783138660e+000))}
_PADE = {3: (120., 60., 12., 1.), 5: (30240., 15120., 3360., 420., 30., 1.),
         7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
         9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160.,
             110880., 3960., 90., 1.),
         13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
              129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
              40840800., 960960., 16380., 182., 1.)}


def expm(A, *, upper_triangular=False, max_squarings=16):
    """exp(A): a Padé approximant of A / 2**s, squared s times (s chosen from A's 1-norm,
    at most max_squarings)."""
    (A,) = _inexact(A)
    dt = A.dtype if A.dtype in _THETA else np.dtype(np.float32)
    norm = red.max(red.sum(uf.absolute(A), axis=-2), axis=-1)
    m_top, theta_top = _THETA[dt][-1]
    s = uf.maximum(um.ceil(um.log2(uf.true_divide(norm, theta_top))), 0)
    s = uf.minimum(s, max_squarings)
    scaled = uf.true_divide(A, man.expand_dims(uf.power(2.0, s), (-1, -2)))
    out = _pade(scaled, m_top)
    for m, theta in reversed(_THETA[dt][:-1]):  # a lower degree suffices for small norms
        out = where(man.expand_dims(norm <= theta, (-1, -2)), _pade(A, m), out)
    return _square_times(out, lax.convert_element_type(s, np.int32), max_squarings)


def _pade(A, m):
    """The [m/m] Padé approximant of exp at A: (V - U)^{-1} (V + U)."""
    b = _PADE[m]
    n = np.shape(A)[-1]
    ident = man.broadcast_to(eye(n, dtype=A.dtype), np.shape(A))
    powers = [ident, prod.matmul(A, A)]
    for _ in range(2, m // 2 + 1):
        powers.append(prod.matmul(powers[-1], powers[1]))
    odd = powers[0] * b[1]
    even = powers[0] * b[0]
    for k in range(1, m // 2 + 1):
        odd = odd + powers[k] * b[2 * k + 1]
        even = even + powers[k] * b[2 * k]
    U = prod.matmul(A, odd)
    return jla.solve(even - U, even + U)


def _square_times(x, s, max_squarings):
    """x squared s times (s per matrix), as a fixed number of masked squarings."""
    for i in range(max_squarings):
        sq = prod.matmul(x, x)
        x = where(man.expand_dims(s > i, (-1, -2)), sq, x)
    return x
