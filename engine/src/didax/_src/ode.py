"""`jax.experimental.ode.odeint`: adaptive Dormand–Prince (RK45) integration with dense
output by 4th-order polynomial interpolation, and reverse-mode derivatives by the adjoint
method (an augmented ODE solved backwards in time), as JAX implements it: the same
tableau, error norm, step-size control and initial step, so trajectories match JAX's.

May import everything below the public modules.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

import numpy as np

from didax._src import api, core, dtypes
from didax._src.closure_convert import closure_convert
from didax._src.config import default_matmul_precision
from didax._src.custom_derivatives import custom_vjp
from didax._src.flatten_util import ravel_pytree
from didax._src.lax import control_flow as lcf
from didax._src.numpy import array_creation as creation
from didax._src.numpy import lax_numpy as jnp_core
from didax._src.numpy import linalg as jla
from didax._src.numpy import manipulation as manip
from didax._src.numpy import polynomial, products, ufuncs, ufuncs_math
from didax._src.numpy import reductions as red
from didax._src.numpy.util import promote_dtypes_inexact
from didax._src.pjit import jit
from didax._src.tree_util import tree_leaves, tree_map

_where = jnp_core.where


def _arr(values, dtype):
    return creation.array(np.asarray(values), dtype=dtype)


def ravel_first_arg(f: Callable, unravel: Callable) -> Callable:
    def g(y_flat, *args):
        return ravel_pytree(f(unravel(y_flat), *args))[0]
    return g


def interp_fit_dopri(y0, y1, k, dt):
    dps_c_mid = _arr([
        6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
        -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
        -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2], y0.dtype)
    y_mid = y0 + dt.astype(y0.dtype) * products.dot(dps_c_mid, k)
    return creation.asarray(fit_4th_order_polynomial(y0, y1, y_mid, k[0], k[-1], dt))


def fit_4th_order_polynomial(y0, y1, y_mid, dy0, dy1, dt):
    dt = dt.astype(y0.dtype)
    a = -2. * dt * dy0 + 2. * dt * dy1 - 8. * y0 - 8. * y1 + 16. * y_mid
    b = 5. * dt * dy0 - 3. * dt * dy1 + 18. * y0 + 14. * y1 - 32. * y_mid
    c = -4. * dt * dy0 + dt * dy1 - 11. * y0 - 5. * y1 + 16. * y_mid
    return a, b, c, dt * dy0, y0


def initial_step_size(fun, t0, y0, order, rtol, atol, f0):
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = atol + ufuncs.abs(y0) * rtol
    d0 = jla.norm(y0 / scale.astype(dtype))
    d1 = jla.norm(f0 / scale.astype(dtype))
    h0 = _where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    y1 = y0 + h0.astype(dtype) * f0
    f1 = fun(y1, t0 + h0)
    d2 = jla.norm((f1 - f0) / scale.astype(dtype)) / h0
    h1 = _where((d1 <= 1e-15) & (d2 <= 1e-15), ufuncs.maximum(1e-6, h0 * 1e-3),
                (0.01 / ufuncs.maximum(d1, d2)) ** (1. / (order + 1.)))
    return ufuncs.minimum(100. * h0, h1)


_ALPHA = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1., 1., 0]
_BETA = [[1 / 5, 0, 0, 0, 0, 0, 0], [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
         [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]]
_C_SOL = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_C_ERROR = [35 / 384 - 1951 / 21600, 0, 500 / 1113 - 22642 / 50085, 125 / 192 - 451 / 720,
            -2187 / 6784 - -12231 / 42400, 11 / 84 - 649 / 6300, -1. / 60.]


def runge_kutta_step(func, y0, f0, t0, dt):
    alpha = _arr(_ALPHA, dt.dtype)
    beta = _arr(_BETA, f0.dtype)
    c_sol, c_error = _arr(_C_SOL, f0.dtype), _arr(_C_ERROR, f0.dtype)

    def body_fun(i, k):
        ti = t0 + dt * alpha[i - 1]
        yi = y0 + dt.astype(f0.dtype) * products.dot(beta[i - 1, :], k)
        return k.at[i, :].set(func(yi, ti))

    k = creation.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lcf.fori_loop(1, 7, body_fun, k)
    y1 = dt.astype(f0.dtype) * products.dot(c_sol, k) + y0
    y1_error = dt.astype(f0.dtype) * products.dot(c_error, k)
    return y1, k[-1], y1_error, k


def _abs2(x):
    if dtypes.is_complex(x.dtype):
        return ufuncs_math.real(x) ** 2 + ufuncs_math.imag(x) ** 2
    return x ** 2


def mean_error_ratio(error_estimate, rtol, atol, y0, y1):
    err_tol = atol + rtol * ufuncs.maximum(ufuncs.abs(y0), ufuncs.abs(y1))
    err_ratio = error_estimate / err_tol.astype(error_estimate.dtype)
    return ufuncs_math.sqrt(red.mean(_abs2(err_ratio)))


def optimal_step_size(last_step, mean_error_ratio, safety=0.9, ifactor=10.0, dfactor=0.2,
                      order=5.0):
    dfactor = _where(mean_error_ratio < 1, 1.0, dfactor)
    factor = ufuncs.minimum(ifactor, ufuncs.maximum(
        mean_error_ratio ** (-1.0 / order) * safety, dfactor))
    return _where(mean_error_ratio == 0, last_step * ifactor, last_step * factor)


def odeint(func: Callable, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf,
           hmax=np.inf):
    """Solves dy/dt = func(y, t, *args) from y(t[0]) = y0; returns y at every time in t
    (the pytree y0's structure with a leading time axis)."""
    for arg in tree_leaves(args):
        if not core.valid_jaxtype(arg):
            raise TypeError("The contents of odeint *args must be arrays or scalars, but "
                            f"got {arg}.")
    if not dtypes.issubdtype(t.dtype, np.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    converted, consts = closure_convert(func, y0, t[0], *args)
    return _odeint_wrapper(converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
def _odeint_wrapper(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    with default_matmul_precision("highest"):
        y0, unravel = ravel_pytree(y0)
        out = _odeint(ravel_first_arg(func, unravel), rtol, atol, mxstep, hmax, y0, ts,
                      *args)
        return api.vmap(unravel)(out)


def _odeint_impl(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def func_(y, t):
        return func(y, t, *args)

    def scan_fun(carry, target_t):
        def cond_fun(state):
            i, _, _, t, dt, _, _ = state
            return (t < target_t) & (i < mxstep) & (dt > 0)

        def body_fun(state):
            i, y, f, t, dt, last_t, interp_coeff = state
            next_y, next_f, next_y_error, k = runge_kutta_step(func_, y, f, t, dt)
            next_t = t + dt
            error_ratio = mean_error_ratio(next_y_error, rtol, atol, y, next_y)
            new_interp_coeff = interp_fit_dopri(y, next_y, k, dt)
            dt = jnp_core.clip(optimal_step_size(dt, error_ratio), min=0., max=hmax)
            new = [i + 1, next_y, next_f, next_t, dt, t, new_interp_coeff]
            old = [i + 1, y, f, t, dt, last_t, interp_coeff]
            return [_where(error_ratio <= 1., n, o) for n, o in zip(new, old)]

        _, *carry = lcf.while_loop(cond_fun, body_fun, [0] + carry)
        _, _, t, _, last_t, interp_coeff = carry
        relative_output_time = (target_t - last_t) / (t - last_t)
        y_target = polynomial.polyval(interp_coeff,
                                      relative_output_time.astype(interp_coeff.dtype))
        return carry, y_target

    f0 = func_(y0, ts[0])
    dt = jnp_core.clip(initial_step_size(func_, ts[0], y0, 4, rtol, atol, f0), min=0.,
                       max=hmax)
    interp_coeff = creation.array([y0] * 5)
    init_carry = [y0, f0, ts[0], dt, ts[0], interp_coeff]
    _, ys = lcf.scan(scan_fun, init_carry, ts[1:])
    return manip.concatenate((y0[None], ys))


def _odeint_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _odeint(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _odeint_rev(func, rtol, atol, mxstep, hmax, res, g):
    ys, ts, args = res

    def aug_dynamics(augmented_state, t, *args):
        """The original dynamics and the adjoint's, run backwards in time."""
        y, y_bar, *_ = augmented_state
        y_dot, vjpfun = api.vjp(func, y, -t, *args)
        return (-y_dot, *vjpfun(y_bar))

    def scan_fun(carry, i):
        y_bar, t0_bar, args_bar = carry
        t_bar = ufuncs_math.real(products.dot(func(ys[i], ts[i], *args), g[i]))
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            aug_dynamics, (ys[i], y_bar, t0_bar, args_bar),
            creation.array([-ts[i], -ts[i - 1]]), *args, rtol=rtol, atol=atol,
            mxstep=mxstep, hmax=hmax)
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1),
                                           (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    with default_matmul_precision("highest"):
        init_carry = (g[-1], 0., tree_map(creation.zeros_like, args))
        (y_bar, t0_bar, args_bar), rev_ts_bar = lcf.scan(
            scan_fun, init_carry, creation.arange(len(ts) - 1, 0, -1))
        ts_bar = manip.concatenate([creation.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


def _odeint_highest(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    with default_matmul_precision("highest"):
        return _odeint_impl(func, rtol, atol, mxstep, hmax, y0, ts, *args)


_odeint = custom_vjp(_odeint_highest, nondiff_argnums=(0, 1, 2, 3, 4))
_odeint.defvjp(_odeint_fwd, _odeint_rev)
