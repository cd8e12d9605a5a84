"""lax-level gather / scatter / bitcast_convert_type against real JAX: values in every
out-of-bounds mode (eager and under jit), shape-rule errors (class and message), jaxpr
text, JVP/VJP/grad (also against finite differences), vmap with batched operand, indices
and updates, batching dimensions, and the helpers built on gather/scatter
(take_along_axis for sort's JVP, dynamic_slice / dynamic_update_slice with batched starts).
"""

from __future__ import annotations

import didax
import didax.lax as dlax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax as jlax

MODES = ["clip", "fill", "promise_in_bounds"]
SCATTERS = ["scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
            "scatter_max"]


def close(a, b, rtol=1e-6, atol=1e-6):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def both(name_or_fn, *args, **kw):
    """Runs lax.<name>(*args) (or fn(lax)(*args)) under didax and under JAX."""
    if isinstance(name_or_fn, str):
        return (getattr(dlax, name_or_fn)(*args, **kw), getattr(jlax, name_or_fn)(*args, **kw))
    return name_or_fn(dlax)(*args), name_or_fn(jlax)(*args)


# (operand shape, indices, dnums fields, slice_sizes) for gathers; the matching scatter
# uses the transposed dimension numbers.
GATHERS = [
    ((10,), [[-2], [0], [7], [8], [12]], ((1,), (), (0,)), (3,)),
    ((3, 4), [[0], [2], [2]], ((1,), (0,), (0,)), (1, 4)),
    ((3, 4), [[0, 1], [2, 3], [5, -1]], ((), (0, 1), (0, 1)), (1, 1)),
    ((3, 4, 5), [[[0, 1]], [[2, 0]]], ((2, 3), (0,), (0, 2)), (1, 2, 3)),
    ((3, 4), [[[1], [3]], [[0], [0]], [[2], [5]]], ((), (1,), (1,), (0,), (0,)), (1, 1)),
    ((2, 3, 4), [[[1], [2]], [[0], [3]]], ((2,), (1,), (2,), (0,), (0,)), (1, 1, 2)),
]


def _gdn(mod, f):
    return mod.GatherDimensionNumbers(*f)


def _sdn(mod, f):
    full = tuple(f) + ((),) * (5 - len(f))
    return mod.ScatterDimensionNumbers(*full)


def _case(k, dtype=np.float32):
    shape, idx, dn, sizes = GATHERS[k]
    x = (np.arange(np.prod(shape)).reshape(shape) * 1.5 - 7).astype(dtype)
    return x, np.asarray(idx, np.int32), dn, sizes


def _updates(x, idx, dn, sizes, mod):
    out_shape = jlax.gather(x, idx, _gdn(jlax, dn), sizes, mode="clip").shape
    rng = np.random.RandomState(0)
    return (rng.randn(*out_shape) * 4).astype(x.dtype)


@pytest.mark.parametrize("k", range(len(GATHERS)))
@pytest.mark.parametrize("mode", MODES)
def test_gather_values(k, mode):
    x, idx, dn, sizes = _case(k)
    a = dlax.gather(x, idx, _gdn(dlax, dn), sizes, mode=mode)
    b = jlax.gather(x, idx, _gdn(jlax, dn), sizes, mode=mode)
    close(a, b)
    close(didax.jit(lambda x, i: dlax.gather(x, i, _gdn(dlax, dn), sizes, mode=mode))(x, idx),
          b)


@pytest.mark.parametrize("k", range(len(GATHERS)))
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", SCATTERS)
def test_scatter_values(k, mode, name):
    x, idx, dn, sizes = _case(k)
    if name == "scatter" and k in (0, 1):
        idx = idx[:1] if k == 0 else idx[:2]  # overlapping set-scatters are unordered
    u = _updates(x, idx, dn, sizes, jlax)
    b = getattr(jlax, name)(x, idx, u, _sdn(jlax, _to_scatter(dn)), mode=mode)
    a = getattr(dlax, name)(x, idx, u, _sdn(dlax, _to_scatter(dn)), mode=mode)
    close(a, b, rtol=1e-5)
    jitted = didax.jit(lambda x, i, u: getattr(dlax, name)(x, i, u, _sdn(dlax, _to_scatter(dn)),
                                                          mode=mode))
    close(jitted(x, idx, u), b, rtol=1e-5)


def _to_scatter(dn):
    return dn  # GatherDimensionNumbers fields map one-to-one onto ScatterDimensionNumbers


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_, np.float16])
def test_gather_fill_defaults_per_dtype(dtype):
    x = (np.arange(6) % 2).astype(dtype)
    idx = np.array([[1], [9]], np.int32)
    a = dlax.gather(x, idx, dlax.GatherDimensionNumbers((), (0,), (0,)), (1,), mode="fill")
    b = jlax.gather(x, idx, jlax.GatherDimensionNumbers((), (0,), (0,)), (1,), mode="fill")
    close(a, b)


def test_scatter_apply_repeats():
    x = np.arange(5.0, dtype=np.float32)
    idx = np.array([[1], [1], [3]], np.int32)
    dn = ((), (0,), (0,))
    a = dlax.scatter_apply(x, idx, lambda v: v * 2 + 1, _sdn(dlax, dn), update_shape=(3,))
    b = jlax.scatter_apply(x, idx, lambda v: v * 2 + 1, _sdn(jlax, dn), update_shape=(3,))
    close(a, b)
    close(didax.jit(lambda x: dlax.scatter_apply(x, idx, lambda v: v * 2 + 1,
                                                 _sdn(dlax, dn), update_shape=(3,)))(x), b)


# ----------------------------------------------------------------------------------------
# Shape-rule errors
# ----------------------------------------------------------------------------------------

GATHER_ERRORS = [
    ((3, 4), (2, 1), ((2,), (0,), (0,)), (1, 4)),  # offset dim out of bounds
    ((3, 4), (2, 2), ((1,), (0,), (0,)), (1, 4)),  # start_index_map length
    ((3, 4), (2, 1), ((1,), (0,), (5,)), (1, 4)),  # start_index_map out of range
    ((3, 4), (2, 1), ((1,), (1, 0), (0,)), (1, 1)),  # collapsed not sorted
    ((3, 4), (2, 1), ((1,), (0,), (0,)), (1,)),  # slice_sizes length
    ((3, 4), (2, 1), ((1,), (0,), (0,)), (1, 5)),  # slice size too big
    ((3, 4), (2, 1), ((1,), (0,), (0,)), (2, 4)),  # collapsed bound != 1
    ((3, 4), (2, 1), ((1,), (), (0,)), (1, 4)),  # offset dims vs slice rank
    ((3, 4), (3, 2, 1), ((), (1,), (1,), (0,), (1,)), (1, 1)),  # batch shapes differ
    ((3, 4), (3, 2, 1), ((), (1,), (1,), (0,), (2,)), (1, 1)),  # index vector batched
]


@pytest.mark.parametrize("case", GATHER_ERRORS)
def test_gather_shape_errors(case):
    shape, ishape, dn, sizes = case
    x, idx = np.zeros(shape, np.float32), np.zeros(ishape, np.int32)
    with pytest.raises(TypeError) as jerr:
        jlax.gather(x, idx, jlax.GatherDimensionNumbers(*dn), sizes)
    with pytest.raises(TypeError) as derr:
        dlax.gather(x, idx, dlax.GatherDimensionNumbers(*dn), sizes)
    assert str(derr.value) == str(jerr.value)


SCATTER_ERRORS = [
    ((3, 4), (2, 1), (2, 5), ((1,), (0,), (0,))),  # window bigger than operand
    ((3, 4), (2, 1), (3, 4), ((1,), (0,), (0,))),  # scatter dim bound
    ((3, 4), (2, 1), (2,), ((1,), (0,), (0,))),  # updates rank
    ((3, 4), (2, 1), (2, 4), ((1,), (), (0,))),  # window size vs operand rank
    ((3, 4), (2, 2), (2, 4), ((1,), (0,), (0,))),  # scatter_dims_to_operand_dims length
]


@pytest.mark.parametrize("case", SCATTER_ERRORS)
def test_scatter_shape_errors(case):
    shape, ishape, ushape, dn = case
    x, i, u = np.zeros(shape, np.float32), np.zeros(ishape, np.int32), np.zeros(ushape,
                                                                                np.float32)
    with pytest.raises(TypeError) as jerr:
        jlax.scatter_add(x, i, u, _sdn(jlax, dn))
    with pytest.raises(TypeError) as derr:
        dlax.scatter_add(x, i, u, _sdn(dlax, dn))
    assert str(derr.value) == str(jerr.value)


def test_dtype_errors():
    x, dn = np.zeros(3, np.float32), ((), (0,), (0,))
    for mod in (jlax, dlax):
        with pytest.raises(ValueError, match="indices must have an integer type"):
            mod.gather(x, np.zeros((1, 1), np.float32), _gdn(mod, dn), (1,))
        with pytest.raises(TypeError, match="lax.scatter requires arguments to have the same"):
            mod.scatter_add(x, np.zeros((1, 1), np.int32), np.zeros(1, np.int32),
                            _sdn(mod, dn))
    with pytest.raises(ValueError, match='Unknown gather mode "bogus"'):
        dlax.gather(x, np.zeros((1, 1), np.int32), _gdn(dlax, dn), (1,), mode="bogus")


# ----------------------------------------------------------------------------------------
# Jaxpr text
# ----------------------------------------------------------------------------------------


def _jaxprs(build, *args):
    return str(didax.make_jaxpr(build(dlax))(*args)), str(jax.make_jaxpr(build(jlax))(*args))


@pytest.mark.parametrize("mode", MODES)
def test_gather_jaxpr_text(mode):
    x, idx, dn, sizes = _case(4)
    a, b = _jaxprs(lambda m: lambda x, i: m.gather(x, i, _gdn(m, dn), sizes, mode=mode),
                   x, idx)
    assert a == b


@pytest.mark.parametrize("name", SCATTERS)
def test_scatter_jaxpr_text(name):
    x, idx, dn, sizes = _case(1)
    u = _updates(x, idx, dn, sizes, jlax)
    a, b = _jaxprs(lambda m: lambda x, i, u: getattr(m, name)(x, i, u, _sdn(m, dn),
                                                              indices_are_sorted=True),
                   x, idx, u)
    assert a == b


def test_gather_grad_jaxpr_text():
    x, idx, dn, sizes = _case(1)

    def build(m):
        g = jax.grad if m is jlax else didax.grad
        return lambda x: g(lambda x: m.gather(x, idx, _gdn(m, dn), sizes).sum())(x)
    a = str(didax.make_jaxpr(build(dlax))(x))
    b = str(jax.make_jaxpr(build(jlax))(x))
    assert a == b


# ----------------------------------------------------------------------------------------
# Differentiation
# ----------------------------------------------------------------------------------------


def _fd_check(f, x, eps=1e-6, rtol=1e-5):
    """didax's grad of a scalar f against central differences, in float64."""
    with didax.enable_x64(True):
        x64 = np.asarray(x, np.float64)
        g = np.asarray(didax.grad(f)(x64))
        num = np.zeros_like(x64)
        for k in np.ndindex(x64.shape):
            e = np.zeros_like(x64)
            e[k] = eps
            num[k] = (float(f(x64 + e)) - float(f(x64 - e))) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("k", range(len(GATHERS)))
@pytest.mark.parametrize("mode", MODES)
def test_gather_grad(k, mode):
    x, idx, dn, sizes = _case(k)

    def f(m):
        return lambda x: (m.gather(x, idx, _gdn(m, dn), sizes, mode=mode,
                                   fill_value=0.0) ** 2).sum()
    close(didax.grad(f(dlax))(x), jax.grad(f(jlax))(x), rtol=1e-5)
    if mode != "promise_in_bounds":  # out-of-bound promises make gradients undefined
        _fd_check(f(dlax), x)


@pytest.mark.parametrize("name", SCATTERS)
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_scatter_grad(name, argnums):
    x, idx, dn, sizes = _case(1)
    u = _updates(x, idx, dn, sizes, jlax) + 3
    unique = name in ("scatter", "scatter_mul")
    if unique:
        idx = np.array([[0], [2]], np.int32)
        u = u[:2]

    def f(m):
        return lambda x, u: (getattr(m, name)(x, idx, u, _sdn(m, dn), unique_indices=unique)
                             ** 2).sum()
    a = didax.grad(f(dlax), argnums)(x, u)
    b = jax.grad(f(jlax), argnums)(x, u)
    for p, q in zip(a if isinstance(argnums, tuple) else [a],
                    b if isinstance(argnums, tuple) else [b]):
        close(p, q, rtol=1e-5)
    _fd_check(lambda x: f(dlax)(x, u.astype(np.float64)), x)


@pytest.mark.parametrize("name", ["scatter", "scatter_min", "scatter_max", "scatter_add"])
def test_scatter_jvp_overlapping(name):
    """Repeated indices: set picks one winner; min/max average the tied tangents."""
    x = np.array([1.0, 5.0, 2.0, 7.0], np.float32)
    idx = np.array([[1], [1], [3], [0]], np.int32)
    u = np.array([5.0, 3.0, 9.0, 1.0], np.float32)
    dn = ((), (0,), (0,))
    tx, tu = np.arange(4, dtype=np.float32) + 1, np.arange(4, dtype=np.float32) * 10 + 1

    def f(m):
        return lambda x, u: getattr(m, name)(x, idx, u, _sdn(m, dn))
    pa, ta = didax.jvp(f(dlax), (x, u), (tx, tu))
    pb, tb = jax.jvp(f(jlax), (x, u), (tx, tu))
    close(pa, pb)
    close(ta, tb)


def test_scatter_mul_nonunique_grad_error():
    x, idx, dn, sizes = _case(1)
    u = _updates(x, idx, dn, sizes, jlax)
    for mod, grad in ((jlax, jax.grad), (dlax, didax.grad)):
        with pytest.raises(NotImplementedError, match="scatter_mul gradients"):
            grad(lambda u, mod=mod: mod.scatter_mul(x, idx, u, _sdn(mod, dn)).sum())(u)


# ----------------------------------------------------------------------------------------
# Batching
# ----------------------------------------------------------------------------------------

AXES3 = [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0), (None, 0, 0),
         (0, None, 0), (1, None, None)]


@pytest.mark.parametrize("axes", [(0, None), (None, 0), (0, 0), (1, 1)])
@pytest.mark.parametrize("mode", MODES)
def test_gather_vmap(axes, mode):
    x, idx, dn, sizes = _case(1)
    xb = np.stack([x, x * 2, x - 1], axes[0] or 0)
    ib = np.stack([idx, idx[::-1], (idx + 1) % 3], axes[1] or 0)
    args = (xb if axes[0] is not None else x, ib if axes[1] is not None else idx)

    def f(m):
        return lambda x, i: m.gather(x, i, _gdn(m, dn), sizes, mode=mode)
    close(didax.vmap(f(dlax), axes)(*args), jax.vmap(f(jlax), axes)(*args))


@pytest.mark.parametrize("axes", AXES3)
@pytest.mark.parametrize("name", SCATTERS)
def test_scatter_vmap(axes, name):
    x, idx, dn, sizes = _case(1)
    u = _updates(x, idx, dn, sizes, jlax)
    if name == "scatter":
        idx, u = idx[:2], u[:2]
    stacks = [np.stack([v, v * 2 % 3 if v.dtype.kind == "i" else v * 2, v + 1 if
                        v.dtype.kind != "i" else v[::-1]], 0) for v in (x, idx, u)]
    args = [np.moveaxis(s, 0, a) if a is not None else v
            for s, v, a in zip(stacks, (x, idx, u), axes)]

    def f(m):
        return lambda x, i, u: getattr(m, name)(x, i, u, _sdn(m, dn))
    close(didax.vmap(f(dlax), axes)(*args), jax.vmap(f(jlax), axes)(*args), rtol=1e-5)


def test_dynamic_slice_batched_starts():
    x = np.arange(20.0, dtype=np.float32).reshape(4, 5)
    i = np.array([0, 3, 9, -1], np.int32)
    j = np.array([1, 2, -7, 4], np.int32)
    for axes in [(None, 0, 0), (0, 0, None), (1, None, 0)]:
        args = [x if axes[0] is None else np.stack([x, x + 1, x * 2, -x], axes[0]),
                i if axes[1] is not None else 1, j if axes[2] is not None else 2]

        def f(m):
            return lambda x, i, j: m.dynamic_slice(x, (i, j), (2, 3))
        close(didax.vmap(f(dlax), axes)(*args), jax.vmap(f(jlax), axes)(*args))

        def g(m):
            return lambda x, i, j: m.dynamic_update_slice(x, np.ones((2, 2), np.float32),
                                                         (i, j))
        close(didax.vmap(g(dlax), axes)(*args), jax.vmap(g(jlax), axes)(*args))


# ----------------------------------------------------------------------------------------
# Helpers built on gather
# ----------------------------------------------------------------------------------------


def test_sort_jvp_uses_take_along_axis():
    x = np.random.RandomState(0).randn(3, 5).astype(np.float32)
    t = np.arange(15, dtype=np.float32).reshape(3, 5)
    for dim in (0, 1):
        pa, ta = didax.jvp(lambda x, dim=dim: dlax.sort(x, dimension=dim), (x,), (t,))
        pb, tb = jax.jvp(lambda x, dim=dim: jlax.sort(x, dimension=dim), (x,), (t,))
        close(pa, pb)
        close(ta, tb)
    close(didax.jit(didax.grad(lambda x: dlax.sort(x, dimension=1)[:, 0].sum()))(x),
          jax.grad(lambda x: jlax.sort(x, dimension=1)[:, 0].sum())(x))


# ----------------------------------------------------------------------------------------
# bitcast_convert_type
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.float32, np.uint8),
                                     (np.int32, np.float32), (np.uint8, np.float32),
                                     (np.float16, np.uint16), (np.int16, np.int8)])
def test_bitcast_convert_type(src, dst):
    rng = np.random.RandomState(1)
    x = (rng.randn(2, 4) * 100).astype(src)
    if np.dtype(dst).itemsize > np.dtype(src).itemsize:
        x = np.ascontiguousarray(x[:, : np.dtype(dst).itemsize // np.dtype(src).itemsize])
    a, b = both("bitcast_convert_type", x, dst)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.asarray(didax.jit(
        lambda x: dlax.bitcast_convert_type(x, dst))(x)), np.asarray(b))
    for ax in (0,) if np.dtype(dst).itemsize > np.dtype(src).itemsize else (0, 1):
        np.testing.assert_array_equal(
            np.asarray(didax.vmap(lambda x: dlax.bitcast_convert_type(x, dst), ax)(x)),
            np.asarray(jax.vmap(lambda x: jlax.bitcast_convert_type(x, dst), ax)(x)))
    a, b = _jaxprs(lambda m: lambda x: m.bitcast_convert_type(x, dst), x)
    assert a == b


def test_bitcast_errors_and_zero_derivative():
    for bad in [(np.ones(3, np.float32), np.bool_), (np.ones(3, np.uint8), np.float32),
                (np.ones(2, np.complex64), np.float32)]:
        with pytest.raises(Exception) as jerr:
            jlax.bitcast_convert_type(*bad)
        with pytest.raises(type(jerr.value)) as derr:
            dlax.bitcast_convert_type(*bad)
        assert str(derr.value) == str(jerr.value)
    g = didax.grad(lambda x: dlax.bitcast_convert_type(x, np.int32).astype(np.float32).sum()
                   + x.sum())(np.ones(3, np.float32))
    close(g, np.ones(3, np.float32))
    close(dnp.signbit(np.array([-0.0, 1.0, -2.0], np.float32)),
          jnp.signbit(np.array([-0.0, 1.0, -2.0], np.float32)))
