"""`jax.scipy.optimize.minimize` with method="BFGS": Algorithm 6.1 of Nocedal & Wright,
"Numerical Optimization" (1999), with the strong-Wolfe line search of their Algorithms 3.5
(bracketing) and 3.6 (zoom by cubic, quadratic or bisection steps). The iteration is the
one JAX runs (jax/_src/scipy/optimize/bfgs.py, line_search.py): the same first trial step,
interpolation safeguards, loop bounds and status codes, so `nit`, `nfev`, `njev` and the
iterates match JAX's. Everything is a `lax.while_loop`, so `minimize` works under `jit`.

May import everything below the public modules (it needs `value_and_grad`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from didax._src import api, dtypes
from didax._src.lax import control_flow as lcf
from didax._src.lax.reductions import Precision
from didax._src.numpy import array_creation as creation
from didax._src.numpy import linalg as jla
from didax._src.numpy import ufuncs, ufuncs_math
from didax._src.numpy.einsum import einsum
from didax._src.numpy.lax_numpy import where
from didax._src.numpy.products import dot
from didax._src.numpy.util import promote_dtypes_inexact

_dot = functools.partial(dot, precision=Precision.HIGHEST)


class OptimizeResults(NamedTuple):
    """Result of `minimize`: x, success, status (0 converged, 1 max iterations, 3 zoom
    failed, 4 saddle point, 5 line-search iterations exhausted, -1 undefined), fun, jac,
    hess_inv, nfev, njev, nit — the fields and codes of JAX's OptimizeResults."""

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def _pick(bit, old: dict, new: dict) -> dict:
    """Entries of `new` where `bit` holds, else the same keys of `old` (traced branching)."""
    return {k: where(bit, new[k], old[k]) for k in new}


def _cubicmin(a, fa, fpa, b, fb, c, fc):
    """Minimiser of the cubic through (a, fa) with slope fpa, (b, fb) and (c, fc)."""
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = creation.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    v = creation.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    coef_a, coef_b = _dot(m, v) / denom
    radical = coef_b * coef_b - 3. * coef_a * fpa
    return a + (-coef_b + ufuncs_math.sqrt(radical)) / (3. * coef_a)


def _quadmin(a, fa, fpa, b, fb):
    """Minimiser of the quadratic through (a, fa) with slope fpa and (b, fb)."""
    db = b - a
    curv = (fb - fa - fpa * db) / (db ** 2)
    return a - fpa / (2. * curv)


def _zoom_trial(s: dict):
    """The next trial step inside the bracket: cubic if safely inside (not on the first
    pass), else quadratic if safely inside, else bisection."""
    span = s["a_hi"] - s["a_lo"]
    lo = ufuncs.minimum(s["a_hi"], s["a_lo"])
    hi = ufuncs.maximum(s["a_hi"], s["a_lo"])
    cchk, qchk = 0.2 * span, 0.1 * span
    cubic = _cubicmin(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"],
                      s["a_rec"], s["phi_rec"])
    use_cubic = (s["j"] > 0) & (cubic > lo + cchk) & (cubic < hi - cchk)
    quad = _quadmin(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"])
    use_quad = ~use_cubic & (quad > lo + qchk) & (quad < hi - qchk)
    a_j = where(use_cubic, cubic, s["a_rec"])
    a_j = where(use_quad, quad, a_j)
    return where(~use_cubic & ~use_quad, (s["a_lo"] + s["a_hi"]) / 2., a_j), span


def _zoom(phi_dphi, wolfe_one, wolfe_two, lo, hi, g_0, pass_through):
    """Algorithm 3.6: shrink the bracket [lo, hi] (each (a, phi, dphi)) until a step
    satisfies the strong Wolfe conditions; skipped entirely when `pass_through`."""
    init = dict(done=False, failed=False, j=0,
                a_lo=lo[0], phi_lo=lo[1], dphi_lo=lo[2],
                a_hi=hi[0], phi_hi=hi[1], dphi_hi=hi[2],
                a_rec=(lo[0] + hi[0]) / 2., phi_rec=(lo[1] + hi[1]) / 2.,
                a_star=1., phi_star=lo[1], dphi_star=lo[2], g_star=g_0, nfev=0, ngev=0)

    def body(s):
        a_j, span = _zoom_trial(s)
        tiny = 1e-5 if dtypes.finfo(span.dtype).bits < 64 else 1e-10
        s = dict(s, failed=s["failed"] | (span <= tiny))
        phi_j, dphi_j, g_j = phi_dphi(a_j)
        phi_j = phi_j.astype(s["phi_lo"].dtype)
        dphi_j = dphi_j.astype(s["dphi_lo"].dtype)
        g_j = g_j.astype(s["g_star"].dtype)
        s = dict(s, nfev=s["nfev"] + 1, ngev=s["ngev"] + 1)
        hi_to_j = wolfe_one(a_j, phi_j) | (phi_j >= s["phi_lo"])
        star_to_j = wolfe_two(dphi_j) & ~hi_to_j
        hi_to_lo = (dphi_j * (s["a_hi"] - s["a_lo"]) >= 0.) & ~hi_to_j & ~star_to_j
        lo_to_j = ~hi_to_j & ~star_to_j
        s.update(_pick(hi_to_j, s, dict(a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j,
                                        a_rec=s["a_hi"], phi_rec=s["phi_hi"])))
        s["done"] = star_to_j | s["done"]
        s.update(_pick(star_to_j, s, dict(a_star=a_j, phi_star=phi_j, dphi_star=dphi_j,
                                          g_star=g_j)))
        s.update(_pick(hi_to_lo, s, dict(a_hi=s["a_lo"], phi_hi=s["phi_lo"],
                                         dphi_hi=s["dphi_lo"], a_rec=s["a_hi"],
                                         phi_rec=s["phi_hi"])))
        s.update(_pick(lo_to_j & ~hi_to_lo, s, dict(a_rec=s["a_lo"], phi_rec=s["phi_lo"])))
        s.update(_pick(lo_to_j, s, dict(a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)))
        s["j"] = s["j"] + 1
        s["failed"] = s["failed"] | (s["j"] >= 30)
        return s

    return lcf.while_loop(lambda s: ~s["done"] & ~pass_through & ~s["failed"], body, init)


class _LineSearchResults(NamedTuple):
    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f: Callable, xk, pk, old_fval=None, old_old_fval=None, gfk=None,
                c1: float = 1e-4, c2: float = 0.9, maxiter: int = 20) -> _LineSearchResults:
    """Algorithm 3.5: a step along the descent direction `pk` meeting the strong Wolfe
    conditions (sufficient decrease c1, curvature c2)."""
    xk, pk = promote_dtypes_inexact(xk, pk)

    def phi_dphi(t):
        t = creation.array(t, dtype=pk.dtype)
        phi, g = api.value_and_grad(f)(xk + t * pk)
        return phi, ufuncs_math.real(_dot(g, pk)), g

    fresh = old_fval is None or gfk is None
    if fresh:
        phi_0, dphi_0, gfk = phi_dphi(0)
    else:
        phi_0, dphi_0 = old_fval, ufuncs_math.real(_dot(gfk, pk))
    if old_old_fval is not None:
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start = where(candidate > 1, 1.0, candidate)
    else:
        start = 1

    def wolfe_one(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def wolfe_two(dphi_i):
        return ufuncs.abs(dphi_i) <= -c2 * dphi_0

    false = creation.array(False, dtype=bool)
    init = dict(done=false, failed=false, i=1, a_i1=0., phi_i1=phi_0, dphi_i1=dphi_0,
                nfev=int(fresh), ngev=int(fresh), a_star=0., phi_star=phi_0,
                dphi_star=dphi_0, g_star=gfk)
    star_keys = ("a_star", "phi_star", "dphi_star", "g_star")

    def body(s):
        a_i = where(s["i"] == 1, start, s["a_i1"] * 2.)
        phi_i, dphi_i, g_i = phi_dphi(a_i)
        s = dict(s, nfev=s["nfev"] + 1, ngev=s["ngev"] + 1)
        to_zoom1 = wolfe_one(a_i, phi_i) | ((phi_i >= s["phi_i1"]) & (s["i"] > 1))
        to_i = wolfe_two(dphi_i) & ~to_zoom1
        to_zoom2 = (dphi_i >= 0.) & ~to_zoom1 & ~to_i
        prev, cur = (s["a_i1"], s["phi_i1"], s["dphi_i1"]), (a_i, phi_i, dphi_i)
        z1 = _zoom(phi_dphi, wolfe_one, wolfe_two, prev, cur, gfk, ~to_zoom1)
        z2 = _zoom(phi_dphi, wolfe_one, wolfe_two, cur, prev, gfk, ~to_zoom2)
        s["nfev"] = s["nfev"] + z1["nfev"] + z2["nfev"]
        s["ngev"] = s["ngev"] + z1["ngev"] + z2["ngev"]
        s["done"] = to_zoom1 | s["done"]
        s["failed"] = (to_zoom1 & z1["failed"]) | s["failed"]
        s.update(_pick(to_zoom1, s, {k: z1[k] for k in star_keys}))
        s["done"] = to_i | s["done"]
        s.update(_pick(to_i, s, dict(a_star=a_i, phi_star=phi_i, dphi_star=dphi_i,
                                     g_star=g_i)))
        s["done"] = to_zoom2 | s["done"]
        s["failed"] = (to_zoom2 & z2["failed"]) | s["failed"]
        s.update(_pick(to_zoom2, s, {k: z2[k] for k in star_keys}))
        return dict(s, i=s["i"] + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    s = lcf.while_loop(lambda s: ~s["done"] & (s["i"] <= maxiter) & ~s["failed"], body, init)
    status = where(s["failed"], creation.array(1),
                   where(s["i"] > maxiter, creation.array(3), creation.array(0)))
    alpha = creation.asarray(s["a_star"])
    alpha = where((dtypes.finfo(alpha.dtype).bits != 64) & (ufuncs.abs(alpha) < 1e-8),
                  ufuncs.sign(alpha) * 1e-8, alpha)
    return _LineSearchResults(failed=s["failed"] | ~s["done"], nit=s["i"] - 1, nfev=s["nfev"],
                              ngev=s["ngev"], k=s["i"], a_k=alpha, f_k=s["phi_star"],
                              g_k=s["g_star"], status=status)


def _bfgs_step(fun, s: dict, d: int, gnorm: Callable, ls_maxiter: int) -> dict:
    """One BFGS iteration: line search along -H g, then the inverse-Hessian update
    H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T (skipped when rho is not finite)."""
    p_k = -_dot(s["H_k"], s["g_k"])
    ls = line_search(fun, s["x_k"], p_k, old_fval=s["f_k"], old_old_fval=s["old_old_fval"],
                     gfk=s["g_k"], maxiter=ls_maxiter)
    s = dict(s, nfev=s["nfev"] + ls.nfev, ngev=s["ngev"] + ls.ngev, failed=ls.failed,
             line_search_status=ls.status)
    s_k = ls.a_k * p_k
    y_k = ls.g_k - s["g_k"]
    rho = ufuncs.reciprocal(_dot(y_k, s_k))
    w = creation.eye(d, dtype=rho.dtype) - rho * (s_k[:, np.newaxis] * y_k[np.newaxis, :])
    h_new = (einsum("ij,jk,lk", w, s["H_k"], w, precision=Precision.HIGHEST)
             + rho * s_k[:, np.newaxis] * s_k[np.newaxis, :])
    h_new = where(ufuncs_math.isfinite(rho), h_new, s["H_k"])
    return dict(s, converged=gnorm(ls.g_k), k=s["k"] + 1, x_k=s["x_k"] + s_k, f_k=ls.f_k,
                g_k=ls.g_k, H_k=h_new, old_old_fval=s["f_k"])


def minimize_bfgs(fun: Callable, x0, maxiter: int | None = None, norm=np.inf,
                  gtol: float = 1e-5, line_search_maxiter: int = 10) -> dict:
    """BFGS from `x0` until the `norm` of the gradient is below `gtol` (a dict of the
    solver state: converged, failed, k, nfev, ngev, x_k, f_k, g_k, H_k, status)."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f_0, g_0 = api.value_and_grad(fun)(x0)

    def gnorm(g):
        return jla.norm(g, ord=norm) < gtol

    init = dict(converged=gnorm(g_0), failed=False, k=0, nfev=1, ngev=1, nhev=0, x_k=x0,
                f_k=f_0, g_k=g_0, H_k=creation.eye(d, dtype=x0.dtype),
                old_old_fval=f_0 + jla.norm(g_0) / 2, status=0, line_search_status=0)
    s = lcf.while_loop(
        lambda s: ufuncs.logical_not(s["converged"]) & ufuncs.logical_not(s["failed"])
        & (s["k"] < maxiter),
        lambda s: _bfgs_step(fun, s, d, gnorm, line_search_maxiter), init)
    s["status"] = where(s["converged"], 0,
                        where(s["k"] == maxiter, 1,
                              where(s["failed"], 2 + s["line_search_status"], -1)))
    return s


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimise the scalar function `fun(x, *args)` of a 1-D array `x` from `x0`.

    Args:
      fun: the objective; gradients come from autodiff.
      x0: initial guess, shape (n,).
      args: extra positional arguments of `fun` (a tuple).
      method: "BFGS" (required, as in JAX).
      tol: unused, as in JAX (use options={"gtol": ...}).
      options: solver options: maxiter, norm, gtol, line_search_maxiter.

    Returns:
      An OptimizeResults.
    """
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(
            f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def fun_with_args(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        r = minimize_bfgs(fun_with_args, x0, **options)
        return OptimizeResults(x=r["x_k"], success=r["converged"] & ~r["failed"],
                               status=r["status"], fun=r["f_k"], jac=r["g_k"],
                               hess_inv=r["H_k"], nfev=r["nfev"], njev=r["ngev"],
                               nit=r["k"])
    if method.lower() == "l-bfgs-experimental-do-not-rely-on-this":
        raise NotImplementedError(
            "jax.scipy.optimize.minimize(method='l-bfgs-experimental-do-not-rely-on-this') "
            "is not implemented in didax; use method='BFGS'")
    raise ValueError(f"Method {method} not recognized")
