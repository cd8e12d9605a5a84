"""Products and matrix structure in didax.numpy: dot, matmul (batch dims broadcast without
materializing, as JAX does), vdot, vecdot, matvec, vecmat, inner, outer, tensordot, kron,
cross, trace, diagonal, diag, diagflat, tril, triu. Result dtypes are the promoted input
dtype passed to dot_general as preferred_element_type, weak only when both inputs are.

May import core, dtypes, array, didax.lax and numpy.util/array_creation/manipulation/
ufuncs/reductions/indexing_ops.
"""

from __future__ import annotations

import builtins
import functools
import operator

import numpy as np

from didax._src import core, dtypes
from didax._src.lax import lax, shapes
from didax._src.lax import reductions as lred
from didax._src.numpy import reductions, ufuncs, ufuncs_math
from didax._src.numpy.manipulation import moveaxis, ravel, reshape
from didax._src.numpy.util import (
    _staging,
    broadcast_to,
    canonicalize_axis,
    convert,
    dtype_of,
    ensure_arraylike,
    full,
    full_like,
    jit_like_jax,
    promote_dtypes,
    where3,
)


def _result_type(a, b, preferred_element_type, name):
    if preferred_element_type is None:
        dt, weak = dtypes.result_type(a, b, return_weak_type_flag=True)
        return dtypes.canonicalize_dtype(dt), weak
    return dtypes.check_and_canonicalize_user_dtype(preferred_element_type, name), False


def _dot_general(a, b, dn, precision, pet, weak, out_sharding=None):
    out = lred.dot_general(a, b, dn, precision=precision, preferred_element_type=pet,
                           out_sharding=out_sharding)
    return convert(out, pet, weak)


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    a, b = ensure_arraylike("dot", a, b)
    pet, weak = _result_type(a, b, preferred_element_type, "dot")
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        contract = ((), ())
    elif nb == 1:
        contract = ((na - 1,), (0,))
    else:
        contract = ((na - 1,), (nb - 2,))
    return _dot_general(a, b, (contract, ((), ())), precision, pet, weak, out_sharding)


def _classify_batch(a_batch, b_batch):
    """Sorts aligned batch dims into shared, a-only, b-only and squeezed groups."""
    g = {"batch": [], "a_other": [], "b_other": [], "a_sq": [], "b_sq": [], "both": [],
         "a_bd": [], "b_bd": []}
    for i, (da, db) in enumerate(zip(a_batch, b_batch)):
        na_pos = len(g["batch"]) + len(g["a_other"]) + len(g["a_sq"])
        nb_pos = len(g["batch"]) + len(g["b_other"]) + len(g["b_sq"])
        if da is None:
            g["b_other"].append(i)
        elif db is None:
            g["a_other"].append(i)
        elif da == 1 and db == 1:
            g["a_sq"].append(na_pos)
            g["b_sq"].append(nb_pos)
            g["both"].append(i)
        elif da == 1:
            g["b_other"].append(i)
            g["a_sq"].append(na_pos)
        elif db == 1:
            g["a_other"].append(i)
            g["b_sq"].append(nb_pos)
        elif da == db:
            g["a_bd"].append(len(g["batch"]) + len(g["a_other"]))
            g["b_bd"].append(len(g["batch"]) + len(g["b_other"]))
            g["batch"].append(i)
        else:
            return None
    return g


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    a, b = ensure_arraylike("matmul", a, b)
    plan = _matmul_plan(np.shape(a), np.shape(b))
    if isinstance(plan, str):
        raise ValueError(plan.format(a=core.get_aval(a).str_short(),
                                     b=core.get_aval(b).str_short()))
    pet, weak = _result_type(a, b, preferred_element_type, "matmul")
    a_sq, b_sq, dn, perm, both = plan
    if a_sq:
        a = shapes.squeeze(a, a_sq)
    if b_sq:
        b = shapes.squeeze(b, b_sq)
    out = lred.dot_general(a, b, dn, precision=precision, preferred_element_type=pet)
    if perm is not None:
        out = shapes.transpose(out, perm)
    if both:
        out = shapes.expand_dims(out, both)
    return convert(out, pet, weak)


@functools.lru_cache(maxsize=512)
def _matmul_plan(a_shape, b_shape):
    """How matmul of these shapes runs: (dims to squeeze from a, from b, dot dimension
    numbers, output permutation or None, dims to re-insert), or an error message."""
    for i, shape in enumerate((a_shape, b_shape)):
        if len(shape) < 1:
            return (f"matmul input operand {i} must have ndim at least 1, but it has ndim "
                    f"{len(shape)}")
    a_mat, b_mat = len(a_shape) > 1, len(b_shape) > 1
    ab = a_shape[:-2] if a_mat else ()
    bb = b_shape[:-2] if b_mat else ()
    nbatch = builtins.max(len(ab), len(bb))
    ab = (None,) * (nbatch - len(ab)) + tuple(ab)
    bb = (None,) * (nbatch - len(bb)) + tuple(bb)
    g = _classify_batch(ab, bb)
    if g is None:
        return "Incompatible types for matmul arguments: {a} and {b}"
    if a_mat:
        g["a_other"].append(nbatch)
    if b_mat:
        g["b_other"].append(nbatch + a_mat)
    order = g["batch"] + g["a_other"] + g["b_other"]
    perm = tuple(sorted(range(len(order)), key=order.__getitem__))
    a_nd = len(a_shape) - len(g["a_sq"])
    b_nd = len(b_shape) - len(g["b_sq"])
    dn = (((a_nd - 1,), (b_nd - 1 - b_mat,)), (tuple(g["a_bd"]), tuple(g["b_bd"])))
    return (tuple(g["a_sq"]), tuple(g["b_sq"]), dn,
            None if perm == tuple(range(len(perm))) else perm, tuple(g["both"]))


def vdot(a, b, *, precision=None, preferred_element_type=None):
    a, b = ensure_arraylike("vdot", a, b)
    if dtypes.is_complex(dtype_of(a)):
        a = ufuncs_math.conj(a)
    return dot(ravel(a), ravel(b), precision=precision,
               preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    x1, x2 = ensure_arraylike("jnp.vecdot", x1, x2)
    if np.shape(x1)[axis] != np.shape(x2)[axis]:
        raise ValueError(f"axes must match; got shapes {np.shape(x1)} and {np.shape(x2)} "
                         f"with axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    if dtypes.is_complex(dtype_of(x1)):
        x1 = ufuncs_math.conj(x1)
    x1, x2 = x1[..., None, :], x2[..., :, None]
    out = matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)
    return out[..., 0, 0]


def matvec(x1, x2, /):
    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return matmul(x1, x2[..., None])[..., 0]


def vecmat(x1, x2, /):
    x1, x2 = ensure_arraylike("vecmat", x1, x2)
    if dtypes.is_complex(dtype_of(x1)):
        x1 = ufuncs_math.conj(x1)
    return matmul(x1[..., None, :], x2)[..., 0, :]


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
              out_sharding=None):
    a, b = ensure_arraylike("tensordot", a, b)
    na, nb = np.ndim(a), np.ndim(b)
    pet, weak = _result_type(a, b, preferred_element_type, "tensordot")
    if type(axes) is int:
        if axes > builtins.min(na, nb):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({np.shape(a)} and {np.shape(b)})")
        contract = (tuple(range(na - axes, na)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((canonicalize_axis(ax1, na),), (canonicalize_axis(ax2, nb),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError("tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, na) for i in ax1),
                        tuple(canonicalize_axis(i, nb) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair "
                        "of lists/tuples of ints.")
    return _dot_general(a, b, (contract, ((), ())), precision, pet, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    a, b = ensure_arraylike("inner", a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        if preferred_element_type is not None:
            a = convert(a, preferred_element_type)
            b = convert(b, preferred_element_type)
        return ufuncs.multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = ensure_arraylike("outer", a, b)
    a, b = promote_dtypes(a, b)
    return ufuncs.multiply(shapes.expand_dims(ravel(a), (1,)),
                           shapes.expand_dims(ravel(b), (0,)))


@jit_like_jax("kron")
def kron(a, b):
    a, b = ensure_arraylike("kron", a, b)
    a, b = promote_dtypes(a, b)
    nd = builtins.max(np.ndim(a), np.ndim(b))
    a = reshape(a, (1,) * (nd - np.ndim(a)) + np.shape(a))
    b = reshape(b, (1,) * (nd - np.ndim(b)) + np.shape(b))
    a_exp = shapes.expand_dims(a, tuple(range(1, 2 * nd, 2)))
    b_exp = shapes.expand_dims(b, tuple(range(0, 2 * nd, 2)))
    prod = ufuncs.multiply(a_exp, b_exp)
    return reshape(prod, tuple(x * y for x, y in zip(np.shape(a), np.shape(b))))


@jit_like_jax("cross", static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    a, b = ensure_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if np.shape(a)[-1] not in (2, 3) or np.shape(b)[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if np.shape(a)[-1] == 2 and np.shape(b)[-1] == 2:
        return ufuncs.subtract(ufuncs.multiply(a[..., 0], b[..., 1]),
                               ufuncs.multiply(a[..., 1], b[..., 0]))
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if np.shape(a)[-1] == 3 else full_like(a0, 0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if np.shape(b)[-1] == 3 else full_like(b0, 0)
    m = ufuncs.multiply
    c = [ufuncs.subtract(m(a1, b2), m(a2, b1)), ufuncs.subtract(m(a2, b0), m(a0, b2)),
         ufuncs.subtract(m(a0, b1), m(a1, b0))]
    from didax._src.numpy.array_creation import array  # noqa: PLC0415

    return moveaxis(array(c), 0, axisc)


# ----------------------------------------------------------------------------------------
# Diagonals and triangles
# ----------------------------------------------------------------------------------------


_EAGER_MASKS: dict = {}


def _offset_mask(n, m, k, cmp):
    """rows + k <cmp> cols over an (n, m) grid, as JAX computes it. Nothing is staged
    eagerly (under grad/vmap of eager code too), so the mask is then a cached constant."""
    if not _staging():
        key = (n, m, k, cmp)
        mask = _EAGER_MASKS.get(key)
        if mask is None:
            mask = _EAGER_MASKS[key] = _eager_mask(n, m, k, cmp)
        return mask
    return _traced_mask(n, m, k, cmp)


def _eager_mask(n, m, k, cmp):
    if len(_EAGER_MASKS) > 256:
        _EAGER_MASKS.clear()
    with core.set_current_trace(core.eval_trace):
        return _traced_mask(n, m, k, cmp)


def _traced_mask(n, m, k, cmp):
    # JAX's iotas take the dtype of the (Python int) offset: int64 under x64
    idx = dtypes.default_int_dtype()
    rows = lax.add(shapes.broadcasted_iota(idx, (n, m), 0), k)
    cols = shapes.broadcasted_iota(idx, (n, m), 1)
    return cmp(rows, cols)


@jit_like_jax("trace", static_argnames=("offset", "axis1", "axis2", "dtype"))
def _trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    a = ensure_arraylike("trace", a)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = np.shape(a)[-2:]
    mask = _offset_mask(n, m, offset, lax.eq)
    a = where3(mask, a, full_like(a, 0))
    return reductions.sum(a, axis=(-2, -1), dtype=dtype)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    return _trace(a, operator.index(offset), operator.index(axis1), operator.index(axis2),
                  None if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype))


@jit_like_jax("diagonal", static_argnames=("offset", "axis1", "axis2"))
def _diagonal(a, offset=0, axis1=0, axis2=1):
    nd = np.ndim(a)
    a1, a2 = canonicalize_axis(axis1, nd), canonicalize_axis(axis2, nd)
    if a1 == a2:
        raise ValueError("axis1 and axis2 must not be equal")
    a = moveaxis(a, (a1, a2), (-2, -1))
    n, m = np.shape(a)[-2:]
    length = builtins.max(0, builtins.min(n + builtins.min(offset, 0),
                                          m - builtins.max(offset, 0)))
    r0, c0 = builtins.max(-offset, 0), builtins.max(offset, 0)
    flat = reshape(a, (*np.shape(a)[:-2], n * m))
    if length == 0:
        return shapes.slice_in_dim(flat, 0, 0, axis=-1)
    start = r0 * m + c0
    stop = start + (length - 1) * (m + 1) + 1
    return shapes.slice_in_dim(flat, start, stop, stride=m + 1, axis=-1)


def diagonal(a, offset=0, axis1=0, axis2=1):
    a = ensure_arraylike("diagonal", a)
    if np.ndim(a) < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    return _diagonal(a, operator.index(offset), operator.index(axis1), operator.index(axis2))


@jit_like_jax("_diag", static_argnames=("k",))
def _diag(v, k):
    if np.ndim(v) == 1:
        n = np.shape(v)[0] + builtins.abs(k)
        v = shapes.pad(v, np.zeros((), dtype_of(v)), ((0, builtins.abs(k), 0),))
        # entry (r, r + k) holds v[r] for k >= 0 (constant along rows), v[c] otherwise
        values = shapes.broadcast_in_dim(v, (n, n), (0 if k >= 0 else 1,))
        return where3(_offset_mask(n, n, k, lax.eq), values, full((n, n), 0, dtype_of(v)))
    if np.ndim(v) == 2:
        return diagonal(v, offset=k)
    raise ValueError("diag input must be 1d or 2d")


def diag(v, k=0):
    v = ensure_arraylike("diag", v)
    return _diag(v, operator.index(k))


def diagflat(v, k=0):
    v = ensure_arraylike("diagflat", v)
    return diag(ravel(v), k)


@jit_like_jax("tril", static_argnames=("k",))
def _tril(m, k):
    n, c = np.shape(m)[-2:]
    mask = _offset_mask(n, c, k, lax.ge)
    return lax.select(broadcast_to(mask, np.shape(m)), m, full_like(m, 0))


@jit_like_jax("triu", static_argnames=("k",))
def _triu(m, k):
    n, c = np.shape(m)[-2:]
    mask = _offset_mask(n, c, k - 1, lax.ge)
    return lax.select(broadcast_to(mask, np.shape(m)), full_like(m, 0), m)


def _tri_arg(name, m):
    m = ensure_arraylike(name, m)
    if np.ndim(m) < 2:
        raise ValueError(f"{name} requires an array of at least two dimensions")
    return m


def tril(m, k=0):
    return _tril(_tri_arg("tril", m), operator.index(k))


def triu(m, k=0):
    return _triu(_tri_arg("triu", m), operator.index(k))
