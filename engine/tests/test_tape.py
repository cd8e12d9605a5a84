"""The eager reverse-mode tape (interpreters/tape.py) against JAX and against didax's own
linearize + transpose path (ad.vjp_flat): which pullback kind each recorded operation gets
("each", "joint", "pointwise", "linearized"), gradients (values, dtypes, weak types,
shapes) of common programs, higher order and composition with jit/vmap, pullback
semantics, effects running once, and leaked tracers.

Each `same(call)` runs call(top, jnp, lax) with didax's modules and with JAX's.
"""

from __future__ import annotations

import contextlib
import io

import didax
import didax.numpy as dnp
import jax
import numpy as np
import pytest
from didax._src import core
from didax._src.interpreters import ad, tape
from oracle import assert_same_error, assert_tree_matches, bfloat16, raised, same, x64_mode

F32 = np.float32
x3 = np.array([0.5, -1.25, 2.0], F32)
y3 = np.array([1.5, 0.75, -0.5], F32)
m23 = (np.arange(6, dtype=F32).reshape(2, 3) - 2) / 4
z3 = np.array([0.5 + 1j, -1.0 + 0.25j, 2.0 - 0.5j], np.complex64)

# ----------------------------------------------------------------------------------------
# 1. the pullback kind of each recorded node
# ----------------------------------------------------------------------------------------


def record(f, *args):
    """tape.vjp_flat(f) on args: ([(kind, primitive name or None)], outs, pullback)."""
    cell = {}

    def flat(*a):
        cell["trace"] = core.trace_ctx.trace
        return [f(*a)]
    outs, pull = tape.vjp_flat(flat, list(args))
    assert type(cell["trace"]) is tape.TapeTrace
    nodes = [(n[0], getattr(n[1], "name", None) if n[0] != "linearized" else None)
             for n in cell["trace"].nodes]
    return nodes, outs, pull


def assert_same_didax(got, want):
    """Two didax results agree: shapes, dtypes, weak types and values."""
    for g, w in zip(got, want, strict=True):
        ga, wa = core.get_aval(g), core.get_aval(w)
        assert (ga.shape, ga.dtype, ga.weak_type) == (wa.shape, wa.dtype, wa.weak_type)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def both_raise(call):
    """call(top, jnp, lax) raises an error of the same class under didax and JAX."""
    e_j = raised(call, jax, jax.numpy, jax.lax)
    assert e_j is not None, "JAX did not raise"
    e_d = raised(call, didax, dnp, didax.lax)
    assert e_d is not None, f"didax did not raise; JAX raised {type(e_j).__name__}: {e_j}"
    assert_same_error(e_d, e_j, "class")


def ct_like(out):
    a = np.asarray(out)
    if not np.issubdtype(a.dtype, np.inexact):
        return np.zeros(a.shape, jax.dtypes.float0)
    return ((np.arange(a.size) % 5 + 1) / 4).reshape(a.shape).astype(a.dtype)


def custom_jvp_fn(top, jnp):
    @top.custom_jvp
    def f(a):
        return jnp.sin(a)
    f.defjvp(lambda p, t: (f(p[0]), 3.0 * jnp.cos(p[0]) * t[0]))
    return f


def custom_vjp_fn(top, jnp, calls=None):
    """sin with a deliberately wrong bwd (factor 7) that logs its calls."""
    f = top.custom_vjp(jnp.sin)
    f.defvjp(lambda a: (jnp.sin(a), jnp.cos(a)),
             lambda res, g: (calls is None or calls.append(1), 7.0 * res * g)[1:])
    return f


# name: (builder(top, jnp, lax) -> f, args, expected [(kind, primitive name)])
EACH, JOINT, PW, LIN, PULL = "each", "joint", "pointwise", "linearized", "pullback"
REC = "recorded"  # a custom JVP rule recorded on a tape of its own
KINDS = {
    "mul": (lambda t, n, l: l.mul, (x3, y3), [(EACH, "mul")]),
    "mul_scalar": (lambda t, n, l: l.mul, (x3, F32(2.0)), [(EACH, "mul")]),
    "dot": (lambda t, n, l: n.dot, (m23, x3), [(EACH, "dot_general")]),
    "dot_const": (lambda t, n, l: lambda a: n.dot(m23, a), (x3,), [(EACH, "dot_general")]),
    "add": (lambda t, n, l: l.add, (x3, y3), [(JOINT, "add")]),
    "sum": (lambda t, n, l: n.sum, (m23,), [(JOINT, "reduce_sum")]),
    "broadcast": (lambda t, n, l: lambda a: n.broadcast_to(a, (2, 3)), (x3,),
                  [(JOINT, "broadcast_in_dim")]),
    "select": (lambda t, n, l: lambda a, b: l.select(x3 > 0, a, b), (x3, y3),
               [(JOINT, "select_n")]),
    "convert": (lambda t, n, l: lambda a: a.astype(np.float16), (x3,),
                [(JOINT, "convert_element_type")]),
    "to_int": (lambda t, n, l: lambda a: a.astype(np.int32), (x3,), []),
    "floor": (lambda t, n, l: n.floor, (x3,), []),
    "tanh": (lambda t, n, l: n.tanh, (x3,), [(PW, "tanh")]),
    "exp": (lambda t, n, l: n.exp, (x3,), [(PW, "exp")]),
    "log": (lambda t, n, l: n.log, (y3 * y3,), [(PW, "log")]),
    "sin": (lambda t, n, l: n.sin, (x3,), [(PW, "sin")]),
    "div": (lambda t, n, l: l.div, (x3, y3), [(PW, "div")]),
    "div_const": (lambda t, n, l: lambda a: l.div(a, y3), (x3,), [(PW, "div")]),
    "complex_sin": (lambda t, n, l: n.sin, (z3,), [(LIN, None)]),
    "complex_abs": (lambda t, n, l: n.abs, (z3,), [(LIN, None)]),
    "complex_mul": (lambda t, n, l: l.mul, (z3, z3[::-1]), [(EACH, "mul")]),
    "div_by_scalar": (lambda t, n, l: l.div, (x3, F32(2.0)), [(LIN, None)]),
    "reduce_max": (lambda t, n, l: n.max, (x3,), [(PULL, "reduce_max")]),
    "reduce_min_ties": (lambda t, n, l: lambda a: n.min(a, axis=1), (m23.round(),),
                        [(PULL, "reduce_min")]),
    "max_pool": (lambda t, n, l: lambda a: l.reduce_window(
        a, -np.inf, l.max, (2, 2), (1, 2), ((0, 1), (0, 0))), (m23.round(),),
        [(PULL, "reduce_window_max")]),
    "min_pool": (lambda t, n, l: lambda a: l.reduce_window(a, np.inf, l.min, (3,), (3,), "SAME"),
                 (x3,), [(PULL, "reduce_window_min")]),
    "cond": (lambda t, n, l: lambda a: l.cond(True, n.sin, n.cos, a), (x3,), [(LIN, None)]),
    "scan": (lambda t, n, l: lambda a: l.scan(lambda c, v: (c * v, c), F32(1.0), a)[0], (x3,),
             [(LIN, None)]),
    "custom_jvp": (lambda t, n, l: custom_jvp_fn(t, n), (x3,), [(REC, None)]),
    "custom_vjp": (lambda t, n, l: custom_vjp_fn(t, n), (x3,), [(LIN, None)]),
}


@pytest.mark.parametrize("name", list(KINDS))
def test_pullback_kind_and_gradient(name):
    build, args, want = KINDS[name]
    nodes, outs, pull = record(build(didax, dnp, didax.lax), *args)
    assert nodes == want
    ct = ct_like(outs[0])
    # the linearize + transpose path gives the same cotangents, dtypes and weak types
    lin_outs, lin_pull, _ = ad.vjp_flat(lambda *a: [build(didax, dnp, didax.lax)(*a)],
                                        list(args))
    inst = [ad.instantiate_zeros(c) for c in pull([ct])]
    assert_same_didax(inst, [ad.instantiate_zeros(c) for c in lin_pull([ct])])
    assert_same_didax(outs, lin_outs)

    def call(top, jnp, lax):
        out, f_vjp = top.vjp(build(top, jnp, lax), *args)
        return out, f_vjp(ct)
    same(call)


def test_forward_runs_once_and_pullback_does_not_retrace():
    runs = {"f": 0, "branch": 0}

    def branch(v):
        runs["branch"] += 1
        return dnp.sin(v) * v

    def f(a, b):
        runs["f"] += 1
        return dnp.tanh(a * b) + didax.lax.cond(True, branch, dnp.cos, a)
    nodes, _, pull = record(f, x3, y3)
    assert {k for k, _ in nodes} == {EACH, PW, JOINT, LIN}
    traced = dict(runs)
    assert traced["f"] == 1
    first, second = pull([y3]), pull([y3])
    assert runs == traced
    assert_same_didax(first, second)


def test_unused_input_and_unused_output_give_symbolic_zero():
    _, outs, pull = record(lambda a, b: a * 2.0, x3, y3)
    ga, gb = pull([np.ones(3, F32)])
    assert type(gb) is ad.Zero and type(ga) is not ad.Zero
    _, _, pull = record(lambda a: a * 2.0, x3)
    assert type(pull([ad.Zero(core.get_aval(x3))])[0]) is ad.Zero


# ----------------------------------------------------------------------------------------
# 2. gradients against JAX
# ----------------------------------------------------------------------------------------


def mlp_params(jnp):
    rng = np.random.default_rng(0)
    sizes = [3, 4, 2]
    return [(jnp.asarray(rng.normal(size=(m, n)).astype(F32)),
             jnp.asarray(rng.normal(size=n).astype(F32))) for m, n in zip(sizes, sizes[1:])]


def test_mlp_value_and_grad():
    def call(top, jnp, lax):
        def loss(params, x, y):
            for w, b in params[:-1]:
                x = jnp.tanh(x @ w + b)
            w, b = params[-1]
            return jnp.mean((x @ w + b - y) ** 2)
        return top.value_and_grad(loss)(mlp_params(jnp), m23, np.ones((2, 2), F32))
    same(call, scale=5)


GRADS = {
    "trace_matmul": (lambda jnp, lax: lambda a, b: jnp.trace(a @ b), (m23, m23.T), (0, 1)),
    "scalar_params": (lambda jnp, lax: lambda w, b: jnp.sum(w * x3 + b), (F32(2), F32(1)),
                      (0, 1)),
    "python_scalars": (lambda jnp, lax: lambda w, b: jnp.sum(w * x3 + b) / w, (2.0, 1.0),
                       (0, 1)),
    "maximum": (lambda jnp, lax: lambda a, b: jnp.sum(jnp.maximum(a, b)), (x3, x3), (0, 1)),
    "minimum": (lambda jnp, lax: lambda a, b: jnp.sum(jnp.minimum(a, b) * y3), (x3, y3), (0, 1)),
    "relu": (lambda jnp, lax: lambda a: jnp.sum(jnp.maximum(a, 0.0) * y3),
             (np.array([-1.0, 0.0, 2.0], F32),), 0),
    "max_reduce": (lambda jnp, lax: lambda a: jnp.max(a) + jnp.min(a * y3),
                   (np.array([1.0, 2.0, 2.0], F32),), 0),
    "where": (lambda jnp, lax: lambda a, b: jnp.sum(jnp.where(a > 0, a * b, b ** 2)),
              (x3, y3), (0, 1)),
    "index": (lambda jnp, lax: lambda a: jnp.sum(a[1:3] * y3[:2]), (x3,), 0),
    "at_set": (lambda jnp, lax: lambda a, b: jnp.sum(a.at[1].set(b[0] * 2.0) * y3),
               (x3, y3), (0, 1)),
    "concat_stack_pad": (lambda jnp, lax: lambda a, b: jnp.sum(
        jnp.concatenate([a, b]) * jnp.pad(jnp.stack([a, b]), ((0, 0), (1, 2))).ravel()[:6]),
        (x3, y3), (0, 1)),
    "gather_scatter": (lambda jnp, lax: lambda a, b: jnp.sum(a[np.array([0, 2, 2])] * a.at[
        np.array([0, 0, 2])].add(b) ** 2), (x3, y3), (0, 1)),
    "dynamic_update": (lambda jnp, lax: lambda a, b: jnp.sum(lax.dynamic_update_slice(
        a, b[:2] * 3, (np.int32(1),)) * lax.dynamic_slice(b, (np.int32(0),), (3,))),
        (x3, y3), (0, 1)),
    "cumsum": (lambda jnp, lax: lambda a: jnp.sum(jnp.cumsum(a) * y3), (x3,), 0),
    "sort": (lambda jnp, lax: lambda a: jnp.sum(jnp.sort(a) * y3), (x3,), 0),
    "integer_pow": (lambda jnp, lax: lambda a: jnp.sum(a ** 3 + lax.integer_pow(a, -2)),
                    (x3,), 0),
    "float_pow": (lambda jnp, lax: lambda a, b: jnp.sum(jnp.abs(a) ** 2.5 + jnp.power(
        jnp.abs(a), b)), (x3, y3), (0, 1)),
    "same_tracer_twice": (lambda jnp, lax: lambda a: jnp.sum(a * a + jnp.dot(a, a)), (x3,), 0),
    "same_tracer_two_args": (lambda jnp, lax: lambda a: (lambda u, v: jnp.sum(u * jnp.sin(v)))(
        a, a), (x3,), 0),
    "constant_output": (lambda jnp, lax: lambda a, b: jnp.sum(y3) + 0.0 * 0, (x3, y3), (0, 1)),
    "stop_gradient": (lambda jnp, lax: lambda a: jnp.sum(lax.stop_gradient(a) * a), (x3,), 0),
    # jointly linear primitives with a constant operand (its transpose sees it undefined)
    "complex_const_imag": (lambda jnp, lax: lambda a: jnp.sum(jnp.real(
        lax.complex(a, 1.0) ** 2)), (x3,), 0),
    "complex_const_real": (lambda jnp, lax: lambda a: jnp.sum(jnp.imag(
        lax.complex(np.ones(3, F32), a) * 2)), (x3,), 0),
    "dynamic_update_slice_into_const": (lambda jnp, lax: lambda a: jnp.sum(
        lax.dynamic_update_slice(np.zeros(5, F32), a, (1,)) ** 2), (x3,), 0),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_grad_against_jax(name):
    build, args, argnums = GRADS[name]
    same(lambda top, jnp, lax: top.value_and_grad(build(jnp, lax), argnums=argnums)(*args))


UNARY = ["abs", "acos", "asin", "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "digamma",
         "erf", "erf_inv", "erfc", "exp", "exp2", "expm1", "lgamma", "log", "log1p",
         "logistic", "rsqrt", "sin", "sinh", "sqrt", "square", "tan", "tanh"]
BINARY = ["atan2", "div", "max", "min", "pow", "rem"]


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_pointwise_primitive(name):
    """Every pointwise primitive with defjvp rules is pulled back by them, as JAX; pow's
    exponent rule casts (so is not its own transpose up to weak types): linearized."""
    args = (np.array([0.25, 0.5, 0.75], F32), np.array([1.5, 2.5, 3.0], F32))
    args = args[:2 if name in BINARY else 1]
    nodes, _, _ = record(getattr(didax.lax, name), *args)
    assert nodes == [(LIN, None) if name == "pow" else (PW, name)]
    same(lambda top, jnp, lax: top.grad(lambda *a: jnp.sum(getattr(lax, name)(*a) * args[0]),
                                        tuple(range(len(args))))(*args))


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_pointwise_primitive_weak_scalars(name):
    """Weak types of the gradients too (pow's exponent keeps a weak one, its base not)."""
    args = (0.5, 1.5)[:2 if name in BINARY else 1]
    same(lambda top, jnp, lax: top.grad(getattr(lax, name), tuple(range(len(args))))(*args))


@pytest.mark.parametrize("fn", ["logsumexp", "relu", "softplus", "gelu", "sigmoid"])
def test_nn_functions(fn):
    def call(top, jnp, lax):
        f = (top.scipy.special.logsumexp if fn == "logsumexp" else getattr(top.nn, fn))
        return top.grad(lambda a: jnp.sum(f(a) * y3) if fn != "logsumexp" else f(a))(
            np.array([-1.0, 0.0, 2.0], F32))
    same(call)


def test_holomorphic_complex_grad():
    same(lambda top, jnp, lax: top.grad(lambda z: jnp.sum(jnp.sin(z) * z + z ** 2 / 3.0),
                                        holomorphic=True)(z3))


def test_complex_vjp_non_holomorphic():
    def call(top, jnp, lax):
        out, f_vjp = top.vjp(lambda z, a: jnp.abs(z) * a + jnp.real(z * jnp.conj(z)), z3, x3)
        return out, f_vjp(y3)
    same(call)


@pytest.mark.parametrize("dt", [np.float16, bfloat16])
def test_low_precision(dt):
    a = x3.astype(dt)
    same(lambda top, jnp, lax: top.value_and_grad(
        lambda v: jnp.sum(jnp.tanh(v) * v / (v * v + 1)))(a), scale=2)


def test_float64_under_x64():
    with x64_mode(True):
        a = x3.astype(np.float64)
        got = same(lambda top, jnp, lax: top.grad(lambda v, w: jnp.sum(jnp.exp(v) * w + w))(
            a, 2.0))
        assert got.dtype == np.float64


def test_int_inputs_allow_int_give_float0():
    same(lambda top, jnp, lax: top.grad(lambda a, i: jnp.sum(a * i), argnums=(0, 1),
                                        allow_int=True)(x3, np.int32(3)))


def test_has_aux_is_concrete():
    got = same(lambda top, jnp, lax: top.value_and_grad(
        lambda a: (jnp.sum(jnp.sin(a)), {"cos": jnp.cos(a), "a": a}), has_aux=True)(x3))
    (_, aux), _ = got
    for leaf in didax.tree_util.tree_leaves(aux):
        assert isinstance(leaf, didax.Array) and not isinstance(leaf, core.Tracer)


# ----------------------------------------------------------------------------------------
# 3. higher order and composition
# ----------------------------------------------------------------------------------------


def quartic(jnp):
    return lambda a: jnp.sum(jnp.sin(a) * a ** 3) + jnp.dot(a, a) ** 2


def test_hessian_vector_product():
    same(lambda top, jnp, lax: top.grad(lambda a: jnp.vdot(top.grad(quartic(jnp))(a), y3))(x3),
         scale=5)


@pytest.mark.parametrize("how", ["jacrev", "hessian", "jacfwd_jacrev", "vmap_grad"])
def test_jacobians(how):
    def call(top, jnp, lax):
        f = quartic(jnp)
        if how == "jacrev":
            return top.jacrev(lambda a: jnp.tanh(m23 @ a) * a[0])(x3)
        if how == "hessian":
            return top.hessian(f)(x3)
        if how == "jacfwd_jacrev":
            return top.jacfwd(top.jacrev(f))(x3)
        return top.vmap(top.grad(f))(m23)
    same(call, scale=5)


def test_jit_composition_agrees_with_eager():
    f = quartic(dnp)
    eager = didax.grad(f)(x3)
    for g in (didax.grad(didax.jit(f))(x3), didax.jit(didax.grad(f))(x3)):
        assert g.dtype == eager.dtype and g.shape == eager.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(eager), rtol=1e-5, atol=1e-5)
    same(lambda top, jnp, lax: (top.grad(top.jit(quartic(jnp)))(x3),
                                top.jit(top.grad(quartic(jnp)))(x3)), scale=5)


CONTROL = {  # name: builder(top, jnp, lax) -> f
    "cond": lambda top, jnp, lax: lambda a: jnp.sum(lax.cond(a[0] > 0, jnp.sin, jnp.cos, a * a)),
    "scan": lambda top, jnp, lax: lambda a: jnp.sum(lax.scan(
        lambda c, v: (c * v + jnp.sin(c), c * v), F32(1.0), a)[1]),
    "fori_static": lambda top, jnp, lax: lambda a: jnp.sum(lax.fori_loop(
        0, 3, lambda i, c: jnp.sin(c) * a, a)),
    "custom_jvp": lambda top, jnp, lax: lambda a: jnp.sum(custom_jvp_fn(top, jnp)(a) * y3),
}


@pytest.mark.parametrize("name", list(CONTROL))
def test_grad_of_control_flow(name):
    same(lambda top, jnp, lax: top.value_and_grad(CONTROL[name](top, jnp, lax))(x3))


def test_grad_of_while_loop_raises_like_jax():
    both_raise(lambda top, jnp, lax: top.grad(
        lambda a: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, a))(1.0))


def test_custom_vjp_bwd_is_used():
    def call(top, jnp, lax):
        calls = []
        g = top.grad(lambda a: jnp.sum(custom_vjp_fn(top, jnp, calls)(a) * y3))(x3)
        assert len(calls) == 1
        return g
    got = same(call)
    np.testing.assert_allclose(np.asarray(got), 7.0 * np.cos(x3) * y3, rtol=1e-6)


# ----------------------------------------------------------------------------------------
# 4. the pullback
# ----------------------------------------------------------------------------------------


def pullback(top, jnp, lax):
    """A pullback whose tape holds each, joint, pointwise and linearized (cond, scan) nodes."""
    return top.vjp(lambda a, b: (jnp.tanh(a * b), lax.cond(True, jnp.sin, jnp.cos, a.sum() * b),
                                 lax.scan(lambda c, v: (c * v, c), F32(1.0), a)[1]), x3, y3)[1]


CTS = (y3, x3, y3)


def test_pullback_twice_is_the_same():
    def call(top, jnp, lax):
        f_vjp = pullback(top, jnp, lax)
        return f_vjp(CTS), f_vjp(CTS), f_vjp((x3, y3, x3))
    got = same(call)
    assert_same_didax(got[0], got[1])


def test_pullback_under_jit_vmap_and_grad():
    def call(top, jnp, lax):
        f_vjp = pullback(top, jnp, lax)
        cts = tuple(np.stack([c, c[::-1]]) for c in CTS)
        return (top.jit(f_vjp)(CTS), top.vmap(f_vjp)(cts), top.jit(top.vmap(f_vjp))(cts),
                top.grad(lambda c: jnp.sum(f_vjp((c, c, c))[0] ** 2))(y3))
    same(call)


@pytest.mark.parametrize("bad", ["shape", "dtype", "tree"])
def test_pullback_wrong_cotangent_raises(bad):
    ct = {"shape": (y3[:2], x3, y3), "dtype": (y3.astype(np.float16), x3, y3),
          "tree": y3}[bad]
    both_raise(lambda top, jnp, lax: pullback(top, jnp, lax)(ct))


# ----------------------------------------------------------------------------------------
# 5. effects run once; Python control flow on values
# ----------------------------------------------------------------------------------------


def test_debug_print_once_per_grad():
    def run(top, jnp):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            g = top.grad(lambda a: (top.debug.print("a={}", a), jnp.sum(jnp.sin(a)))[1])(x3)
            if top is jax:
                jax.effects_barrier()
        return buf.getvalue(), g
    (out_d, g_d), (out_j, g_j) = run(didax, dnp), run(jax, jax.numpy)
    assert out_d.count("a=") == out_j.count("a=") == 1
    assert out_d == out_j
    assert_tree_matches(g_d, g_j)


def custom_vjp_calling_back(top, cb):
    f = top.custom_vjp(lambda v: v * 1.0)
    f.defvjp(lambda v: (v * 1.0, None), lambda r, g: (top.debug.callback(cb, g), g)[1:])
    return f


CALLBACKS = {  # where the callback sits: (builder(top, jnp, lax, cb) -> f, calls per grad)
    "body": (lambda top, jnp, lax, cb: lambda a: (top.debug.callback(cb, a),
                                                  jnp.sum(a * a))[1], 1),
    "cond": (lambda top, jnp, lax, cb: lambda a: jnp.sum(lax.cond(
        True, lambda v: (top.debug.callback(cb, v), v * 2)[1], lambda v: v, a)), 1),
    "scan": (lambda top, jnp, lax, cb: lambda a: lax.scan(
        lambda c, v: ((top.debug.callback(cb, v), c * v)[1], None), F32(1.0), a)[0], 3),
    "custom_vjp_bwd": (lambda top, jnp, lax, cb: lambda a: jnp.sum(
        custom_vjp_calling_back(top, cb)(a)), 1),
}


@pytest.mark.parametrize("where", list(CALLBACKS))
def test_debug_callback_runs_as_often_as_in_jax(where):
    build, want = CALLBACKS[where]

    def call(top, jnp, lax):
        seen = []
        f = top.grad(build(top, jnp, lax, lambda v: seen.append(np.asarray(v))))
        g1, g2 = f(x3), f(y3)
        if top is jax:
            jax.effects_barrier()
        assert len(seen) == 2 * want
        return g1, g2
    same(call)


def test_python_control_flow_on_values():
    def f(jnp):
        def g(a, b):
            if a > 0:
                return a * jnp.sum(b)
            return float(len(b)) * a ** 2
        return g
    same(lambda top, jnp, lax: (top.grad(f(jnp), (0, 1))(2.0, y3),
                                top.grad(f(jnp), (0, 1))(-2.0, y3)))


def test_float_of_tracer_raises_like_jax():
    both_raise(lambda top, jnp, lax: top.grad(lambda a: float(a) * a)(2.0))


def test_numpy_conversion_of_tracer_raises_like_jax():
    both_raise(lambda top, jnp, lax: top.grad(lambda a: jnp.sum(np.asarray(a) * a))(x3))


# ----------------------------------------------------------------------------------------
# 6. leaked tracers and perturbation confusion
# ----------------------------------------------------------------------------------------


def leak_then(where, use):
    def call(top, jnp, lax):
        box = []

        def leak(a):
            box.append(a * 2.0)
            return jnp.sum(a)
        if where == "grad":
            top.grad(leak)(x3)
        elif where == "vjp":
            top.vjp(leak, x3)[1](F32(1.0))
        else:
            top.jvp(leak, (x3,), (x3,))
        return use(top, jnp, box[0])
    return call


@pytest.mark.parametrize("use", ["op", "grad"])
@pytest.mark.parametrize("where", ["grad", "vjp", "jvp"])
def test_leaked_tracer_raises_like_jax(where, use):
    both_raise(leak_then(where, {
        "op": lambda top, jnp, t: jnp.sin(t),
        "grad": lambda top, jnp, t: top.grad(lambda a: jnp.sum(a * t))(y3)}[use]))


@pytest.mark.parametrize("where", ["grad", "vjp", "jvp"])
def test_leaked_tracer_under_jit_raises_like_jax(where):
    both_raise(leak_then(where, lambda top, jnp, t: top.jit(lambda a: a * t)(y3)))


@pytest.mark.parametrize("jit", [False, True])
def test_custom_jvp_closing_over_differentiated_value_raises_like_jax(jit):
    def call(top, jnp, lax):
        def g(a, b):
            f = top.custom_jvp(lambda v: jnp.sin(v) * b)
            f.defjvp(lambda p, t: (f(p[0]), jnp.cos(p[0]) * b * t[0]))
            return jnp.sum(f(a))
        dg = top.grad(g, (0, 1))
        return (top.jit(dg) if jit else dg)(x3, y3)
    both_raise(call)


def test_perturbation_confusion():
    same(lambda top, jnp, lax: (
        top.grad(lambda x: x * top.grad(lambda y: x * y)(2.0))(3.0),
        top.grad(lambda x: top.grad(lambda y: jnp.sin(x * y) * x)(2.0))(3.0)))
