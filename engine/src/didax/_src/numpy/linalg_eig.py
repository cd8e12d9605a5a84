"""The general (non-symmetric) eigendecomposition: `eig_p` (JAX's `lax.linalg.eig`), and
`jnp.linalg.eig` / `eigvals` on it.

Eagerly the primitive runs NumPy's LAPACK `geev`, as JAX's CPU lowering does; compiled code
calls the same rule on the host. Outputs are complex: [w, vr] (or [w] for eigenvalues only).
Eigenvalues are differentiable (JAX's rule: dw = diag(vr^-1 da vr)); eigenvectors are not,
as in JAX without `enable_eigvec_derivs`. May import what linalg_decomp may.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from didax._src import dtypes
from didax._src.core import ShapedArray
from didax._src.interpreters import batching
from didax._src.interpreters.ad import Zero
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy.linalg_decomp import _batch_leading, _host_lowering
from didax._src.numpy.manipulation import matrix_transpose
from didax._src.numpy.util import ensure_arraylike, jit_like_jax, promote_dtypes_inexact


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def _eig_abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to nonsymmetric eigendecomposition must have shape "
                         f"[..., n, n], got shape {a.shape}")
    if not dtypes.is_inexact(a.dtype):
        raise TypeError(f"eig requires a floating-point or complex argument, got {a.dtype}.")
    cdt = dtypes.to_complex_dtype(a.dtype)
    outs = [ShapedArray(a.shape[:-1], cdt)]
    n_vec = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return outs + [ShapedArray(a.shape, cdt)] * n_vec


def _eig_impl(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    if compute_left_eigenvectors:
        raise NotImplementedError("didax's eig computes right eigenvectors only; use "
                                  "compute_left_eigenvectors=False (jnp.linalg.eig does)")
    cdt = dtypes.to_complex_dtype(a.dtype)
    w, vr = np.linalg.eig(a)
    outs = [np.asarray(w, cdt)]
    return outs + ([np.asarray(vr, cdt)] if compute_right_eigenvectors else [])


def _eig_jvp(primals, tangents, **params):
    (a,), (da,) = primals, tangents
    if params["compute_left_eigenvectors"] or params["compute_right_eigenvectors"]:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on "
            "the input that JAX cannot check; didax differentiates eigenvalues only "
            "(jnp.linalg.eigvals).")
    from didax._src.numpy.linalg import solve  # noqa: PLC0415

    w, vr = eig_p.bind(a, **{**params, "compute_right_eigenvectors": True})
    if type(da) is Zero:
        return [w], [Zero.from_primal_value(w)]
    da = da.astype(vr.dtype)
    return [w], [red.sum(uf.multiply(solve(vr, da), matrix_transpose(vr)), axis=-1)]


eig_p = def_primitive(
    "eig", abstract_eval=_eig_abstract_eval, impl=_eig_impl, jvp=_eig_jvp,
    transpose=NONLINEAR, batch=None, lower=_host_lowering(_eig_impl), multiple_results=True)
batching.primitive_batchers[eig_p] = _batch_leading(eig_p)


def _params(right: bool) -> dict:
    return dict(compute_left_eigenvectors=False, compute_right_eigenvectors=right,
                enable_eigvec_derivs=False, implementation=None)


@jit_like_jax("eig")
def _eig(a):
    a, = promote_dtypes_inexact(a)
    return tuple(eig_p.bind(a, **_params(True)))


@jit_like_jax("eigvals")
def _eigvals(a):
    a, = promote_dtypes_inexact(a)
    return eig_p.bind(a, **_params(False))[0]


def eig(a):
    """Eigenvalues and right eigenvectors (unit norm, as LAPACK's geev gives them)."""
    return EigResult(*_eig(ensure_arraylike("jnp.linalg.eig", a)))


def eigvals(a):
    return _eigvals(ensure_arraylike("jnp.linalg.eigvals", a))
