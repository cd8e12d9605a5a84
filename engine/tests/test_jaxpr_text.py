"""`str(make_jaxpr(f)(*args))` is character-for-character JAX 0.10's text for lax-level
programs: the one-line short form, typed literals, parameters, nested jaxprs, pytree
inputs and outputs, constvars, `_` for dropped outputs, and the jaxprs JVP, VJP, grad,
vmap, linearize and the Jacobians derive from lax programs. Also: every equation records
the user's source location (file, line, function) as JAX does.
"""

from __future__ import annotations

import os

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from didax import lax as dlax
from jax import lax as jlax
from jax._src import source_info_util
from oracle import x64_mode

x3 = np.arange(3, dtype=np.float32)
m23 = np.arange(6, dtype=np.float32).reshape(2, 3)
m234 = np.ones((2, 3, 4), np.float32)
i3 = np.arange(3, dtype=np.int32)
s = np.float32(0.7)

PROGRAMS: dict[str, tuple] = {}


def program(name, *args, x64=False, xfail=None):
    """Registers build(top, jnp, lax) -> function, traced at args."""
    def deco(build):
        marks = [pytest.mark.xfail(reason=xfail, strict=True)] if xfail else []
        PROGRAMS[name] = pytest.param(build, args, x64, id=name, marks=marks)
        return build
    return deco


# --- first-order lax programs
program("one_line", x3)(lambda top, np_, l: lambda x: l.mul(l.sin(x), 2.0))
program("multi_line", x3)(lambda top, np_, l: lambda x: l.add(
    l.exp(l.sin(l.cos(x))), l.log(l.add(x, 1.0))))
program("scalar_in", s)(lambda top, np_, l: lambda x: l.add(l.sin(x), l.cos(x)))
program("python_scalar_in", 3.0)(lambda top, np_, l: lambda x: l.add(l.mul(x, 2.0), 1.0))
program("typed_literals", x3, i3)(lambda top, np_, l: lambda x, i: (
    l.add(x, np.float32(2.5)), l.mul(i, 3), l.lt(x, 0.5), x + 1, i * 2, x ** 2, x ** 0.5,
    l.ne(i, np.int32(-1)), l.bitwise_and(l.lt(x, 1.0), True)))
program("jnp_reductions", m23)(lambda top, np_, l: lambda x: np_.sum(x, axis=0)
                               + np_.mean(x) - np_.max(x, axis=1, keepdims=True).T[0, :2].sum())
program("shape_params", m23)(lambda top, np_, l: lambda x: (
    l.reduce_sum(x, (1,)), l.broadcast_in_dim(x, (4, 2, 3), (1, 2)), l.transpose(x, (1, 0)),
    l.reshape(x, (3, 2)), l.slice(x, (0, 1), (2, 3)), l.slice_in_dim(x, 0, 2, axis=1),
    l.pad(x, np.float32(0), ((1, 0, 0), (0, 1, 1))), l.concatenate([x, x], 0),
    l.rev(x, (0,)), l.squeeze(x[:1], (0,)), l.expand_dims(x, (0,)), l.split(x, (1, 2), 1)))
program("more_params", m23, i3)(lambda top, np_, l: lambda x, i: (
    l.convert_element_type(x, np.int32), l.select_n(l.lt(x, 0.5), x, x), l.iota(np.int32, 4),
    l.argmax(x, 1, np.int32), l.cumsum(x, 1), l.cumsum(x, 1, reverse=True),
    l.sort(x, dimension=0), l.integer_pow(x, 3), l.dynamic_slice(x, (i[0], 1), (1, 2)),
    l.dot_general(x, x, (((1,), (1,)), ((), ()))),
    l.dot_general(x, x.T, (((1,), (0,)), ((), ())), preferred_element_type=np.float32),
    l.clamp(0.0, x, 1.0), l.reduce_max(x, (0, 1)), l.round(x), l.exp2(x), l.rsqrt(x),
    l.reduce_precision(x, 5, 10), l.stop_gradient(x), l.sort((x, x), num_keys=1)))
program("pytree_in_out", {"b": (m23, i3), "a": x3})(lambda top, np_, l: lambda d: {
    "s": l.add(d["a"], d["a"]), "t": [d["b"][0], l.neg(d["b"][1])], "u": (d["a"],)})
program("constvar", x3)(lambda top, np_, l: lambda x: l.add(
    x, np.arange(3, dtype=np.float32) * 7))
program("unused_input", x3, x3)(lambda top, np_, l: lambda x, y: l.sin(x))
program("no_equations", x3)(lambda top, np_, l: lambda x: (x, x))
program("dropvar_multi_output", x3)(lambda top, np_, l: lambda x: l.sort(
    (x, x, x), num_keys=1)[1])
program("indexing", m23, i3)(lambda top, np_, l: lambda x, i: (
    x[0], x[:, 1:], x[i[:2], 0], x[::-1], x.at[0, 1].set(5.0)))
program("where_clip", m23)(lambda top, np_, l: lambda x: np_.where(
    x > 0.5, np_.clip(x, 0, 1), -x))
program("x64", np.arange(3.0), x64=True)(lambda top, np_, l: lambda x: (
    l.add(x, 1.0), l.convert_element_type(x, np.int64), x * 2))

# --- nested jaxprs (higher-order primitives)
program("jit", x3)(lambda top, np_, l: lambda x: top.jit(lambda y: l.sin(l.mul(y, 2.0)))(x))
program("cond", s)(lambda top, np_, l: lambda x: l.cond(
    l.gt(x, 0.0), lambda v: l.sin(v), lambda v: l.cos(v), x))
program("scan", x3)(lambda top, np_, l: lambda x: l.scan(
    lambda c, v: (l.add(c, v), l.mul(c, v)), np.float32(0), x))
program("while", np.int32(0))(lambda top, np_, l: lambda i: l.while_loop(
    lambda v: l.lt(v, 10), lambda v: l.add(v, 1), i))

# --- derived jaxprs
program("grad", x3)(lambda top, np_, l: top.grad(
    lambda x: l.reduce_sum(l.mul(l.sin(x), l.cos(x)), (0,))))
program("grad_scalar_chain", s)(lambda top, np_, l: top.grad(
    lambda x: l.tanh(l.log(l.mul(x, x)))))
program("grad_jnp_softmax", m23)(lambda top, np_, l: top.grad(
    lambda x: np_.sum(np_.exp(x) / np_.sum(x, axis=1, keepdims=True))))
program("grad_argnums_aux", x3, s)(lambda top, np_, l: top.grad(
    lambda x, y: (l.reduce_sum(l.mul(x, y), (0,)), l.sin(y)), argnums=(0, 1),
    has_aux=True))
program("value_and_grad", x3)(lambda top, np_, l: top.value_and_grad(
    lambda x: l.reduce_sum(l.exp(x), (0,))))
program("grad_of_grad", s)(lambda top, np_, l: top.grad(top.grad(
    lambda x: l.sin(l.mul(x, x)))))
program("jvp", x3, x3)(lambda top, np_, l: lambda x, t: top.jvp(
    lambda x: l.mul(l.sin(x), x), (x,), (t,)))
program("linearize", x3)(lambda top, np_, l: top.linearize(
    lambda x: l.sin(l.mul(x, 3.0)), x3)[1])
program("vjp", x3)(lambda top, np_, l: lambda c: top.vjp(
    lambda x: l.sin(l.mul(x, 3.0)), x3)[1](c))
program("vmap", m23)(lambda top, np_, l: top.vmap(
    lambda r: l.dot_general(r, r, (((0,), (0,)), ((), ())))))
program("vmap_in_axes_none", m23, x3)(lambda top, np_, l: top.vmap(
    lambda r, c: l.add(r, c[0]), in_axes=(1, None)))
program("vmap_out_axes", m23)(lambda top, np_, l: top.vmap(
    lambda r: (l.sin(r), l.reduce_sum(r, (0,))), out_axes=(1, 0)))
program("grad_of_vmap", m23)(lambda top, np_, l: top.grad(lambda x: l.reduce_sum(
    top.vmap(lambda r: l.mul(r, l.reduce_max(r, (0,))))(x), (0, 1))))
program("stop_gradient_grad", x3)(lambda top, np_, l: top.grad(
    lambda x: l.reduce_sum(l.mul(l.stop_gradient(x), x), (0,))))
program("max_grad", x3)(lambda top, np_, l: top.grad(
    lambda x: l.reduce_max(l.max(x, 1.0), (0,))))
program("clamp_abs_grad", x3)(lambda top, np_, l: top.grad(
    lambda x: l.reduce_sum(l.clamp(0.0, l.abs(x), 1.0), (0,))))
program("pow_grad", m23)(lambda top, np_, l: top.grad(
    lambda x: l.reduce_sum(l.pow(l.exp(x), x), (0, 1))))

# vmap / grad / jvp of each structural primitive (batching rules put NumPy integers in
# some parameters, printed np.int64(...): didax's rules must make the same choices)
_S = {
    "reduce_sum": lambda l: lambda x: l.reduce_sum(x, (1,)),
    "reduce_max": lambda l: lambda x: l.reduce_max(x, (0,)),
    "argmax": lambda l: lambda x: l.argmax(x, 1, np.int32),
    "cumsum": lambda l: lambda x: l.cumsum(x, 1),
    "broadcast_in_dim": lambda l: lambda x: l.broadcast_in_dim(x, (5, 2, 4), (1, 2)),
    "transpose": lambda l: lambda x: l.transpose(x, (1, 0)),
    "reshape": lambda l: lambda x: l.reshape(x, (8,)),
    "slice": lambda l: lambda x: l.slice(x, (0, 1), (2, 4), (1, 2)),
    "pad": lambda l: lambda x: l.pad(x, np.float32(0), ((1, 0, 0), (0, 1, 1))),
    "concatenate": lambda l: lambda x: l.concatenate([x, x], 1),
    "rev": lambda l: lambda x: l.rev(x, (1,)),
    "squeeze": lambda l: lambda x: l.squeeze(l.expand_dims(x, (1,)), (1,)),
    "dot_general": lambda l: lambda x: l.dot_general(x, x, (((1,), (1,)), ((), ()))),
    "sort": lambda l: lambda x: l.sort(x, dimension=1),
    "select_n": lambda l: lambda x: l.select_n(l.lt(x, 0.5), x, l.neg(x)),
    "dynamic_slice": lambda l: lambda x: l.dynamic_slice(x, (np.int32(1), np.int32(1)),
                                                         (1, 2)),
    "dynamic_update_slice": lambda l: lambda x: l.dynamic_update_slice(
        x, l.slice(x, (0, 0), (1, 2)), (np.int32(1), np.int32(1))),
    "mul_broadcast": lambda l: lambda x: l.mul(x, l.reduce_sum(x, (0,))[0]),
    "integer_pow": lambda l: lambda x: l.integer_pow(x, 3),
    "div_rem": lambda l: lambda x: l.rem(l.div(x, 3.0), 2.0),
    "atan2": lambda l: lambda x: l.atan2(x, l.add(x, 1.0)),
}
_LOGADDEXP = ("JAX's cumlogsumexp JVP scans with a custom_jvp logaddexp (printed as a "
              "custom_jvp_call); didax's scan combines with lax ops")
_GATHER_INT64 = ("JAX's sort JVP puts NumPy ints in the gather dimension numbers; "
                 "didax's lax.slicing canonicalizes them to Python ints")
m24 = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
_DS_AS_DS = ("didax batches dynamic_slice/dynamic_update_slice with unbatched start "
             "indices as the same primitive (JAX turns every batched one into a gather/"
             "scatter)")
for _name, _f in _S.items():
    # per-example operands are f32[2,4]: batched at axis 1 of f32[2,3,4]
    program(f"vmap_{_name}", m234, xfail=_DS_AS_DS if _name.startswith("dynamic") else None)(
        lambda top, np_, l, _f=_f: top.vmap(_f(l), in_axes=1))
    program(f"grad_{_name}", m24, xfail=_GATHER_INT64 if _name == "sort" else None)(
        lambda top, np_, l, _f=_f: top.grad(lambda x: l.reduce_sum(
            l.convert_element_type(_f(l)(x), np.float32), tuple(range(np.ndim(_f(l)(x)))))))
    program(f"jvp_{_name}", m24, m24, xfail=_GATHER_INT64 if _name == "sort" else None)(
        lambda top, np_, l, _f=_f: lambda x, t: top.jvp(_f(l), (x,), (t,)))
_JVP_FORMULAS = {
    "cumprod": lambda l: lambda x: l.reduce_sum(l.cumprod(x, 1), (0, 1)),
    "cummax": lambda l: lambda x: l.reduce_sum(l.cummax(x, 1), (0, 1)),
    "cumlogsumexp": lambda l: lambda x: l.reduce_sum(l.cumlogsumexp(x, 1), (0, 1)),
    "reduce_prod": lambda l: lambda x: l.reduce_sum(l.reduce_prod(x, (1,)), (0,)),
}
for _name, _f in _JVP_FORMULAS.items():
    program(f"grad_{_name}", m24, xfail=_LOGADDEXP if _name == "cumlogsumexp" else None)(
        lambda top, np_, l, _f=_f: top.grad(_f(l)))
program("jacfwd", x3)(lambda top, np_, l: top.jacfwd(lambda x: l.mul(x, x)))
program("jacrev", x3)(lambda top, np_, l: top.jacrev(lambda x: l.sin(x)))
program("hessian", x3)(lambda top, np_, l: top.hessian(lambda x: l.reduce_sum(
    l.exp(x), (0,))))


def _text(top, np_, l, build, args):
    return str(top.make_jaxpr(build(top, np_, l))(*args))


@pytest.mark.parametrize("build,args,x64", list(PROGRAMS.values()))
def test_jaxpr_text_matches_jax(build, args, x64):
    with x64_mode(x64):
        want = _text(jax, jnp, jlax, build, args)
        got = _text(didax, dnp, dlax, build, args)
    assert got == want, f"\n--- didax\n{got}\n--- JAX\n{want}"


def test_short_form_is_one_line():
    text = str(didax.make_jaxpr(lambda x: dlax.neg(x))(x3))
    assert text == "{ lambda ; a:f32[3]. let b:f32[3] = neg a in (b,) }"


def test_make_jaxpr_return_shape_and_static_argnums():
    def f(x, n):
        return dlax.integer_pow(x, n)
    closed, shape = didax.make_jaxpr(f, static_argnums=1, return_shape=True)(x3, 3)
    j_closed, j_shape = jax.make_jaxpr(
        lambda x, n: jlax.integer_pow(x, n), static_argnums=1, return_shape=True)(x3, 3)
    assert str(closed) == str(j_closed)
    assert (shape.shape, shape.dtype, shape.weak_type) == (
        j_shape.shape, j_shape.dtype, j_shape.weak_type)


# ----------------------------------------------------------------------------------------
# source locations
# ----------------------------------------------------------------------------------------


def user_program(np_, l):
    def f(x):
        y = l.sin(x)
        z = np_.sum(y * 2.0)
        w = (lambda v: l.exp(v))(z)
        return w
    return f


def _didax_locations(closed):
    return [(e.primitive.name, os.path.basename(e.source_info.file), e.source_info.line,
             e.source_info.function) for e in closed.jaxpr.eqns]


def _jax_locations(closed):
    out = []
    for e in closed.jaxpr.eqns:
        frame = source_info_util.user_frame(e.source_info.traceback)
        out.append((e.primitive.name, os.path.basename(frame.file_name), frame.start_line,
                    frame.function_name))
    return out


@pytest.mark.parametrize("transform", ["none", "grad", "jvp", "vmap"])
def test_equations_record_user_source_lines(transform):
    def wrap(top, f):
        if transform == "grad":
            return top.grad(f)
        if transform == "jvp":
            return lambda x: top.jvp(f, (x,), (x,))
        if transform == "vmap":
            return top.vmap(f)
        return f
    x = m23 if transform == "vmap" else x3
    got = _didax_locations(didax.make_jaxpr(wrap(didax, user_program(dnp, dlax)))(x))
    want = _jax_locations(jax.make_jaxpr(wrap(jax, user_program(jnp, jlax)))(x))
    assert got == want
    assert all(loc[1] == os.path.basename(__file__) for loc in got)
