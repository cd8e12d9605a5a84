"""Matrix decompositions as primitives, as JAX 0.10 stages them: `eigh[lower
sort_eigenvalues subset_by_index algorithm]` -> (v, w), `svd[full_matrices compute_uv
subset_by_index algorithm]` -> (s[, u, vt]) and `qr[pivoting full_matrices use_magma]` ->
(q, r), each declared once with every rule: a NumPy (LAPACK) impl, JAX's JVP rules,
batching over leading dimensions, and a lowering that runs the same LAPACK routine on the
host from compiled code (a typed-FFI Python callback, results checked before they reach
XLA). The jnp.linalg wrappers (eigh, eigvalsh, svd, svdvals, qr, pinv, matrix_rank, cond,
lstsq, norm with ord 2/-2/'nuc') build on them.

May import core, dtypes, lax, the numpy implementation modules and callback.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from didax._src import callback, dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import batching
from didax._src.interpreters.ad import Zero
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.manipulation import matrix_transpose
from didax._src.numpy.products import diagonal, matmul
from didax._src.numpy.util import (
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes_inexact,
)


def _H(x):
    return um.conj(matrix_transpose(x))


def _real(dt):
    return np.dtype(dtypes.real_dtype(dt)) if dtypes.is_complex(dt) else np.dtype(dt)


def _check_matrix(name, a):
    if len(a.shape) < 2:
        raise ValueError(f"Argument to {name} must have shape [..., m, n], got {a.shape}.")
    if not dtypes.is_inexact(a.dtype):
        raise TypeError(f"{name} requires a floating-point or complex argument, got "
                        f"{a.dtype}.")


def _host_lowering(impl):
    """A lowering that calls impl (the NumPy rule) on the host from compiled code."""
    def lower(ctx, x, **params):
        avals = ctx.avals_out

        def run(x_host):
            outs = impl(np.asarray(x_host), **params)
            return [np.ascontiguousarray(np.asarray(o, a.dtype).reshape(a.shape))
                    for o, a in zip(outs, avals)]
        return callback._emit_callback(ctx, [x], run, avals, False, False)
    return lower


def _batch_leading(prim):
    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        x = batching.moveaxis(x, d, 0)
        outs = prim.bind(x, **params)
        return outs, [0] * len(outs)
    return rule


# ---- eigh ----------------------------------------------------------------------------


def _eigh_abstract_eval(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to symmetric eigendecomposition must have shape [..., n, "
                         f"n], got shape {a.shape}")
    n = a.shape[-1]
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*a.shape[:-2], n), _real(a.dtype))]


def _eigh_impl(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [v, w]


def _eigh_jvp(primals, tangents, **params):
    (a,), (a_dot,) = primals, tangents
    v, w_real = eigh_p.bind(a, **params)
    if type(a_dot) is Zero:
        return [v, w_real], [Zero.from_primal_value(v), Zero.from_primal_value(w_real)]
    n = a.shape[-1]
    w = w_real.astype(dtype_of(a))
    eye_n = np.eye(n, dtype=dtype_of(a))
    fmat = uf.subtract(uf.power(uf.add(eye_n, uf.subtract(w[..., None, :], w[..., None])),
                                -1), eye_n)
    vdag_adot_v = matmul(matmul(_H(v), a_dot), v)
    dv = matmul(v, uf.multiply(fmat, vdag_adot_v))
    dw = um.real(diagonal(vdag_adot_v, axis1=-2, axis2=-1))
    return [v, w_real], [dv, dw]


eigh_p = def_primitive(
    "eigh", abstract_eval=_eigh_abstract_eval, impl=_eigh_impl, jvp=_eigh_jvp,
    transpose=NONLINEAR, batch=None, lower=_host_lowering(_eigh_impl), multiple_results=True)
batching.primitive_batchers[eigh_p] = _batch_leading(eigh_p)

# ---- svd -----------------------------------------------------------------------------


def _svd_abstract_eval(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", a)
    *batch, m, n = a.shape
    k = min(m, n)
    s = ShapedArray((*batch, k), _real(a.dtype))
    if not compute_uv:
        return [s]
    u_cols, vt_rows = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, u_cols), a.dtype),
            ShapedArray((*batch, vt_rows, n), a.dtype)]


def _svd_impl(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False)]
    u, s, vt = np.linalg.svd(a, full_matrices=full_matrices)
    return [s, u, vt]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    (a,), (da,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    if compute_uv and full_matrices:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    outs = [s, u, vt] if compute_uv else [s]
    if type(da) is Zero:
        return outs, [Zero.from_primal_value(o) for o in outs]
    ut, v = _H(u), _H(vt)
    ds_mat = matmul(matmul(ut, da), v)
    ds = um.real(diagonal(ds_mat, 0, -2, -1))
    if not compute_uv:
        return outs, [ds]
    du, dv = _svd_uv_tangents(a, da, s, u, ut, v, vt, ds_mat)
    return outs, [ds, du, _H(dv)]


def _svd_uv_tangents(a, da, s, u, ut, v, vt, ds_mat):
    dt = dtype_of(a)
    s_dim = s[..., None, :]
    s_t = matrix_transpose(s_dim)
    s_diffs = uf.multiply(uf.add(s_dim, s_t), uf.subtract(s_dim, s_t))
    eye = np.eye(s.shape[-1], dtype=dtype_of(s))
    f = uf.subtract(uf.true_divide(1, uf.add(s_diffs, eye)), eye).astype(dt)
    dss = uf.multiply(s_dim.astype(dt), ds_mat)
    sds = uf.multiply(s_t.astype(dt), ds_mat)
    s_zeros = (s == 0).astype(dtype_of(s))
    s_inv = uf.subtract(uf.true_divide(1, uf.add(s, s_zeros)), s_zeros)
    s_inv_mat = uf.multiply(s_inv[..., None, :], eye)
    dudv_diag = uf.multiply(uf.multiply(0.5, uf.subtract(ds_mat, _H(ds_mat))),
                            s_inv_mat.astype(dt))
    du = matmul(u, uf.add(uf.multiply(f, uf.add(dss, _H(dss))), dudv_diag))
    dv = matmul(v, uf.multiply(f, uf.add(sds, _H(sds))))
    m, n = a.shape[-2:]
    if m > n:
        dav = matmul(da, v)
        du = uf.add(du, uf.true_divide(uf.subtract(dav, matmul(u, matmul(ut, dav))),
                                       s_dim.astype(dt)))
    if n > m:
        dahu = matmul(_H(da), u)
        dv = uf.add(dv, uf.true_divide(uf.subtract(dahu, matmul(v, matmul(vt, dahu))),
                                       s_dim.astype(dt)))
    return du, dv


svd_p = def_primitive(
    "svd", abstract_eval=_svd_abstract_eval, impl=_svd_impl, jvp=_svd_jvp,
    transpose=NONLINEAR, batch=None, lower=_host_lowering(_svd_impl), multiple_results=True)
batching.primitive_batchers[svd_p] = _batch_leading(svd_p)

# ---- qr --------------------------------------------------------------------------------


def _qr_abstract_eval(a, *, pivoting, full_matrices, use_magma):
    _check_matrix("qr", a)
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype)]


def _qr_impl(a, *, pivoting, full_matrices, use_magma):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q, r]


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    from didax._src.numpy.linalg import solve  # noqa: PLC0415

    (x,), (dx,) = primals, tangents
    q, r = qr_p.bind(x, pivoting=False, full_matrices=full_matrices, use_magma=use_magma)
    m, n = x.shape[-2:]
    if type(dx) is Zero:
        return [q, r], [Zero.from_primal_value(q), Zero.from_primal_value(r)]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError("Unimplemented case of QR decomposition derivative")
    dx_rinv = matrix_transpose(solve(matrix_transpose(r), matrix_transpose(dx)))
    qt_dx_rinv = matmul(_H(q), dx_rinv)
    lower = uf.multiply(qt_dx_rinv, np.tril(np.ones((n, n), bool), -1))
    do = uf.subtract(lower, _H(lower))
    eye = np.eye(n, dtype=dtype_of(do))
    do = uf.add(do, uf.multiply(eye, uf.subtract(
        qt_dx_rinv, um.real(qt_dx_rinv).astype(dtype_of(qt_dx_rinv)))))
    dq = uf.add(matmul(q, uf.subtract(do, qt_dx_rinv)), dx_rinv)
    dr = matmul(uf.subtract(qt_dx_rinv, do), r)
    return [q, r], [dq, dr]


qr_p = def_primitive(
    "qr", abstract_eval=_qr_abstract_eval, impl=_qr_impl, jvp=_qr_jvp,
    transpose=NONLINEAR, batch=None, lower=_host_lowering(_qr_impl), multiple_results=True)
batching.primitive_batchers[qr_p] = _batch_leading(qr_p)

# ---- jnp.linalg wrappers -------------------------------------------------------------------


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class QRResult(NamedTuple):
    Q: object
    R: object


@jit_like_jax("eigh", static_argnames=("UPLO", "symmetrize_input"))
def _eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803 - NumPy's name
    a, = promote_dtypes_inexact(a)  # integers as floats, as JAX's jnp.linalg
    lower = UPLO in (None, "L")
    if symmetrize_input:
        a = uf.true_divide(uf.add(a, _H(a)), 2)
    v, w = eigh_p.bind(a, lower=lower, sort_eigenvalues=True, subset_by_index=None,
                       algorithm=None)
    return w, v


def eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803 - NumPy's name
    a = ensure_arraylike("jnp.linalg.eigh", a)
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    w, v = _eigh(a, UPLO, symmetrize_input)
    return EighResult(w, v)


@jit_like_jax("eigvalsh", static_argnames=("UPLO", "symmetrize_input"))
def _eigvalsh(a, UPLO=None, symmetrize_input=True):  # noqa: N803
    return _eigh(a, UPLO, symmetrize_input)[0]


def eigvalsh(a, UPLO=None, *, symmetrize_input=True):  # noqa: N803
    return _eigvalsh(ensure_arraylike("jnp.linalg.eigvalsh", a), UPLO, symmetrize_input)


@jit_like_jax("svd", static_argnames=("full_matrices", "compute_uv", "hermitian"))
def _svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    (a,) = promote_dtypes_inexact(a)
    outs = svd_p.bind(a, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=None, algorithm=None)
    return (outs[1], outs[0], outs[2]) if compute_uv else outs[0]


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    a = ensure_arraylike("jnp.linalg.svd", a)
    if subset_by_index is not None:
        raise NotImplementedError("svd(subset_by_index=...) is not supported by didax")
    out = _svd(a, full_matrices, compute_uv, hermitian)
    return SVDResult(*out) if compute_uv else out


def svdvals(x, /):
    return svd(x, compute_uv=False)


@jit_like_jax("qr", static_argnames=("mode",))
def _qr(a, mode="reduced"):
    a, = promote_dtypes_inexact(a)
    full = mode == "complete"
    (a,) = promote_dtypes_inexact(a)
    q, r = qr_p.bind(a, pivoting=False, full_matrices=full, use_magma=None)
    return r if mode == "r" else (q, r)


def qr(a, mode="reduced"):
    a = ensure_arraylike("jnp.linalg.qr", a)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("jnp.linalg.qr(mode='raw') is not supported by didax")
    out = _qr(a, mode)
    return out if mode == "r" else QRResult(*out)


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse (small singular values cut at rtol * max)."""
    (a,) = promote_dtypes_inexact(ensure_arraylike("jnp.linalg.pinv", a))
    u, s, vh = svd(um.conj(a), full_matrices=False)
    m, n = a.shape[-2:]
    cut = rtol if rtol is not None else rcond
    if cut is None:
        cut = 10.0 * max(m, n) * float(np.finfo(_real(dtype_of(a))).eps)
    cutoff = uf.multiply(cut, red.max(s, axis=-1, keepdims=True))
    s_inv = _where(uf.greater(s, cutoff), uf.true_divide(1, s))
    return matmul(matrix_transpose(vh) * s_inv[..., None, :], matrix_transpose(u))


def _where(c, x):
    from didax._src.numpy.lax_numpy import where  # noqa: PLC0415

    return where(c, x, 0)


def matrix_rank(M, rtol=None, *, tol=None, hermitian=False):  # noqa: N803 - NumPy's name
    """Singular values above rtol (absolute when given; by default the largest singular
    value times max(m, n) times eps), counted."""
    M = ensure_arraylike("jnp.linalg.matrix_rank", M)  # noqa: N806
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (M,) = promote_dtypes_inexact(M)  # noqa: N806
    if M.ndim < 2:
        return red.any(uf.not_equal(M, 0)).astype(np.int32)
    s = svd(M, full_matrices=False, compute_uv=False)
    if rtol is None:
        eps = float(np.finfo(dtype_of(s)).eps)
        rtol = uf.multiply(red.max(s, axis=-1), np.array(max(M.shape[-2:]) * eps,
                                                         dtype_of(s)))
    rtol = ensure_arraylike("jnp.linalg.matrix_rank", rtol)
    return red.sum(uf.greater(s, rtol[..., None]), axis=-1)


def cond(x, p=None):
    """The condition number (2-norm by default: largest over smallest singular value)."""
    (x,) = promote_dtypes_inexact(ensure_arraylike("jnp.linalg.cond", x))
    if p not in (None, 2, -2):
        from didax._src.numpy.linalg import inv, norm  # noqa: PLC0415

        return _nan_to_inf(uf.multiply(norm(x, ord=p, axis=(-2, -1)),
                                       norm(inv(x), ord=p, axis=(-2, -1))), x)
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got {x.shape=}")
    if x.shape[-1] == 0 or x.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got {x.shape=}")
    s = svd(x, compute_uv=False)
    if p == -2:
        return _nan_to_inf(uf.true_divide(s[..., -1], s[..., 0]), x)
    return uf.true_divide(s[..., 0], s[..., -1])     # (JAX leaves 0/0 here as NaN)


def _nan_to_inf(r, x):
    """A NaN condition number of a NaN-free matrix is infinite (singular), as in JAX."""
    from didax._src.numpy.lax_numpy import where  # noqa: PLC0415

    x_nan = red.any(um.isnan(x), axis=(-2, -1))
    return where(uf.logical_and(um.isnan(r), uf.logical_not(x_nan)), np.inf, r)


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """Least squares through the SVD: (x, residuals, rank, singular values); singular
    values below rcond times the largest (default eps * max(m, n)) are dropped."""
    a, b = ensure_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq_body(a, b, rcond, numpy_resid=True)
    return _lstsq(a, b, rcond)


@jit_like_jax("_lstsq")
def _lstsq(a, b, rcond):
    return _lstsq_body(a, b, rcond)


def _lstsq_body(a, b, rcond, numpy_resid=False):
    from didax._src.numpy.linalg import norm  # noqa: PLC0415

    a, b = promote_dtypes_inexact(a, b)
    _lstsq_check(a, b)
    b1 = b.ndim == 1
    bm = b[:, None] if b1 else b
    m, n = a.shape
    if a.size == 0:
        s = np.zeros((0,), dtype_of(a))
        rank = np.array(0, np.int32)
        x = np.zeros((n, *bm.shape[1:]), dtype_of(a))
    else:
        x, rank, s = _lstsq_solve(a, bm, rcond)
    if numpy_resid and (rank < n or m <= n):
        resid = ensure_arraylike("jnp.linalg.lstsq", np.zeros((0,), dtype_of(a)))
    else:
        resid = uf.power(norm(uf.subtract(bm, matmul(a, x)), axis=0), 2)
    return (x.ravel() if b1 else x), resid, rank, s


def _lstsq_check(a, b):
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")


def _lstsq_solve(a, bm, rcond):
    from didax._src.numpy.lax_numpy import where  # noqa: PLC0415

    eps = float(np.finfo(_real(dtype_of(a))).eps)
    rcond = eps * max(a.shape) if rcond is None else where(uf.less(rcond, 0), eps, rcond)
    u, s, vt = svd(a, full_matrices=False)
    cut = uf.multiply(ensure_arraylike("jnp.linalg.lstsq", rcond).astype(dtype_of(s)), s[0])
    mask = uf.logical_and(uf.greater(s, 0), uf.greater_equal(s, cut))
    rank = red.sum(mask)
    safe_s = where(mask, s, 1).astype(dtype_of(a))
    s_inv = where(mask, uf.true_divide(1, safe_s), 0)[:, None]
    x = matmul(matrix_transpose(um.conj(vt)), uf.multiply(s_inv, matmul(
        matrix_transpose(um.conj(u)), bm)))
    return x, rank, s
