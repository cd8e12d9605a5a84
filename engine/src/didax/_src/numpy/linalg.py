"""`didax.numpy.linalg`: norms (vector, matrix, Frobenius), and — as compositions of lax
primitives, so they differentiate and batch like everything else — LU factorization with
partial pivoting (unrolled over the static matrix size, pivots chosen as LAPACK's getrf
chooses them) giving det/slogdet/solve/inv, and a column-by-column Cholesky; plus
matrix_power, multi_dot, tensorinv/tensorsolve and the array-API aliases. The LAPACK
decompositions (eigh, svd, qr and what builds on them) live in linalg_decomp; the general
eigendecomposition (eig, eigvals) in linalg_eig.

May import core, dtypes, array, didax.lax and the numpy implementation modules.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from didax._src import dtypes
from didax._src.lax import lax, shapes
from didax._src.numpy import reductions as red
from didax._src.numpy import ufuncs as uf
from didax._src.numpy import ufuncs_math as um
from didax._src.numpy.array_creation import eye
from didax._src.numpy.einsum import einsum
from didax._src.numpy.manipulation import (
    concatenate,
    expand_dims,
    matrix_transpose,
    moveaxis,
    reshape,
)
from didax._src.numpy.products import cross as _cross
from didax._src.numpy.products import diagonal as _diagonal
from didax._src.numpy.products import (  # noqa: F401 - re-exported
    matmul,
    outer,
    tensordot,
    vecdot,  # noqa: F401 - re-exported
)
from didax._src.numpy.products import trace as _trace
from didax._src.numpy.util import (
    broadcast_shapes_checked,
    broadcast_to,
    canonicalize_axis,
    dtype_of,
    ensure_arraylike,
    jit_like_jax,
    promote_dtypes_inexact,
    where3,
)

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve",
           "trace", "vecdot", "vector_norm"]


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


# ----------------------------------------------------------------------------------------
# Norms
# ----------------------------------------------------------------------------------------


def _sq_sum(x, axis, keepdims):
    return um.sqrt(red.sum(um.real(uf.multiply(x, um.conj(x))), axis=axis, keepdims=keepdims))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    x = ensure_arraylike("jnp.linalg.vector_norm", x)
    if ord is None or ord == 2:
        return _sq_sum(x, axis, keepdims)
    if ord == np.inf:
        return red.max(uf.absolute(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return red.min(uf.absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return red.sum(uf.not_equal(x, 0), dtype=dtypes.finfo(dtype_of(x)).dtype, axis=axis,
                       keepdims=keepdims)
    if ord == 1:
        return red.sum(uf.absolute(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{'-' if ord[0] == '-' else ''}jax.numpy.inf' instead."
        raise ValueError(msg)
    ax = uf.absolute(x)
    p = np.array(ord, dtype_of(ax))
    return uf.power(red.sum(uf.power(ax, p), axis=axis, keepdims=keepdims),
                    np.array(1.0 / p, dtype_of(ax)))


@jit_like_jax("norm", static_argnames=("ord", "axis", "keepdims"))
def _norm(x, ord, axis, keepdims):
    (x,) = promote_dtypes_inexact(x)
    nd = np.ndim(x)
    if axis is None:
        if ord is None:
            return _sq_sum(x, None, keepdims)
        axis = tuple(range(nd))
    if len(axis) == 1:
        return vector_norm(x, ord=2 if ord is None else ord, axis=axis, keepdims=keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: axis={axis}. Pass one axis to "
                         "compute a vector-norm, or two axes to compute a matrix-norm.")
    return _matrix_norm(x, ord, axis, keepdims)


def _matrix_norm(x, ord, axis, keepdims):
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return _sq_sum(x, axis, keepdims)
    if ord in (1, -1):
        if not keepdims and col > row:
            col -= 1
        s = red.sum(uf.absolute(x), axis=row, keepdims=keepdims)
        return red.max(s, axis=col, keepdims=keepdims, initial=0) if ord == 1 else \
            red.min(s, axis=col, keepdims=keepdims)
    if ord in (np.inf, -np.inf):
        if not keepdims and row > col:
            row -= 1
        s = red.sum(uf.absolute(x), axis=col, keepdims=keepdims)
        return red.max(s, axis=row, keepdims=keepdims, initial=0) if ord == np.inf else \
            red.min(s, axis=row, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        y = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        y = red.max(y, axis=-1) if ord == 2 else (red.min(y, axis=-1) if ord == -2
                                                   else red.sum(y, axis=-1))
        return expand_dims(y, (row, col)) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x, ord=None, axis=None, keepdims=False):
    x = ensure_arraylike("jnp.linalg.norm", x)
    nd = np.ndim(x)
    if axis is not None:
        axis = tuple(canonicalize_axis(a, nd) for a in (axis if isinstance(axis, tuple)
                                                        else (axis,)))
    return _norm(x, ord, axis, bool(keepdims))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(ensure_arraylike("jnp.linalg.matrix_norm", x), ord=ord, axis=(-2, -1),
                keepdims=keepdims)


# ----------------------------------------------------------------------------------------
# LU with partial pivoting (unrolled) and what it gives
# ----------------------------------------------------------------------------------------


def _pivot_magnitude(x):
    """LAPACK's pivot measure: |x| for reals, |re| + |im| for complex."""
    if dtypes.is_complex(dtype_of(x)):
        return lax.add(lax.abs(lax.real(x)), lax.abs(lax.imag(x)))
    return lax.abs(x)


def _swap_rows(a, k, p):
    """a with rows k and p (a batch of indices) exchanged."""
    n = np.shape(a)[-2]
    rows = shapes.broadcasted_iota(dtype_of(p), (*np.shape(p), n), np.ndim(p))
    is_p = shapes.expand_dims(lax.eq(rows, shapes.expand_dims(p, (np.ndim(p),))),
                              (np.ndim(p) + 1,))
    row_k = a[..., k:k + 1, :]
    row_p = red.sum(where3(is_p, a, 0), axis=-2, keepdims=True)
    at_k = np.zeros((n, 1), bool)
    at_k[k] = True
    return where3(at_k, row_p, where3(is_p, row_k, a))


def _lu(a):
    """(combined unit-lower/upper LU factors, row permutation, odd-permutation flag)."""
    n = np.shape(a)[-1]
    batch = np.shape(a)[:-2]
    perm = broadcast_to(shapes.iota(np.int32, n), (*batch, n))
    odd = lax.full(batch, False, np.bool_)
    for k in range(n):
        p = lax.convert_element_type(red.argmax(_pivot_magnitude(a[..., k:, k]), axis=-1),
                                     np.int32)
        p = lax.add(p, np.int32(k))
        a = _swap_rows(a, k, p)
        perm = _swap_rows(shapes.expand_dims(perm, (np.ndim(perm),)), k, p)[..., 0]
        odd = lax.bitwise_xor(odd, lax.ne(p, np.int32(k)))
        pivot = a[..., k, k]
        zero = lax.eq(pivot, np.zeros((), dtype_of(a)))
        safe = where3(zero, 1, pivot)
        low = where3(shapes.expand_dims(zero, (np.ndim(zero),)), 0,
                     uf.true_divide(a[..., k + 1:, k], shapes.expand_dims(safe, (np.ndim(safe),))))
        rest = uf.subtract(a[..., k + 1:, k + 1:], uf.multiply(
            shapes.expand_dims(low, (np.ndim(low),)), a[..., k:k + 1, k + 1:]))
        lower = concatenate([a[..., k + 1:, :k], shapes.expand_dims(low, (np.ndim(low),)),
                             rest], axis=-1)
        a = concatenate([a[..., :k + 1, :], lower], axis=-2)
    return a, perm, odd


def _square(name, a):
    a = ensure_arraylike(name, a)
    (a,) = promote_dtypes_inexact(a)
    shp = np.shape(a)
    if len(shp) < 2 or shp[-1] != shp[-2]:
        raise ValueError(f"Argument to {name.split('.')[-1]}() must have shape [..., n, n], "
                         f"got {shp}")
    return a


def slogdet(a, *, method=None):
    a = _square("jnp.linalg.slogdet", a)
    if method not in (None, "lu"):
        raise NotImplementedError(f"slogdet method={method!r} is not implemented")
    lu, _, odd = _lu(a)
    d = _diagonal(lu, 0, -2, -1)
    mag = uf.absolute(d)
    logabs = red.sum(um.log(mag), axis=-1)
    unit = where3(uf.equal(mag, 0), 0, uf.true_divide(d, where3(uf.equal(mag, 0), 1, mag)))
    sign = red.prod(unit, axis=-1)
    sign = where3(odd, uf.negative(sign), sign)
    return SlogdetResult(sign, logabs)


@jit_like_jax("det")
def det(a):
    a = _square("jnp.linalg.det", a)
    n = np.shape(a)[-1]
    m = uf.multiply
    if n == 2:
        return uf.subtract(m(a[..., 0, 0], a[..., 1, 1]), m(a[..., 0, 1], a[..., 1, 0]))
    if n == 3:
        terms = [((0, 0), (1, 1), (2, 2)), ((0, 1), (1, 2), (2, 0)), ((0, 2), (1, 0), (2, 1))]
        neg = [((0, 2), (1, 1), (2, 0)), ((0, 0), (1, 2), (2, 1)), ((0, 1), (1, 0), (2, 2))]

        def prod3(t):
            return m(m(a[..., t[0][0], t[0][1]], a[..., t[1][0], t[1][1]]),
                     a[..., t[2][0], t[2][1]])
        out = prod3(terms[0])
        for t in terms[1:]:
            out = uf.add(out, prod3(t))
        for t in neg:
            out = uf.subtract(out, prod3(t))
        return out
    lu, _, odd = _lu(a)
    d = red.prod(_diagonal(lu, 0, -2, -1), axis=-1)
    return where3(odd, uf.negative(d), d)


def _triangular_solves(lu, perm, b):
    """x with a x = b for a = P^T L U, b of shape (..., n, k)."""
    n = np.shape(lu)[-1]
    picks = uf.equal(shapes.expand_dims(perm, (np.ndim(perm),)), shapes.iota(np.int32, n))
    b = matmul(lax.convert_element_type(picks, dtype_of(b)), b)
    ys = []
    for k in range(n):
        yk = b[..., k:k + 1, :]
        if k:
            yk = uf.subtract(yk, matmul(lu[..., k:k + 1, :k], concatenate(ys, axis=-2)))
        ys.append(yk)
    xs = [None] * n
    for k in reversed(range(n)):
        xk = ys[k]
        if k < n - 1:
            xk = uf.subtract(xk, matmul(lu[..., k:k + 1, k + 1:], concatenate(xs[k + 1:],
                                                                             axis=-2)))
        xs[k] = uf.true_divide(xk, lu[..., k:k + 1, k:k + 1])
    return concatenate(xs, axis=-2)


def solve(a, b):
    a, b = ensure_arraylike("jnp.linalg.solve", a, b)
    a, b = promote_dtypes_inexact(a, b)
    if np.ndim(a) < 2:
        raise ValueError("left hand array must be at least two dimensional; got "
                         f"a.shape={np.shape(a)}")
    if np.ndim(b) > 1 and np.ndim(a) == np.ndim(b) + 1 and np.shape(a)[-1] == \
            np.shape(b)[-1] and np.shape(a)[-1] != np.shape(b)[-2]:
        raise ValueError(f"Invalid shapes for solve: {np.shape(a)}, {np.shape(b)}. Prior to "
                         "JAX v0.5.0, this would have been treated as a batched "
                         "1-dimensional solve. To recover this behavior, use solve(a, "
                         "b[..., None]).squeeze(-1).")
    vec = np.ndim(b) == 1
    bm = expand_dims(b, -1) if vec else b
    batch = broadcast_shapes_checked(np.shape(a)[:-2], np.shape(bm)[:-2])
    a = broadcast_to(a, (*batch, *np.shape(a)[-2:]))
    bm = broadcast_to(bm, (*batch, *np.shape(bm)[-2:]))
    lu, perm, _ = _lu(a)
    x = _triangular_solves(lu, perm, bm)
    return x[..., 0] if vec else x


def inv(a):
    a = ensure_arraylike("jnp.linalg.inv", a)
    if np.ndim(a) < 2 or np.shape(a)[-1] != np.shape(a)[-2]:
        raise ValueError(f"Argument to inv must have shape [..., n, n], got {np.shape(a)}.")
    n = np.shape(a)[-1]
    return solve(a, broadcast_to(eye(n, dtype=dtype_of(a)), np.shape(a)))


def cholesky(a, *, upper=False, symmetrize_input=True):
    """The lower Cholesky factor (NaN where a is not positive definite, as JAX gives)."""
    a = _square("jnp.linalg.cholesky", a)
    if symmetrize_input:
        a = uf.true_divide(uf.add(a, um.conj(matrix_transpose(a))), 2)
    n = np.shape(a)[-1]
    cols = []
    for j in range(n):
        prev = concatenate(cols, axis=-1) if cols else None
        diag = a[..., j, j]
        if prev is not None:
            pj = prev[..., j, :]
            diag = uf.subtract(diag, red.sum(uf.multiply(pj, um.conj(pj)), axis=-1))
        ljj = um.sqrt(diag)
        below = a[..., j + 1:, j]
        if prev is not None:
            below = uf.subtract(below, matmul(prev[..., j + 1:, :],
                                              um.conj(prev[..., j, :])))
        col = concatenate([lax.full((*np.shape(a)[:-2], j), 0, dtype_of(a)),
                           expand_dims(ljj, -1),
                           uf.true_divide(below, expand_dims(ljj, -1))], axis=-1)
        cols.append(expand_dims(col, -1))
    L = concatenate(cols, axis=-1)
    return um.conj(matrix_transpose(L)) if upper else L


def matrix_power(a, n):
    a = ensure_arraylike("jnp.linalg.matrix_power", a)
    if np.ndim(a) < 2:
        raise TypeError(f"{np.ndim(a)}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if np.shape(a)[-2] != np.shape(a)[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return broadcast_to(eye(np.shape(a)[-2], dtype=dtype_of(a)), np.shape(a))
    if n < 0:
        a, n = inv(a), -n
    result, z = None, None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def multi_dot(arrays, *, precision=None):
    arrs = [ensure_arraylike("jnp.linalg.multi_dot", a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)="
                         f"{len(arrs)}")
    if not (np.ndim(arrs[0]) in (1, 2) and np.ndim(arrs[-1]) in (1, 2) and
            all(np.ndim(a) == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                         "first and last array which may be 1 or 2 dimensional. Got array "
                         f"shapes {[np.shape(a) for a in arrs]}")
    letters = "abcdefghijklmnopqrstuvwxyz"
    terms = [letters[i:i + 2] for i in range(len(arrs))]
    if np.ndim(arrs[0]) == 1:
        terms[0] = terms[0][1:]
    if np.ndim(arrs[-1]) == 1:
        terms[-1] = terms[-1][:1]
    return einsum(",".join(terms), *arrs, precision=precision)


def tensorinv(a, ind=2):
    a = ensure_arraylike("tensorinv", a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    cshape, bshape = np.shape(a)[:ind], np.shape(a)[ind:]
    rows, cols = math.prod(cshape), math.prod(bshape)
    if rows != cols:
        raise ValueError("tensorinv is only possible when the product of the first `ind` "
                         "dimensions equals that of the remaining dimensions. got "
                         f"a.shape={np.shape(a)} with ind={ind}.")
    return reshape(inv(reshape(a, (rows, cols))), (*bshape, *cshape))


def tensorsolve(a, b, axes=None):
    a, b = ensure_arraylike("tensorsolve", a, b)
    if axes is not None:
        a = moveaxis(a, axes, len(axes) * (np.ndim(a) - 1,))
    out_shape = np.shape(a)[np.ndim(b):]
    if np.shape(a)[:np.ndim(b)] != np.shape(b):
        raise ValueError("After moving axes to end, leading shape of a must match shape of "
                         f"b. got a.shape={np.shape(a)}, b.shape={np.shape(b)}")
    if np.size(b) != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={np.shape(a)}, "
                         f"b.ndim={np.ndim(b)}.")
    a = reshape(a, (np.size(b), math.prod(out_shape)))
    return reshape(solve(a, reshape(b, (-1,))), out_shape)


def trace(x, /, *, offset=0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


def diagonal(x, /, *, offset=0):
    return _diagonal(x, offset, -2, -1)


def cross(x1, x2, /, *, axis=-1):
    return _cross(x1, x2, axis=axis)


from didax._src.numpy.linalg_decomp import (  # noqa: E402, F401 - jnp.linalg names
    EighResult,
    QRResult,
    SVDResult,
    cond,
    eigh,
    eigvalsh,
    lstsq,
    matrix_rank,
    pinv,
    qr,
    svd,
    svdvals,
)
from didax._src.numpy.linalg_eig import (  # noqa: E402, F401 - jnp.linalg names
    EigResult,
    eig,
    eigvals,
)

