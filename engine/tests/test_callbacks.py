"""Host callbacks against JAX: pure_callback, io_callback (ordered or not), debug.callback
and debug.print — eagerly, under jit, under vmap per vmap_method, under differentiation
(JAX's errors, and pure_callback inside custom_jvp), dead-code elimination under jit, the
order of ordered effects, and clear errors for callbacks returning the wrong type.
"""

from __future__ import annotations

import contextlib
import io
import re

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from didax.experimental import io_callback as d_io
from jax.experimental import io_callback as j_io
from jaxcompare import assert_same, assert_same_error, raised, x64

F32 = np.float32
LIBS = {"didax": (didax, dnp, d_io), "jax": (jax, jnp, j_io)}


def both(call, **kw):
    """call(jx, jnp_like, io_callback) under both libraries: same results; returns didax's."""
    got = call(*LIBS["didax"])
    want = call(*LIBS["jax"])
    jax.effects_barrier()
    assert_same(got, want, **kw)
    return got


def both_error(call, text="exact"):
    e_j = raised(lambda: call(*LIBS["jax"]))
    e_d = raised(lambda: call(*LIBS["didax"]))
    assert_same_error(e_d, e_j, text)
    return e_d, e_j


def spec(jx, shape=(), dtype=F32):
    return jx.ShapeDtypeStruct(shape, dtype)


# ----------------------------------------------------------------------------------------
# pure_callback
# ----------------------------------------------------------------------------------------


def _doubler(log):
    def cb(x):
        log.append(np.shape(x))
        return np.asarray(x * 2, F32)
    return cb


@pytest.mark.parametrize("mode", ["eager", "jit", "jit_twice"])
def test_pure_callback_values_and_calls(mode):
    def call(jx, n, io_):
        log = []
        f = lambda x: jx.pure_callback(_doubler(log), spec(jx, np.shape(x)), x)  # noqa: E731
        if mode == "eager":
            out = [f(n.arange(3.0))]
        else:
            g = jx.jit(f)
            out = [g(n.arange(3.0)) for _ in range(1 if mode == "jit" else 2)]
        return out, log

    both(call)


def test_pure_callback_receives_numpy_and_pytrees():
    def call(jx, n, io_):
        seen = []

        def cb(tree, scale=None):
            seen.append(sorted(type(v).__name__.replace("ArrayImpl", "Array")
                               for v in jax.tree_util.tree_leaves(tree)))
            return {"a": np.asarray(tree[0] * scale, F32), "b": (np.asarray(tree[1]["k"]),)}

        shapes = {"a": spec(jx, (2,)), "b": (spec(jx, (), np.int32),)}
        f = lambda x, k: jx.pure_callback(cb, shapes, (x, {"k": k}), scale=x)  # noqa: E731
        return [f(n.ones(2), n.int32(3)), jx.jit(f)(n.ones(2), n.int32(4)), seen]

    both(call)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "int8", "uint32", "bool",
                                   "complex64", "int16"])
def test_pure_callback_dtypes_under_jit(dtype):
    def call(jx, n, io_):
        dt = n.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
        x = n.ones((2, 3), dt)
        return jx.jit(lambda v: jx.pure_callback(lambda a: a, spec(jx, (2, 3), dt), v))(x)

    both(call)


def test_pure_callback_x64_and_empty_and_no_operands():
    with x64():
        both(lambda jx, n, io_: jx.jit(lambda v: jx.pure_callback(
            lambda a: a * 2, spec(jx, (2,), np.float64), v))(np.ones(2)))
    both(lambda jx, n, io_: jx.jit(lambda v: jx.pure_callback(
        lambda a: a, spec(jx, (0, 3)), v))(n.ones((0, 3))))
    both(lambda jx, n, io_: jx.jit(lambda: jx.pure_callback(
        lambda: np.float32(7), spec(jx)))())


def test_result_dtypes_are_canonicalized_as_jax():
    """A Python scalar or 64-bit result for a 32-bit declaration is accepted."""
    for result in (2.0, np.float64(2.0), [2.0]):
        both(lambda jx, n, io_, r=result: jx.jit(lambda v: jx.pure_callback(
            lambda a: r, spec(jx), v))(1.0))
    both(lambda jx, n, io_: jx.jit(lambda v: jx.pure_callback(
        lambda a: np.int64(3), spec(jx, (), np.int32), v))(1.0))


def test_64_bit_result_types_need_x64():
    for dt in (np.float64, np.int64, np.uint64, np.complex128):
        both_error(lambda jx, n, io_, d=dt: jx.pure_callback(lambda a: a, spec(jx, (), d), 1.0))


# ----------------------------------------------------------------------------------------
# wrong results are clear errors, never a crash
# ----------------------------------------------------------------------------------------

WRONG = {
    "shape": (lambda a: np.ones(3, F32), "Incorrect output shape for return value #0: "
              "Expected: (), Actual: (3,)"),
    "dtype": (lambda a: np.ones((), np.float16), "Incorrect output dtype for return value "
              "#0: Expected: float32, Actual: float16"),
    "int_for_float": (lambda a: 3, "Incorrect output dtype for return value #0: Expected: "
                      "float32, Actual: int32"),
    "two_leaves": (lambda a: (a, a), "Mismatched number of outputs from callback. Expected: 1,"
                   " Actual: 2"),
    "none": (lambda a: None, "Mismatched number of outputs from callback. Expected: 1, "
             "Actual: 0"),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_wrong_results_under_jit(case):
    cb, message = WRONG[case]
    e_d, e_j = both_error(lambda jx, n, io_: jx.jit(
        lambda v: jx.pure_callback(cb, spec(jx), v))(1.0), "class")
    assert message in str(e_d) and message in str(e_j)
    # the process is intact: the next call works
    out = didax.jit(lambda v: didax.pure_callback(lambda a: a, spec(didax), v))(F32(2.0))
    assert float(out) == 2.0


@pytest.mark.parametrize("case", list(WRONG))
def test_wrong_results_eagerly(case):
    cb, message = WRONG[case]
    e = raised(lambda: didax.pure_callback(cb, spec(didax), 1.0))
    assert isinstance(e, RuntimeError) and message in str(e)


def test_wrong_io_callback_result_and_raising_callback():
    e_d, e_j = both_error(lambda jx, n, io_: jx.jit(
        lambda v: io_(lambda a: np.ones(3, F32), spec(jx), v))(1.0), "class")
    assert "Incorrect output shape" in str(e_d)

    def boom(a):
        raise ZeroDivisionError("boom")

    e_d, _ = both_error(lambda jx, n, io_: jx.jit(
        lambda v: jx.pure_callback(boom, spec(jx), v))(1.0), "class")
    assert "ZeroDivisionError: boom" in str(e_d)
    assert isinstance(raised(lambda: didax.pure_callback(boom, spec(didax), 1.0)),
                      ZeroDivisionError)


def test_bad_result_shape_dtypes_argument():
    e = raised(lambda: didax.pure_callback(lambda a: a, 3, 1.0))
    assert isinstance(e, TypeError) and "result_shape_dtypes" in str(e)
    both_error(lambda jx, n, io_: jx.pure_callback(lambda a: a, spec(jx), 1.0,
                                                   vmap_method="bogus"))


# ----------------------------------------------------------------------------------------
# vmap per vmap_method
# ----------------------------------------------------------------------------------------


def _logged(log):
    def cb(x, y):
        log.append((np.shape(x), np.shape(y)))
        return np.asarray(x * 2 + y, F32)
    return cb


@pytest.mark.parametrize("method", ["sequential", "sequential_unrolled", "expand_dims",
                                    "broadcast_all"])
@pytest.mark.parametrize("jit", [False, True])
def test_vmap_methods(method, jit):
    def call(jx, n, io_):
        log = []
        f = lambda x, y: jx.pure_callback(_logged(log), spec(jx, np.shape(x)), x, y,  # noqa
                                          vmap_method=method)
        g = jx.vmap(f, in_axes=(0, None))
        if jit:
            g = jx.jit(g)
        return g(n.arange(6.0).reshape(3, 2), n.ones(2)), log

    both(call)


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_nested_vmap_and_batch_axes(method):
    def call(jx, n, io_):
        log = []
        f = lambda x, y: jx.pure_callback(_logged(log), spec(jx, np.shape(x)), x, y,  # noqa
                                          vmap_method=method)
        inner = jx.vmap(f, in_axes=(0, None))
        out = jx.vmap(inner, in_axes=(None, 0))(n.arange(6.0).reshape(3, 2), n.ones((4, 2)))
        moved = jx.vmap(f, in_axes=(1, 0))(n.arange(6.0).reshape(2, 3), n.ones((3, 2)))
        return out, moved, log

    both(call)


def test_vmap_without_method_raises_as_jax():
    both_error(lambda jx, n, io_: jx.vmap(
        lambda x: jx.pure_callback(lambda a: a, spec(jx), x))(n.ones(3)))


def test_io_callback_under_vmap():
    def call(jx, n, io_):
        log = []
        f = lambda x: io_(lambda v: log.append(float(v)) or np.asarray(v * 3, F32),  # noqa
                          spec(jx), x)
        return jx.vmap(f)(n.arange(3.0)), jx.jit(jx.vmap(f))(n.arange(2.0)), log

    both(call)


def test_ordered_io_callback_under_vmap_raises():
    e_d, e_j = both_error(lambda jx, n, io_: jx.vmap(
        lambda x: io_(lambda v: v, spec(jx), x, ordered=True))(n.arange(3.0)))
    assert str(e_d) == "Cannot `vmap` ordered IO callback."


# ----------------------------------------------------------------------------------------
# differentiation
# ----------------------------------------------------------------------------------------

GRAD_ERRORS = {
    "grad_pure": lambda jx, io_: jx.grad(lambda x: jx.pure_callback(lambda v: v, spec(jx), x))(
        1.0),
    "jvp_pure": lambda jx, io_: jx.jvp(lambda x: jx.pure_callback(lambda v: v, spec(jx), x),
                                       (1.0,), (1.0,)),
    "grad_jit_pure": lambda jx, io_: jx.grad(jx.jit(
        lambda x: jx.pure_callback(lambda v: v, spec(jx), x)))(1.0),
    "grad_io": lambda jx, io_: jx.grad(lambda x: io_(lambda v: v, spec(jx), x))(1.0),
    "jvp_io": lambda jx, io_: jx.jvp(lambda x: io_(lambda v: v, spec(jx), x), (1.0,), (1.0,)),
    "linearize_io_ordered": lambda jx, io_: jx.linearize(
        lambda x: io_(lambda v: v, spec(jx), x, ordered=True), 1.0),
}


@pytest.mark.parametrize("case", list(GRAD_ERRORS))
def test_differentiating_callbacks_raises_as_jax(case):
    both_error(lambda jx, n, io_: GRAD_ERRORS[case](jx, io_))


def test_callbacks_on_non_differentiated_values_are_fine_under_grad():
    def call(jx, n, io_):
        def f(x):
            k = jx.pure_callback(lambda: np.float32(3.0), spec(jx))
            return x * k
        return jx.grad(f)(2.0), jx.jit(jx.grad(f))(2.0)

    both(call)


def test_pure_callback_inside_custom_jvp_differentiates():
    def call(jx, n, io_):
        @jx.custom_jvp
        def host_sin(x):
            return jx.pure_callback(lambda v: np.sin(v).astype(v.dtype),
                                    jx.ShapeDtypeStruct(x.shape, x.dtype), x,
                                    vmap_method="expand_dims")

        @host_sin.defjvp
        def _(primals, tangents):
            (x,), (t,) = primals, tangents
            return host_sin(x), n.cos(x) * t

        x = n.arange(3.0)
        return [host_sin(x), jx.grad(lambda v: host_sin(v).sum())(x),
                jx.jit(jx.grad(lambda v: host_sin(v).sum()))(x),
                jx.vmap(jx.grad(lambda v: host_sin(v)))(x),
                jx.jvp(host_sin, (x,), (n.ones(3),)),
                jx.grad(lambda v: jx.jit(host_sin)(v).sum())(x)]

    both(call)


def test_pure_callback_inside_custom_vjp():
    def call(jx, n, io_):
        @jx.custom_vjp
        def f(x):
            return jx.pure_callback(lambda v: np.asarray(v ** 3, F32), spec(jx, (3,)), x)

        f.defvjp(lambda x: (f(x), x), lambda x, g: (3 * x ** 2 * g,))
        return jx.grad(lambda x: f(x).sum())(n.arange(3.0)), jx.jit(
            jx.grad(lambda x: f(x).sum()))(n.arange(3.0))

    both(call)


# ----------------------------------------------------------------------------------------
# dead code and effects
# ----------------------------------------------------------------------------------------


def test_unused_pure_callback_is_removed_under_jit():
    def call(jx, n, io_):
        log = []
        f = jx.jit(lambda x: (jx.pure_callback(lambda v: log.append("p") or v, spec(jx), x),
                              x * 2)[1])
        out = f(F32(1.0))
        return out, log, "custom_call" in f.lower(F32(1.0)).as_text()

    out, log, has_call = both(call)
    assert log == [] and not has_call


def test_io_and_debug_callbacks_are_never_removed():
    def call(jx, n, io_):
        log = []
        f = jx.jit(lambda x: (io_(lambda v: log.append("io") or v, spec(jx), x), x * 2)[1])
        g = jx.jit(lambda x: (jx.debug.callback(lambda v: log.append("dbg"), x), x * 2)[1])
        out = f(F32(1.0)), g(F32(1.0))
        return out, log, "custom_call" in f.lower(F32(1.0)).as_text(), \
            "custom_call" in g.lower(F32(1.0)).as_text()

    out, log, io_kept, dbg_kept = both(call)
    assert log == ["io", "dbg"] and io_kept and dbg_kept


def test_ordered_effects_run_in_program_order():
    def call(jx, n, io_):
        log = []

        def f(x):
            for i in range(5):
                io_(lambda v, i=i: log.append((i, float(v))), None, x * i, ordered=True)
            return x

        jx.jit(f)(F32(1.0))
        f(F32(2.0))
        jx.jit(lambda x: f(x) + jx.jit(f)(x * 10))(F32(3.0))
        return log

    log = both(call)
    assert [e[0] for e in log[:5]] == [0, 1, 2, 3, 4]

    def debug(jx, n, io_):
        log = []

        def g(x):
            for i in range(4):
                jx.debug.callback(lambda v, i=i: log.append((i, float(v))), x + i,
                                  ordered=True)
            return x

        jx.jit(g)(F32(1.0))
        jx.jit(lambda x: jx.jit(g)(x) * 2)(F32(3.0))
        return log

    log = both(debug)
    assert [e[0] for e in log] == [0, 1, 2, 3] * 2


def test_ordered_effects_in_jaxpr():
    texts = []
    for jx, _n, io_ in LIBS.values():
        texts.append(str(jx.make_jaxpr(
            lambda x, jx=jx, io_=io_: io_(lambda v: v, spec(jx), x, ordered=True))(1.0)))
    for t in texts:
        assert "io_callback[" in t and "ordered=True" in t
    shapes = [re.sub(r"callback=.*", "", t).split("\n")[0] for t in texts]
    assert shapes[0] == shapes[1]


def test_io_callback_returns_and_pytrees():
    def call(jx, n, io_):
        state = {"count": 0}

        def bump(x):
            state["count"] += 1
            return {"n": np.int32(state["count"]), "x": np.asarray(x, F32)}

        f = jx.jit(lambda x: io_(bump, {"n": spec(jx, (), np.int32), "x": spec(jx, (2,))}, x))
        return [f(n.ones(2)), f(n.ones(2)), state["count"]]

    both(call)


# ----------------------------------------------------------------------------------------
# debug.callback and debug.print
# ----------------------------------------------------------------------------------------


def printed(call, jx, n, io_):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = raised(call, jx, n, io_) or "ok"
        if jx is jax:
            jax.effects_barrier()
    return buf.getvalue(), result if isinstance(result, str) else repr(type(result))


PRINTS = {
    "eager": lambda jx, n, io_: jx.debug.print("x={} y={y}", 1.5, y=n.arange(3)),
    "format_spec": lambda jx, n, io_: jx.debug.print("x={x:.3f}", x=n.float32(1.5)),
    "jit": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("x={}", x) or x * 2)(F32(1.5)),
    "jit_array": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("x={}", x))(n.arange(4.0)),
    "jit_big": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("x={}", x))(n.arange(2000.)),
    "vmap": lambda jx, n, io_: jx.vmap(lambda x: jx.debug.print("x={}", x) or x)(n.arange(3.)),
    "vmap_vmap": lambda jx, n, io_: jx.vmap(jx.vmap(lambda x: jx.debug.print("{}", x)))(
        n.arange(4.0).reshape(2, 2)),
    "jit_vmap": lambda jx, n, io_: jx.jit(jx.vmap(lambda x: jx.debug.print("{}", x)))(
        n.arange(3.0)),
    "grad": lambda jx, n, io_: jx.grad(lambda x: jx.debug.print("x={}", x) or x * 2)(1.5),
    "jvp": lambda jx, n, io_: jx.jvp(lambda x: jx.debug.print("x={}", x) or x, (1.5,), (1.,)),
    "linearize": lambda jx, n, io_: jx.linearize(
        lambda x: jx.debug.print("x={}", x) or x * 2, 1.5)[1](1.0),
    "vjp": lambda jx, n, io_: jx.vjp(lambda x: jx.debug.print("x={}", x) or x, 1.5)[1](1.0),
    "ordered": lambda jx, n, io_: jx.jit(lambda x: [jx.debug.print("a{}", x, ordered=True),
                                                   jx.debug.print("b{}", x * 2, ordered=True)])(
        1.0),
    "pytree": lambda jx, n, io_: jx.debug.print("{}", {"a": n.ones(2), "b": (1, 2.0)}),
    "no_args": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("hello"))(1.0),
    "no_leading_placeholder": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print(
        "{{}} {}", x))(1.0),
    "escaped_braces": lambda jx, n, io_: jx.debug.print("{x} and {{y}}", x=2),
    "int_bool_bf16": lambda jx, n, io_: jx.jit(lambda a, b, c: jx.debug.print(
        "{} {} {}", a, b, c))(3, True, n.ones(2, n.bfloat16)),
    "indexed": lambda jx, n, io_: jx.jit(lambda x, y: jx.debug.print("{1} {0}", x, y))(1., 2),
    "repr_weak_eager": lambda jx, n, io_: jx.debug.print("{!r}", 1.5),
    "repr_jit": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("{!r}", x))(1.5),
    "static_string": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("{} {}", "s", x))(1.),
    "two_call_form": lambda jx, n, io_: jx.debug.print(ordered=True)("a {}", 1.0),
    "print_options": lambda jx, n, io_: _with_precision(
        lambda: jx.jit(lambda x: jx.debug.print("{}", x))(n.array([1 / 3, 2 / 3]))),
    "missing_argument": lambda jx, n, io_: jx.jit(lambda x: jx.debug.print("{} {}", x))(1.0),
    "unused_argument": lambda jx, n, io_: jx.debug.print("{}", 1.0, 2.0),
    "unused_keyword": lambda jx, n, io_: jx.debug.print("{}", 1.0, y=2.0),
    "missing_key": lambda jx, n, io_: jx.debug.print("{z}", y=2.0),
    "two_call_bad": lambda jx, n, io_: jx.debug.print(1.0, ordered=True),
    # a print inside a custom rule's function is kept though only its gradient is used
    "custom_vjp_jit_grad": lambda jx, n, io_: _print_in_custom_rule(jx, "vjp"),
    "custom_jvp_jit_grad": lambda jx, n, io_: _print_in_custom_rule(jx, "jvp"),
    # a checkpointed function's print happens again when the backward pass recomputes it
    "checkpoint_grad": lambda jx, n, io_: jx.grad(_print_in_checkpoint(jx))(2.0),
    "checkpoint_jit_grad": lambda jx, n, io_: jx.jit(jx.grad(_print_in_checkpoint(jx)))(2.0),
    "checkpoint_vjp": lambda jx, n, io_: [print("fwd"), jx.vjp(_print_in_checkpoint(jx), 2.0)
                                         [1](1.0)],
    "checkpoint_linearize": lambda jx, n, io_: jx.linearize(_print_in_checkpoint(jx),
                                                            2.0)[1](1.0),
}


def _print_in_checkpoint(jx):
    def rm(x):
        jx.debug.print("rm {}", x)
        return jx.numpy.sin(jx.numpy.sin(x))
    return jx.checkpoint(rm)


def _print_in_custom_rule(jx, kind):
    def f(x):
        jx.debug.print(kind + " {}", x)
        return x * x

    if kind == "vjp":
        g = jx.custom_vjp(f)
        g.defvjp(lambda x: (g(x), x), lambda r, ct: (2 * r * ct,))
    else:
        g = jx.custom_jvp(f)
        g.defjvp(lambda p, t: (g(p[0]), 2 * p[0] * t[0]))
    return jx.jit(jx.grad(g))(1.5)


def _with_precision(fn):
    with np.printoptions(precision=2):
        fn()


@pytest.mark.parametrize("case", list(PRINTS))
def test_debug_print_as_jax(case):
    d = printed(PRINTS[case], *LIBS["didax"])
    j = printed(PRINTS[case], *LIBS["jax"])
    assert d == j


DEBUG_CALLBACKS = {
    "eager": lambda jx, n, log: jx.debug.callback(lambda v: log.append(repr(v)), n.arange(2.)),
    "jit": lambda jx, n, log: jx.jit(lambda x: jx.debug.callback(
        lambda v: log.append(repr(v)), x))(n.arange(2.0)),
    "weak_eager": lambda jx, n, log: jx.debug.callback(lambda v: log.append(repr(v)), 2.0),
    "kwargs_static": lambda jx, n, log: jx.jit(lambda x: jx.debug.callback(
        lambda a, b, c=None: log.append((repr(a), b, repr(c))), x, None, c=x + 1))(1.0),
    "grad": lambda jx, n, log: jx.grad(lambda x: jx.debug.callback(
        lambda v: log.append(repr(v)), x) or x * x)(2.0),
    "vmap_jit": lambda jx, n, log: jx.jit(jx.vmap(lambda x: jx.debug.callback(
        lambda v: log.append(repr(v)), x)))(n.arange(3.0)),
    "dce": lambda jx, n, log: jx.jit(lambda x: (jx.debug.callback(
        lambda v: log.append("kept"), x), 2.0)[1])(1.0),
    "returns_value": lambda jx, n, log: log.append(jx.debug.callback(lambda v: 3, 1.0)),
    "decorator_form": lambda jx, n, log: jx.debug.callback(ordered=True)(
        lambda v: log.append(float(v)), 1.0),
    "not_callable": lambda jx, n, log: jx.debug.callback(3, 1.0),
}


@pytest.mark.parametrize("case", list(DEBUG_CALLBACKS))
def test_debug_callback_as_jax(case):
    results = []
    for jx, n, _ in LIBS.values():
        log = []
        e = raised(DEBUG_CALLBACKS[case], jx, n, log)
        if jx is jax:
            jax.effects_barrier()
        results.append(([s.replace("ArrayImpl", "Array") if isinstance(s, str) else s
                         for s in log], None if e is None else (type(e).__name__, str(e))))
    assert results[0] == results[1]


def test_debug_print_jaxpr_keeps_the_effect():
    jaxpr = didax.make_jaxpr(lambda x: didax.debug.print("x={}", x))(1.0)
    assert "debug_print[" in str(jaxpr)
    assert jaxpr.effects and "Debug" in str(jaxpr.effects)
    closed = didax.make_jaxpr(lambda x: didax.debug.print("x={}", x, ordered=True))(1.0)
    assert "OrderedDebug" in str(closed.effects)


@pytest.mark.parametrize("build", [
    lambda jx: jx.make_jaxpr(lambda x: jx.debug.print("x={x} {}", x * 2, x=x))(1.0),
    lambda jx: jx.make_jaxpr(lambda x: jx.debug.print("x={:.2f}", x, ordered=True))(1.0),
    lambda jx: jx.make_jaxpr(jx.vmap(lambda x: jx.debug.print("x={}", x)))(
        jx.numpy.ones(2)),
    lambda jx: jx.make_jaxpr(jx.grad(lambda x: jx.debug.print("g={}", x) or x * x))(3.0),
])
def test_debug_print_jaxpr_text_as_jax(build):
    assert str(build(didax)) == str(build(jax))


def test_eager_scan_prints_in_xla_order_as_jax():
    """An eager scan whose body only has unordered prints runs compiled, as JAX's: XLA may
    fire the two prints of one step in either order, and does as under JAX."""
    def run(lib):
        def f(x):
            lib.debug.print("x: {}", x)
            y = lib.numpy.sin(x)
            lib.debug.print("y: {}", y)
            return y
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ys = lib.lax.map(f, lib.numpy.arange(3.0))
            lib.effects_barrier()
        return buf.getvalue(), np.asarray(ys)
    (out_d, ys_d), (out_j, ys_j) = run(didax), run(jax)
    assert out_d == out_j
    np.testing.assert_allclose(ys_d, ys_j)
