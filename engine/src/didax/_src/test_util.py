"""`jax.test_util`: checking derivatives against finite differences (`check_grads`,
`check_jvp`, `check_vjp`) with JAX's semantics — one random direction drawn from
`np.random.RandomState(0)`, central differences with step `eps`, per-dtype default gradient
tolerances scaled by the array size, and higher orders by differentiating the derivative.
The arithmetic on the host keeps each input's dtype (as JAX's public_test_util does).

May import everything below the public modules (it calls api.jvp/vjp/linearize).
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from didax._src import api, dtypes
from didax._src.config import config
from didax._src.tree_util import tree_map, tree_reduce

EPS = 1e-4

# Default tolerances of a comparison (exactness per dtype) and of a gradient check.
_DEFAULT_TOL = {
    "bool": 0, "int8": 0, "int16": 0, "int32": 0, "int64": 0, "uint8": 0, "uint16": 0,
    "uint32": 0, "uint64": 0, "float0": 0, "bfloat16": 1e-2, "float16": 1e-3,
    "float32": 1e-6, "float64": 1e-15, "complex64": 1e-6, "complex128": 1e-15,
}
_GRAD_TOL = {
    "bfloat16": 1e-1, "float16": 1e-2, "float32": 2e-3, "float64": 1e-5,
    "complex64": 1e-3, "complex128": 1e-5,
}


def _is_python_scalar(x) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, (bool, int, float, complex))


def _dtype(x) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    if _is_python_scalar(x):
        return dtypes.canonicalize_dtype(np.asarray(x).dtype)
    return np.asarray(x).dtype


def _tolerance(dtype, tol) -> float:
    """tol may be a number, a {dtype: tol} dict (merged over the defaults) or None."""
    if tol is not None and not isinstance(tol, dict):
        return tol
    name = dtypes.canonicalize_dtype(np.dtype(dtype)).name
    given = {np.dtype(k).name: v for k, v in (tol or {}).items()}
    return given.get(name, _DEFAULT_TOL.get(name, 0))


def _merge(tol, default: dict):
    if tol is None:
        return dict(default)
    if not isinstance(tol, dict):
        return tol
    out = dict(default)
    out.update({np.dtype(k).name: v for k, v in tol.items()})
    return out


def _assert_close(a, b, atol=None, rtol=None, err_msg="") -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    if a.dtype == b.dtype == dtypes.float0:
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    atol_ = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol)) * a.size
    rtol_ = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol)) * b.size
    a, b = (x.astype(np.float32) if x.dtype.name == "bfloat16" else x for x in (a, b))
    kw = {k: v for k, v in (("atol", atol_), ("rtol", rtol_)) if v}
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(a, b, err_msg=err_msg, **kw)


def check_close(xs, ys, atol=None, rtol=None, err_msg="") -> None:
    tree_map(functools.partial(_assert_close, atol=atol, rtol=rtol, err_msg=err_msg), xs, ys)


def _check_dtypes_match(xs, ys) -> None:
    def check(x, y):
        if config.x64_enabled:
            assert _dtype(x) == _dtype(y)
        else:
            assert dtypes.canonicalize_dtype(_dtype(x)) == dtypes.canonicalize_dtype(_dtype(y))
    tree_map(check, xs, ys)


def _keep_type(f):
    """A host binary/unary op whose result keeps the first input's dtype (and a Python
    scalar stays a Python scalar)."""
    def wrapped(*args):
        out = np.array(f(*args), dtype=_dtype(args[0]))
        return out.item() if all(_is_python_scalar(a) for a in args) else out
    return wrapped


_add = functools.partial(tree_map, _keep_type(operator.add))
_sub = functools.partial(tree_map, _keep_type(operator.sub))
_conj = functools.partial(tree_map, _keep_type(np.conj))


def _safe_sub(xs, ys):
    """x - y with inf - inf == 0."""
    def sub(x, y):
        dt = _dtype(x)
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, dt), np.subtract(x, y, dtype=dt))
    return tree_map(sub, xs, ys)


def _scalar_mul(xs, a):
    def mul(x):
        dt = _dtype(x)
        out = np.multiply(x, np.array(a, dtype=dt), dtype=dt)
        return out.item() if _is_python_scalar(x) else out
    return tree_map(mul, xs)


def _rand_like(rng, x):
    shape, dt = np.shape(x), _dtype(x)
    out = np.asarray(rng.randn(*shape), dtype=dt)
    if dtypes.is_complex(dt):
        out = out + dt.type(1.0j) * np.asarray(rng.randn(*shape), dtype=dt)
    return out.item() if _is_python_scalar(x) else out


def _inner_prod(xs, ys):
    def contract(x, y):
        return np.real(np.dot(np.conj(x).reshape(-1), np.asarray(y).reshape(-1)))
    return tree_reduce(np.add, tree_map(contract, xs, ys))


def numerical_jvp(f, primals, tangents, eps=EPS):
    """Central differences of f at primals along tangents."""
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(_safe_sub(f_pos, f_neg), 0.5 / eps)


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg="") -> None:
    """f_jvp (e.g. `functools.partial(jax.jvp, f)`) against finite differences, along one
    random direction."""
    atol, rtol = _merge(atol, _GRAD_TOL), _merge(rtol, _GRAD_TOL)
    rng = np.random.RandomState(0)
    tangent = tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out)
    v_expected = f(*args)
    _check_dtypes_match(v_out, v_expected)
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    check_close(v_out, v_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg="") -> None:
    """f_vjp (e.g. `functools.partial(jax.vjp, f)`) against finite differences: the
    cotangent projection <t, vjp(c)> must equal <jvp(t), c> for random t and c."""
    atol, rtol = _merge(atol, _GRAD_TOL), _merge(rtol, _GRAD_TOL)
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    v_out, vjpfun = f_vjp(*args)
    v_expected = f(*args)
    check_close(v_out, v_expected, atol=atol, rtol=rtol,
                err_msg=f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(rand, args)
    tangent_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tree_map(rand, v_out)
    cotangent_out = _conj(vjpfun(_conj(cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    check_close(ip, ip_expected, atol=atol, rtol=rtol,
                err_msg=(f"{err_msg} cotangent projection" if err_msg
                         else "cotangent projection"))


def _jvp_from_lin(f, primals, tangents):
    primal_out, f_lin = api.linearize(f, *primals)
    return primal_out, f_lin(*tangents)


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None
                ) -> None:
    """Checks forward ("fwd"), reverse ("rev") and/or linearized ("lin") derivatives of
    f at args up to `order` against finite differences; raises AssertionError."""
    args = tuple(args)
    eps = eps or EPS
    jvp_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    vjp_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def rec(f, args, order, err_msg=""):
        if "fwd" in modes:
            msg = f"JVP of {err_msg}" if err_msg else "JVP"
            jvp_check(f, functools.partial(api.jvp, f), args, err_msg=msg)
            if order > 1:
                rec(functools.partial(api.jvp, f), (args, args), order - 1, msg)
        if "rev" in modes:
            msg = f"VJP of {err_msg}" if err_msg else "VJP"
            vjp_check(f, functools.partial(api.vjp, f), args, err_msg=msg)
            if order > 1:
                def f_vjp(*args):
                    out, pullback = api.vjp(f, *args)
                    return pullback(out)
                rec(f_vjp, args, order - 1, msg)
        if "lin" in modes:
            msg = f"LIN of {err_msg}" if err_msg else "LIN"
            jvp_check(f, functools.partial(_jvp_from_lin, f), args, err_msg=msg)
            if order > 1:
                rec(functools.partial(_jvp_from_lin, f), (args, args), order - 1, msg)

    rec(f, args, order)
