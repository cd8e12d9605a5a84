"""`lax.custom_root`, `lax.custom_linear_solve` and the Krylov solvers of `jax.scipy.sparse.linalg` (`cg`,
`bicgstab`) built on it, with JAX's iterations (jax/_src/scipy/sparse/linalg.py): the
same recurrences, stopping rule norm(r) <= max(tol * norm(b), atol) and default maxiter
(10 * size of b), so iterates and results match JAX's.

Derivatives are implicit, as in JAX: the cotangent of b is a solve with the transposed
operator (`transpose_solve`, or `solve` itself when `symmetric`), and values closed over by
`matvec` get -(d matvec / d theta)^T applied to it. didax implements this with a custom
VJP, so reverse mode (grad, vjp) works; forward mode (jvp, jacfwd) of a solve does not.
`custom_root` differentiates by the implicit function theorem (a custom JVP, as JAX):
dx* = -tangent_solve(df/dx at x*, df/dtheta . dtheta).

May import everything below the public modules.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

import numpy as np

from didax._src import api, dtypes
from didax._src.api_extras import linear_transpose
from didax._src.closure_convert import closure_convert
from didax._src.custom_derivatives import custom_jvp, custom_vjp
from didax._src.lax import control_flow as lcf
from didax._src.lax.reductions import Precision
from didax._src.numpy import array_creation as creation
from didax._src.numpy import ufuncs, ufuncs_math
from didax._src.numpy.lax_numpy import where
from didax._src.numpy.products import dot, vdot
from didax._src.tree_util import Partial, tree_leaves, tree_map, tree_structure

_dot = functools.partial(dot, precision=Precision.HIGHEST)
_vdot = functools.partial(vdot, precision=Precision.HIGHEST)


def custom_linear_solve(matvec: Callable, b, solve: Callable, transpose_solve=None,
                        symmetric: bool = False, has_aux: bool = False):
    """x = solve(matvec, b) for the linear map `matvec`, differentiated implicitly.

    Args:
      matvec: the linear operator x -> A x (on pytrees shaped like b).
      b: the right-hand side (a pytree of arrays).
      solve: solve(matvec, b) -> x (or (x, aux) with has_aux).
      transpose_solve: transpose_solve(vecmat, b) -> x, for reverse mode when not symmetric.
      symmetric: A is symmetric, so `solve` serves as its own transpose.
      has_aux: `solve` also returns auxiliary data (not differentiated).
    """
    conv, consts = closure_convert(matvec, b)

    def run(b, consts):
        return solve(lambda x: conv(x, *consts), b)

    @custom_vjp
    def _solve(b, consts):
        return run(b, consts)

    def fwd(b, consts):
        out = run(b, consts)
        return out, (out[0] if has_aux else out, consts)

    def bwd(res, ct):
        x, consts = res
        ct_x = ct[0] if has_aux else ct
        mv = functools.partial(lambda cs, v: conv(v, *cs), consts)
        if symmetric:
            ct_b = solve(mv, ct_x)
        elif transpose_solve is None:
            raise TypeError("transpose_solve required for backwards mode automatic "
                            "differentiation of custom_linear_solve")
        else:
            vecmat = linear_transpose(mv, x)
            ct_b = transpose_solve(lambda v: vecmat(v)[0], ct_x)
        ct_b = ct_b[0] if has_aux and isinstance(ct_b, tuple) else ct_b
        _, pull = api.vjp(lambda cs: conv(x, *cs), consts)
        (ct_consts,) = pull(tree_map(operator.neg, ct_b))
        return ct_b, ct_consts

    _solve.defvjp(fwd, bwd)
    return _solve(b, list(consts))


def custom_root(f: Callable, initial_guess, solve: Callable, tangent_solve: Callable,
                has_aux: bool = False):
    """x* = solve(f, initial_guess) with f(x*) = 0, differentiated implicitly.

    Args:
      f: the function whose root is sought (pytree -> pytree of the same structure).
      initial_guess: the starting point (a pytree).
      solve: solve(f, initial_guess) -> x* (or (x*, aux) with has_aux).
      tangent_solve: tangent_solve(g, y) -> x with g(x) = y for the linear map g (the
        linearization of f at x*), e.g. `lambda g, y: y / g(1.0)` for scalars.
      has_aux: `solve` also returns auxiliary data (not differentiated).
    """
    conv, consts = closure_convert(f, initial_guess)

    @custom_jvp
    def _root(consts, guess):
        return solve(lambda x: conv(x, *consts), guess)

    @_root.defjvp
    def _root_jvp(primals, tangents):
        consts, guess = primals
        consts_dot = tangents[0]
        out = _root(consts, guess)
        x = out[0] if has_aux else out
        _, rhs = api.jvp(lambda cs: conv(x, *cs), (consts,), (consts_dot,))
        _, f_jvp = api.linearize(lambda v: conv(v, *consts), x)
        x_dot = tree_map(operator.neg, tangent_solve(f_jvp, rhs))
        if has_aux:
            return out, (x_dot, tree_map(lambda a: creation.zeros_like(a), out[1]))
        return out, x_dot

    return _root(list(consts), initial_guess)


# ---- tree arithmetic -------------------------------------------------------------------


def _vdot_real_part(x, y):
    out = _vdot(ufuncs_math.real(x), ufuncs_math.real(y))
    if dtypes.is_complex(x.dtype) or dtypes.is_complex(y.dtype):
        out = out + _vdot(ufuncs_math.imag(x), ufuncs_math.imag(y))
    return out


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real_part, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot, x, y)))


def _mul(scalar, tree):
    return tree_map(functools.partial(operator.mul, scalar), tree)


_add = functools.partial(tree_map, operator.add)
_sub = functools.partial(tree_map, operator.sub)


@Partial
def _identity(x):
    return x


def _normalize_matvec(f):
    """A function x -> A x from a function, a square matrix or a matmul-able object."""
    if callable(f):
        return f
    if hasattr(f, "__matmul__"):
        if len(np.shape(f)) != 2 or np.shape(f)[0] != np.shape(f)[1]:
            raise ValueError(
                f"linear operator must be a square matrix, but has shape: {np.shape(f)}")
        return functools.partial(_dot, f) if hasattr(f, "dtype") else \
            functools.partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


# ---- the solvers -----------------------------------------------------------------------


def _cg_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    atol2 = ufuncs.maximum(ufuncs.square(tol) * _vdot_real_tree(b, b), ufuncs.square(atol))

    def cond(v):
        _, r, gamma, _, k = v
        rs = ufuncs_math.real(gamma) if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body(v):
        x, r, gamma, p, k = v
        Ap = A(p)
        alpha = gamma / _vdot_real_tree(p, Ap).astype(dtype)
        x, r = _add(x, _mul(alpha, p)), _sub(r, _mul(alpha, Ap))
        z = M(r)
        gamma_new = _vdot_real_tree(r, z).astype(dtype)
        return x, r, gamma_new, _add(z, _mul(gamma_new / gamma, p)), k + 1

    r0 = _sub(b, A(x0))
    p0 = M(r0)
    dtype = dtypes.result_type(*tree_leaves(p0))
    init = (x0, r0, _vdot_real_tree(r0, p0).astype(dtype), p0, 0)
    return lcf.while_loop(cond, body, init)[0]


def _bicgstab_step(A, M, atol2, v):
    x, r, rhat, alpha, omega, rho, p, q, k = v
    rho_ = _vdot_tree(rhat, r)
    beta = rho_ / rho * alpha / omega
    p_ = _add(r, _mul(beta, _sub(p, _mul(omega, q))))
    phat = M(p_)
    q_ = A(phat)
    alpha_ = rho_ / _vdot_tree(rhat, q_)
    s = _sub(r, _mul(alpha_, q_))
    exit_early = _vdot_real_tree(s, s) < atol2
    shat = M(s)
    t = A(shat)
    omega_ = _vdot_tree(t, s) / _vdot_tree(t, t)
    x_ = tree_map(functools.partial(where, exit_early), _add(x, _mul(alpha_, phat)),
                  _add(x, _add(_mul(alpha_, phat), _mul(omega_, shat))))
    r_ = tree_map(functools.partial(where, exit_early), s, _sub(s, _mul(omega_, t)))
    k_ = where((omega_ == 0) | (alpha_ == 0), -11, k + 1)
    k_ = where(rho_ == 0, -10, k_)
    return x_, r_, rhat, alpha_, omega_, rho_, p_, q_, k_


def _bicgstab_solve(A, b, x0=None, *, maxiter, tol=1e-5, atol=0.0, M=_identity):
    atol2 = ufuncs.maximum(ufuncs.square(tol) * _vdot_real_tree(b, b), ufuncs.square(atol))

    def cond(v):
        r, k = v[1], v[-1]
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    r0 = _sub(b, A(x0))
    one = creation.array(1, dtype=dtypes.result_type(*tree_leaves(b)))
    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lcf.while_loop(cond, functools.partial(_bicgstab_step, A, M, atol2), init)[0]


def _isolve(method, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None,
            check_symmetric=False):
    if x0 is None:
        x0 = tree_map(lambda v: creation.zeros_like(v), b)
    b, x0 = tree_map(creation.asarray, (b, x0))
    if maxiter is None:
        maxiter = 10 * sum(np.size(v) for v in tree_leaves(b))
    A = _normalize_matvec(A)
    M = _identity if M is None else _normalize_matvec(M)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError("x0 and b must have matching tree structure: "
                         f"{tree_structure(x0)} vs {tree_structure(b)}")
    shapes_x0 = [np.shape(v) for v in tree_leaves(x0)]
    shapes_b = [np.shape(v) for v in tree_leaves(b)]
    if shapes_x0 != shapes_b:
        raise ValueError(f"arrays in x0 and b must have matching shapes: {shapes_x0} vs "
                         f"{shapes_b}")
    solve = functools.partial(method, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = check_symmetric and all(not dtypes.is_complex(v.dtype)
                                        for v in tree_leaves(b))
    x = custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Conjugate gradients for A x = b with A Hermitian positive definite; returns (x, None)."""
    return _isolve(_cg_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M,
                   check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """BiCGSTAB for A x = b with a general (square) A; returns (x, None)."""
    return _isolve(_bicgstab_solve, A=A, b=b, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
