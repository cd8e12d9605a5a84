"""didax.jit against jax.jit: values, dtypes and weak types for many programs in every
dtype (special float constants included), static and donated arguments, kwargs, pytrees,
methods and partials, tracing once per cache key, jit of jit, jit composed with
jvp/grad/vmap/hessian/linearize (closures over outer tracers included), the jaxpr text of
those compositions, the didax.Array API, and that the engine never imports jax.
"""

from __future__ import annotations

import functools
import operator
import pickle
import subprocess
import sys
import textwrap
from collections import namedtuple

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcompare import BF16, assert_same, raised, same, same_error, x64

# ----------------------------------------------------------------------------------------
# values, dtypes and weak types for many programs in every dtype
# ----------------------------------------------------------------------------------------

# (dtype name, needs x64)
DTYPES = [
    ("float16", False), ("bfloat16", False), ("float32", False), ("float64", True),
    ("int8", False), ("int16", False), ("int32", False), ("int64", True),
    ("uint8", False), ("uint16", False), ("uint32", False), ("uint64", True),
    ("bool", False), ("complex64", False), ("complex128", True),
]


def _dtype(name):
    return BF16 if name == "bfloat16" else np.dtype(name)


def _value(rng, shape, name, nonzero=False):
    dt = _dtype(name)
    if dt == np.bool_:
        return rng.random(shape) < 0.5 if not nonzero else np.ones(shape, bool)
    if dt.kind in "iu":
        lo = 1 if nonzero or dt.kind == "u" else -5
        v = rng.integers(lo, 6, shape)
        if nonzero and dt.kind == "i":
            v = v * rng.choice([-1, 1], shape)
        return v.astype(dt)
    v = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    if dt.kind == "c":
        v = v + 1j * rng.uniform(-1, 1, shape)
    return v.astype(dt)


def _arith(n, lax):
    def f(x, y):
        out = {"mul_add": x * y + x, "eq": x == y, "sum": n.sum(x, axis=0),
               "transpose": n.reshape(x.T, (2, 3)), "concat": n.concatenate([x, y], axis=1),
               "bcast": x[0] * y, "scalar": x * 2 + 1}
        return out
    return f


def _signed(n, lax):
    def f(x, y):
        return {"sub": x - y, "neg": -x, "abs": abs(x), "sign": n.sign(x)}
    return f


def _ordered(n, lax):
    def f(x, y):
        return {"gt": x > y, "where": n.where(x > y, x, y), "max": n.max(x, axis=1),
                "maximum": n.maximum(x, y), "minimum": n.minimum(x, y),
                "clip": lax.clamp(n.min(y), x, n.max(y)), "sort": n.sort(x, axis=1),
                "argmax": n.argmax(x, axis=0)}
    return f


def _division(n, lax):
    def f(x, y):
        return {"truediv": x / y, "cast_back": (x / y).astype(x.dtype),
                "prod": n.prod(x, axis=0)}
    return f


def _floats(n, lax):
    def f(x, y):
        return {"exp": n.exp(x), "sin": n.sin(x), "tanh": n.tanh(y), "sqrt": n.sqrt(x * x),
                "log": n.log(abs(y) + 1), "mean": n.mean(x), "dot": x @ y.T}
    return f


def _casts(n, lax):
    def f(x, y):
        return {"to_f32": x.astype(n.float32), "to_i32": x.astype(n.int32),
                "to_bool": x.astype(bool), "from_f32": n.float32(1.5).astype(x.dtype) * y}
    return f


PROGRAMS = {
    "arith": (_arith, lambda d: True),
    "signed": (_signed, lambda d: d != "bool" and not d.startswith("uint")),
    "ordered": (_ordered, lambda d: "complex" not in d and d != "bool"),
    "division": (_division, lambda d: d != "bool"),
    "floats": (_floats, lambda d: d.startswith(("float", "bfloat", "complex"))),
    "casts": (_casts, lambda d: "complex" not in d),
}

CASES = [(p, d) for p, (_, ok) in PROGRAMS.items() for d, _ in DTYPES if ok(d)]


@pytest.mark.parametrize("program,dtype", CASES, ids=[f"{p}-{d}" for p, d in CASES])
def test_program_values_dtypes(program, dtype):
    needs_x64 = dict(DTYPES)[dtype]
    build = PROGRAMS[program][0]
    with x64(needs_x64):
        rng = np.random.default_rng(abs(hash((program, dtype))) % 2**32)
        x = _value(rng, (2, 3), dtype)
        y = _value(rng, (2, 3), dtype, nonzero=program == "division")
        got = didax.jit(build(dnp, didax.lax))(x, y)
        want = jax.jit(build(jnp, jax.lax))(x, y)
        assert_same(got, want, what=f"{program}[{dtype}]")


FLOAT_DTYPES = [("float16", False), ("bfloat16", False), ("float32", False),
                ("float64", True), ("complex64", False), ("complex128", True)]


@pytest.mark.parametrize("dtype,needs_x64", FLOAT_DTYPES, ids=[d for d, _ in FLOAT_DTYPES])
def test_special_float_constants(dtype, needs_x64):
    """NaN, ±Inf and -0.0 as closed-over array constants, scalar literals and computed
    values keep their bits through lowering (signs of zeros included)."""
    dt = _dtype(dtype)
    specials = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0], dt)

    def build(n):
        def f(x):
            return {"const": x * specials, "neg_zero": x * dt.type(-0.0),
                    "lit_inf": x + dt.type(np.inf), "lit_nan": x * dt.type(np.nan),
                    "made": n.full((2,), -0.0, dt), "div0": x / n.zeros((), dt),
                    "neg_zero_out": n.asarray(-0.0, dt) + n.zeros((), dt) * 0}
        return f

    with x64(needs_x64):
        x = np.ones((6,), dt)
        got = didax.jit(build(dnp))(x)
        want = jax.jit(build(jnp))(x)
        assert_same(got, want, what=dtype)
        if "complex" not in dtype:
            assert np.signbit(np.asarray(got["neg_zero"], np.float64)).all()
            assert np.signbit(np.asarray(got["const"], np.float64)[3])


@pytest.mark.parametrize("args", [
    (2, 3), (2.0, 3), (2, 3.0), (2.0, 3.0), (True, 2), (True, False), (1 + 2j, 1),
    (np.float32(2), 3), (np.int8(2), 3), (np.int8(2), 3.5), (np.float16(2), 1 + 1j),
    (np.uint8(200), 100), (np.bool_(True), 2.5),
], ids=str)
def test_weak_types_of_python_scalars(args):
    same(lambda jx, n: jx.jit(lambda a, b: (a * b, a + 1, b, a * 0.5 - 1))(*args))


def test_weak_types_of_outputs_and_constants():
    same(lambda jx, n: jx.jit(lambda x: (2.0, 3, True, 1j, x))(n.ones(2, n.int8)))
    same(lambda jx, n: jx.jit(lambda x: (n.asarray(2.0), n.float32(2.0), n.arange(3)))(1))
    same(lambda jx, n: jx.jit(lambda x: x)(n.asarray(2.0)))
    same(lambda jx, n: jx.jit(lambda x: x.astype(float) * 2)(n.ones(2, n.int32)))
    same(lambda jx, n: jx.jit(lambda: ())())
    same(lambda jx, n: jx.jit(lambda x: None)(1.0))


def test_x64_python_scalars_and_int64_arguments():
    with x64():
        same(lambda jx, n: jx.jit(lambda a, b: (a * b, a / 3))(2, 3.0))
        same(lambda jx, n: jx.jit(lambda a: a + 1)(np.arange(3, dtype=np.int64)))
        same(lambda jx, n: jx.jit(lambda a: a + 1)(np.uint64(2**63 + 5)))
    # without x64, 64-bit NumPy inputs are canonicalized to 32 bits
    same(lambda jx, n: jx.jit(lambda a: a * 2)(np.arange(3.0)))
    same(lambda jx, n: jx.jit(lambda a: a * 2)(np.arange(3)))


def test_python_int_overflow_is_an_error_as_in_jax():
    e_d, e_j = same_error(lambda jx, n: jx.jit(lambda x: x)(2**40))
    assert "argument path is x" in str(e_d)


# ----------------------------------------------------------------------------------------
# static, donated and keyword arguments; pytrees; methods and partials
# ----------------------------------------------------------------------------------------


def test_static_argnums_control_shapes_and_unrolling():
    def power(n):
        def f(x, k):
            y = n.ones_like(x)
            for _ in range(k):
                y = y * x
            return y
        return f

    for k in (0, 1, 3):
        same(lambda jx, n, k=k: jx.jit(power(n), static_argnums=1)(n.arange(3.0), k))
        same(lambda jx, n, k=k: jx.jit(power(n), static_argnums=-1)(n.arange(3.0), k))
    same(lambda jx, n: jx.jit(lambda k, s: n.arange(k) * s, static_argnums=0)(4, 2.0))
    same(lambda jx, n: jx.jit(lambda x, k: x * k, static_argnums=(1,))(2.0, 3))


def test_static_argnames_and_their_positional_twins():
    def f(x, k=2, *, mode="mul"):
        return x * k if mode == "mul" else x + k

    for call in (lambda g, n: g(n.ones(2), k=3), lambda g, n: g(n.ones(2), 3),
                 lambda g, n: g(n.ones(2), 3, mode="add"), lambda g, n: g(n.ones(2))):
        same(lambda jx, n, c=call: c(jx.jit(f, static_argnames=("k", "mode")), n))
        same(lambda jx, n, c=call: c(jx.jit(f, static_argnums=1, static_argnames="mode"), n))


@pytest.mark.parametrize("spec", [
    dict(static_argnums=1), dict(static_argnames="s"), dict(static_argnums=-1)])
@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, np.ones(2)], ids=["list", "dict", "np"])
def test_unhashable_static_arguments_raise_as_jax(spec, value):
    def call(jx, n):
        f = jx.jit(lambda x, s: x, **spec)
        return f(1.0, s=value) if "static_argnames" in spec else f(1.0, value)

    # the message names the type; JAX's and didax's array types differ in name
    text = "exact" if not isinstance(value, np.ndarray) else "Non-hashable static arguments"
    same_error(call, text)


def test_static_array_argument_is_unhashable():
    e_d, e_j = same_error(
        lambda jx, n: jx.jit(lambda x, s: x, static_argnums=1)(1.0, n.ones(2)),
        "Non-hashable static arguments are not supported")
    # (JAX's C type is named jaxlib._jax.ArrayImpl in full; didax's Python type ArrayImpl)
    assert "unhashable type: 'ArrayImpl'" in str(e_d) and "ArrayImpl'" in str(e_j)


@pytest.mark.parametrize("spec", [
    dict(static_argnums=3), dict(static_argnums=(1, 2)), dict(static_argnums=-3),
    dict(donate_argnums=2), dict(static_argnames="q"), dict(static_argnames=("x", "q")),
    dict(donate_argnames="q")], ids=str)
def test_argument_specs_validated_at_decoration(spec):
    same_error(lambda jx, n: jx.jit(lambda x, y=1: x, **spec))


def test_argument_specs_with_varargs_and_positional_only():
    same(lambda jx, n: jx.jit(lambda *a: a[0] * a[3], static_argnums=3)(1.0, 2.0, 3.0, 4))
    same(lambda jx, n: jx.jit(lambda x, **k: x * k["q"], static_argnames="q")(1.0, q=2))

    def pos_only(x, /, y):
        return x * y

    same_error(lambda jx, n: jx.jit(pos_only, static_argnames="x"))
    same(lambda jx, n: jx.jit(pos_only, static_argnums=0)(2.0, 3.0))


def test_non_array_arguments_raise_as_jax():
    def f(x, s):
        return x

    for args, kwargs in [((1.0, "abc"), {}), ((1.0, {"a": [1, object()]}), {}),
                         ((1.0,), {"s": object()})]:
        e_d, e_j = same_error(lambda jx, n, a=args, k=kwargs: jx.jit(f)(*a, **k), "class")
        tail = lambda e: str(e).split(" as an abstract array.", 1)[1]  # noqa: E731
        assert tail(e_d) == tail(e_j)  # the path of the bad leaf, then JAX's advice
    same_error(lambda jx, n: jx.jit(lambda x: "abc")(1.0), "class")


def test_donate_argnums_accepted_and_recorded():
    def f(x, y):
        return x + y, x * 2

    same(lambda jx, n: jx.jit(f, donate_argnums=0)(n.ones(3), n.ones(3)))
    same(lambda jx, n: jx.jit(f, donate_argnums=(0, 1))(n.ones(3), n.ones(3)))
    same(lambda jx, n: jx.jit(f, donate_argnames="y")(n.ones(3), n.ones(3)))
    for spec in (dict(donate_argnums=1), dict(donate_argnums=(0, 1))):
        texts = [str(jx.make_jaxpr(jx.jit(f, **spec))(np.ones(3, np.float32),
                                                     np.ones(3, np.float32)))
                 for jx in (didax, jax)]
        assert texts[0] == texts[1]
        assert "donated_invars=" in texts[0]


def test_keyword_arguments_and_defaults():
    def f(x, y=2.0, *, z=1):
        return x * y + z

    for call in (lambda g, n: g(n.ones(2)), lambda g, n: g(n.ones(2), 3.0),
                 lambda g, n: g(n.ones(2), y=n.arange(2.0)), lambda g, n: g(x=n.ones(2), z=5),
                 lambda g, n: g(n.ones(2), z=n.int8(3))):
        same(lambda jx, n, c=call: c(jx.jit(f), n))


Point = namedtuple("Point", ["x", "y"])


def test_pytree_inputs_and_outputs():
    def f(p, d, lst, none):
        assert none is None
        return {"sum": p.x + p.y, "nested": (d["a"] * 2, [d["b"][0] - 1]),
                "lst": lst[::-1], "pt": Point(p.y, p.x), "empty": ()}

    def args(n):
        return (Point(n.ones(2), 2.0), {"a": n.arange(3), "b": (n.float32(1),)},
                [1, 2.0, True], None)

    same(lambda jx, n: jx.jit(f)(*args(n)))


def test_registered_pytree_class():
    def make(tree_util):
        @tree_util.register_pytree_node_class
        class Pair:
            def __init__(self, a, b):
                self.a, self.b = a, b

            def tree_flatten(self):
                return (self.a, self.b), None

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)

        return Pair

    def call(jx, n):
        pair = make(jx.tree_util)
        out = jx.jit(lambda p: pair(p.b * 2, p.a + 1))(pair(n.ones(2), 3.0))
        return out.a, out.b

    same(call)


def test_array_methods_on_tracers():
    """`x.var()` on a staged value is the array method (no tracer field shadows it)."""
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    same(lambda jx, n: jx.jit(lambda a: a.var(-1) + a.std() * a.mean())(m))
    same(lambda jx, n: jx.grad(lambda a: a.var())(m))


def test_partials_and_methods():
    def f(a, x, b):
        return a * x + b

    class Scaler:
        def __init__(self, s):
            self.s = s

        def apply(self, x):
            return x * self.s

        def __hash__(self):
            return hash(self.s)

        def __eq__(self, other):
            return isinstance(other, Scaler) and other.s == self.s

    same(lambda jx, n: jx.jit(functools.partial(f, 2.0, b=-1.0))(n.arange(3.0)))
    same(lambda jx, n: jx.jit(Scaler(4.0).apply)(n.arange(3.0)))
    same(lambda jx, n: jx.jit(Scaler.apply, static_argnums=0)(Scaler(2.0), n.arange(3.0)))

    def with_jitted_method(jx):
        class Model:
            def __init__(self, w):
                self.w = w

            @functools.partial(jx.jit, static_argnums=0)
            def __call__(self, x):
                return x * self.w

            def __hash__(self):
                return id(self)

        return Model(3.0)(np.float32(2.0))

    assert_same(with_jitted_method(didax), with_jitted_method(jax))


def test_jitted_function_metadata():
    def named(x, y):
        """Doc."""
        return x

    jf = didax.jit(named)
    assert jf.__name__ == "named" and jf.__doc__ == "Doc." and jf.__wrapped__ is named
    assert repr(jf).startswith("<PjitFunction of <function test_jitted_function_metadata")
    assert didax.jit(np.sin).__name__ == "sin"
    same_error(lambda jx, n: jx.jit(3))


# ----------------------------------------------------------------------------------------
# tracing once per cache key
# ----------------------------------------------------------------------------------------


def _trace_counts(jx, n, calls, **jit_kw):
    count = [0]

    def f(x, y=1.0, *, z=2):
        count[0] += 1
        return x * y + z

    g = jx.jit(f, **jit_kw)
    seen = []
    for args, kwargs in calls(n):
        g(*args, **kwargs)
        seen.append(count[0])
    if jx is didax:
        assert g.trace_count == count[0]
    return seen


def test_traces_once_per_signature_including_weak_types():
    def calls(n):
        return [((1.0,), {}), ((2.0,), {}), ((2,), {}), ((np.float32(2),), {}),
                ((n.float32(2),), {}), ((n.ones(3),), {}), ((n.ones(3),), {}),
                ((n.ones(4),), {}), ((n.ones(3), 2.0), {}), ((n.ones(3),), {"y": 2.0}),
                ((n.ones(3),), {"y": 3.0}), ((n.ones(3),), {"z": 3}),
                ((n.ones(3, n.int32),), {}), ((np.ones(3),), {}), ((n.asarray(2.0),), {}),
                ((True,), {}), ((n.ones(3),), {})]

    d = _trace_counts(didax, dnp, calls)
    j = _trace_counts(jax, jnp, calls)
    assert d == j


def test_static_values_are_keyed_by_value_and_type():
    def calls(n):
        return [((1.0, 2), {}), ((1.0, 2), {}), ((1.0, 3), {}), ((2.0, 3), {}),
                ((1.0, 3.0), {}), ((1.0, True), {}), ((1.0, 2), {})]

    assert (_trace_counts(didax, dnp, calls, static_argnums=1)
            == _trace_counts(jax, jnp, calls, static_argnums=1))

    def kw_calls(n):
        return [((1.0,), {"z": 2}), ((1.0,), {"z": 2}), ((1.0,), {"z": 3}),
                ((1.0,), {"z": 3.0})]

    assert (_trace_counts(didax, dnp, kw_calls, static_argnames="z")
            == _trace_counts(jax, jnp, kw_calls, static_argnames="z"))


def test_cached_calls_skip_python_and_clear_cache_retraces():
    count = [0]

    def f(x):
        count[0] += 1
        return x + 1

    g = didax.jit(f)
    for _ in range(3):
        g(dnp.ones(2))
        g(np.ones(2, np.float32))
    assert count[0] == 1 and g.trace_count == 1 and g._cache_size() == 1
    g.clear_cache()
    g(dnp.ones(2))
    assert g.trace_count == 2


def test_none_returning_function_runs_once_per_call():
    log = []
    g = didax.jit(lambda x: didax.debug.callback(lambda v: log.append(1), x))
    for _ in range(3):
        assert g(dnp.ones(2)) is None
    assert log == [1, 1, 1]


def test_disable_jit_runs_python_even_after_caching():
    seen = []

    def f(x):
        seen.append(type(x).__name__)
        return x * 2

    g = didax.jit(f)
    g(dnp.ones(2))
    g(dnp.ones(2))
    with didax.disable_jit():
        out = g(dnp.ones(2))
    assert seen == ["DynamicJaxprTracer", "ArrayImpl"]  # (JAX's array type name)
    np.testing.assert_array_equal(out, [2.0, 2.0])


# ----------------------------------------------------------------------------------------
# jit of jit, and composability with the other transformations
# ----------------------------------------------------------------------------------------


def _nested_calls(jx, n):
    """JAX's core_test fun_with_nested_calls_2: jits that close over outer tracers."""
    def foo(x):
        @jx.jit
        def bar(y):
            def baz(w):
                q = jx.jit(lambda x: y)(x)
                q = q + jx.jit(lambda: y)()
                q = q + jx.jit(lambda y: w + y)(y)
                q = jx.jit(lambda w: jx.jit(n.sin)(x) * y)(1.0) + q
                return q
            p, t = jx.jvp(baz, (x + 1.0,), (y,))
            return t + (x * p)
        return bar(x)
    return foo


COMPOSITIONS = {
    "eval": lambda jx, f: f(3.0),
    "jit": lambda jx, f: jx.jit(f)(3.0),
    "jvp": lambda jx, f: jx.jvp(f, (3.0,), (5.0,)),
    "jvp_jit": lambda jx, f: jx.jvp(jx.jit(f), (3.0,), (5.0,)),
    "grad": lambda jx, f: jx.grad(f)(3.0),
    "grad_jit": lambda jx, f: jx.grad(jx.jit(f))(3.0),
    "jit_grad_jit": lambda jx, f: jx.jit(jx.grad(jx.jit(f)))(3.0),
    "grad_grad": lambda jx, f: jx.grad(jx.grad(f))(3.0),
    "grad_grad_jit": lambda jx, f: jx.grad(jx.grad(jx.jit(f)))(3.0),
    "grad_jit_grad": lambda jx, f: jx.grad(jx.jit(jx.grad(f)))(3.0),
    "jit_grad_grad": lambda jx, f: jx.jit(jx.grad(jx.grad(f)))(3.0),
    "jvp_grad": lambda jx, f: jx.jvp(jx.grad(f), (3.0,), (1.0,)),
    "jvp_jit_grad": lambda jx, f: jx.jvp(jx.jit(jx.grad(f)), (3.0,), (1.0,)),
    "hessian": lambda jx, f: jx.hessian(f)(3.0),
    "hessian_jit": lambda jx, f: jx.hessian(jx.jit(f))(3.0),
    "linearize": lambda jx, f: jx.linearize(f, 3.0)[1](2.0),
    "linearize_jit": lambda jx, f: jx.linearize(jx.jit(f), 3.0)[1](2.0),
    "vjp_jit": lambda jx, f: jx.vjp(jx.jit(f), 3.0)[1](1.5),
    "vmap": lambda jx, f: jx.vmap(f)(jx.numpy.array([1.0, 2.0, 3.0])),
    "vmap_grad": lambda jx, f: jx.vmap(jx.grad(f))(jx.numpy.array([1.0, 2.0, 3.0])),
    "jit_vmap_jit_grad": lambda jx, f: jx.jit(jx.vmap(jx.jit(jx.grad(f))))(
        jx.numpy.array([1.0, 2.0, 3.0])),
    "jacfwd_jacrev": lambda jx, f: jx.jacfwd(jx.jacrev(jx.jit(f)))(3.0),
}


@pytest.mark.parametrize("comp", list(COMPOSITIONS))
def test_nested_calls_compose_as_jax(comp):
    call = COMPOSITIONS[comp]
    same(lambda jx, n: call(jx, _nested_calls(jx, n)), scale=10)


def test_nested_calls_all_orders_agree():
    """The seed's stress test: every value, derivative and second derivative agrees."""
    f = _nested_calls(didax, dnp)
    vals = [COMPOSITIONS[k](didax, f) for k in ("eval", "jit")]
    vals += [COMPOSITIONS[k](didax, f)[0] for k in ("jvp", "jvp_jit")]
    np.testing.assert_allclose(np.array(vals, np.float64), float(vals[0]), rtol=1e-6)
    d1 = [COMPOSITIONS[k](didax, f) for k in ("grad", "grad_jit", "jit_grad_jit")]
    d1 += [didax.jvp(f, (3.0,), (1.0,))[1], didax.jvp(didax.jit(f), (3.0,), (1.0,))[1]]
    np.testing.assert_allclose(np.array(d1, np.float64), float(d1[0]), rtol=1e-5)
    d2 = [COMPOSITIONS[k](didax, f) for k in ("grad_grad", "grad_grad_jit", "grad_jit_grad",
                                               "jit_grad_grad", "hessian", "hessian_jit")]
    d2 += [COMPOSITIONS[k](didax, f)[1] for k in ("jvp_grad", "jvp_jit_grad")]
    np.testing.assert_allclose(np.array(d2, np.float64), float(d2[0]), rtol=1e-4)


def test_inner_jit_capturing_batched_and_differentiated_values():
    def f(jx, n):
        def g(x, c):
            @jx.jit
            def h(y):
                return x * y + c
            return h(n.arange(3.0)) * x
        return g

    same(lambda jx, n: jx.vmap(f(jx, n), in_axes=(0, None))(n.array([1.0, 2.0, -1.0]), 0.5))
    same(lambda jx, n: jx.jit(jx.vmap(f(jx, n), in_axes=(0, None)))(n.array([1.0, 2.0]), 0.5))
    same(lambda jx, n: jx.vmap(jx.grad(lambda x: n.sum(f(jx, n)(x, 0.5))))(n.arange(3.0)))
    same(lambda jx, n: jx.grad(lambda c: n.sum(jx.vmap(f(jx, n), (0, None))(n.ones(2), c)))(
        0.5))
    same(lambda jx, n: jx.jacrev(lambda x: jx.jit(lambda y: n.sin(x) * y)(x))(n.arange(3.0)))


def test_jit_of_jit_and_reused_inner_functions():
    def build(jx, n):
        inner = jx.jit(lambda x, k: x * k + 1, static_argnums=1)
        return jx.jit(lambda x: inner(x, 2) + inner(x, 3) + inner(inner(x, 2), 2))

    same(lambda jx, n: build(jx, n)(n.arange(3.0)))
    same(lambda jx, n: jx.grad(lambda x: n.sum(build(jx, n)(x)))(n.arange(3.0)))
    same(lambda jx, n: jx.vmap(build(jx, n))(n.ones((2, 3))))


def test_integer_and_boolean_outputs_under_differentiation():
    def f(n):
        return lambda x: (n.sin(x), n.floor(x).astype(n.int32), x > 0)

    same(lambda jx, n: jx.jvp(jx.jit(f(n)), (n.arange(3.0),), (n.ones(3),)))
    same(lambda jx, n: jx.vjp(jx.jit(lambda x: f(n)(x)[0]), n.arange(3.0))[1](n.ones(3)))
    same(lambda jx, n: jx.grad(lambda x: jx.jit(f(n))(x)[0].sum())(n.arange(3.0)))


# ----------------------------------------------------------------------------------------
# jaxpr text of jit compositions
# ----------------------------------------------------------------------------------------


def _sin_mul(jx, n):
    @jx.jit
    def g(x, y):
        return n.sin(x) * y + 2.0
    return g


JAXPRS = {
    "jit": lambda jx, n: jx.make_jaxpr(_sin_mul(jx, n))(1.0, 2.0),
    "jit_array": lambda jx, n: jx.make_jaxpr(_sin_mul(jx, n))(np.ones(3, np.float32), 2.0),
    "grad_jit": lambda jx, n: jx.make_jaxpr(jx.grad(_sin_mul(jx, n)))(1.0, 2.0),
    "grad_jit_argnums": lambda jx, n: jx.make_jaxpr(jx.grad(_sin_mul(jx, n), (0, 1)))(1.0,
                                                                                      2.0),
    "value_and_grad_jit": lambda jx, n: jx.make_jaxpr(jx.value_and_grad(
        jx.jit(lambda x: n.sum(n.tanh(x) ** 2))))(np.ones(3, np.float32)),
    "vmap_jit": lambda jx, n: jx.make_jaxpr(jx.vmap(_sin_mul(jx, n), (0, None)))(
        np.ones(3, np.float32), 2.0),
    "vmap_jit_out_axes": lambda jx, n: jx.make_jaxpr(jx.vmap(
        jx.jit(lambda x, y: (x * y, y)), (1, None), (1, 0)))(np.ones((2, 3), np.float32), 2.0),
    "jvp_jit": lambda jx, n: jx.make_jaxpr(
        lambda x, y: jx.jvp(_sin_mul(jx, n), (x, y), (x, y)))(1.0, 2.0),
    "jvp_jit_zero_tangent": lambda jx, n: jx.make_jaxpr(
        lambda x, y: jx.jvp(lambda a: _sin_mul(jx, n)(a, y), (x,), (x,)))(1.0, 2.0),
    "linearize_jit": lambda jx, n: jx.make_jaxpr(
        lambda x, y: jx.linearize(_sin_mul(jx, n), x, y)[1](x, y))(1.0, 2.0),
    "vjp_jit": lambda jx, n: jx.make_jaxpr(
        lambda x: jx.vjp(_sin_mul(jx, n), x, 2.0)[1](1.0))(1.0),
    "jit_jit": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x: _sin_mul(jx, n)(x, x) * 2))(1.0),
    "jit_const": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x: x + n.arange(3.0)))(1.0),
    "jit_closure": lambda jx, n: jx.make_jaxpr(lambda x: jx.jit(lambda y: x * y)(3.0))(1.0),
    "jit_static": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x, k: x * k, static_argnums=1),
                                              static_argnums=1)(1.0, 3),
    "jit_pytree": lambda jx, n: jx.make_jaxpr(jx.jit(lambda d: {"a": d["x"] + d["y"][0]}))(
        {"x": 1.0, "y": (np.float32(2),)}),
    "jit_unused": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x, y: x))(1.0, 2.0),
    "jit_keep_unused": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x, y: x, keep_unused=True))(
        1.0, 2.0),
    "jit_int": lambda jx, n: jx.make_jaxpr(jx.jit(lambda x: x // 2 + (x > 1)))(np.int32(3)),
    "grad_jit_reduce": lambda jx, n: jx.make_jaxpr(jx.grad(jx.jit(
        lambda x: n.sum(n.tanh(x) ** 2))))(np.ones(3, np.float32)),
    "jit_grad": lambda jx, n: jx.make_jaxpr(jx.jit(jx.grad(lambda x: n.sin(x) * x)))(1.0),
    "grad_grad_jit": lambda jx, n: jx.make_jaxpr(jx.grad(jx.grad(jx.jit(
        lambda x: n.sin(x) * x))))(1.0),
    "jit_inline": lambda jx, n: jx.make_jaxpr(
        lambda x: jx.jit(lambda y: y * 2, inline=True)(x) + jx.jit(n.sin)(x))(1.0),
    "grad_jit_inline": lambda jx, n: jx.make_jaxpr(jx.grad(
        lambda x: jx.jit(lambda y: y * x, inline=True)(x)))(1.0),
    "jit_multiple_outputs": lambda jx, n: jx.make_jaxpr(jx.jit(
        lambda x: (x, x * 2, 3.0, n.int8(1))))(1.0),
}


@pytest.mark.parametrize("name", list(JAXPRS))
def test_jaxpr_text_as_jax(name):
    d = str(JAXPRS[name](didax, dnp))
    j = str(JAXPRS[name](jax, jnp))
    assert d == j, f"didax:\n{d}\nJAX:\n{j}"


# ----------------------------------------------------------------------------------------
# didax.Array
# ----------------------------------------------------------------------------------------

REPR_VALUES = [
    lambda n: n.arange(5.0), lambda n: n.arange(30.0), lambda n: n.arange(12.0).reshape(3, 4),
    lambda n: n.ones((2, 2, 2)), lambda n: n.zeros((0,)), lambda n: n.zeros((0, 3)),
    lambda n: n.zeros((2, 0)), lambda n: n.asarray(2.0), lambda n: n.asarray(3),
    lambda n: n.asarray(True), lambda n: n.array([1 + 2j, -1j]), lambda n: n.arange(10,
                                                                                     dtype=n.uint8),
    lambda n: n.array([1e10, 1.0]), lambda n: n.array([1e-10, 1.0]),
    lambda n: n.array([np.nan, np.inf, -np.inf, -0.0]), lambda n: n.ones(3, n.bfloat16) / 3,
    lambda n: n.ones(4, n.float16) / 4, lambda n: n.arange(200.0) / 8,
    lambda n: n.arange(1000), lambda n: n.array([True, False]),
    lambda n: n.arange(6.0).reshape(1, 2, 3) * 1000.5, lambda n: n.float32(1) / 3,
    lambda n: n.linspace(-1, 1, 17) * 1e-3,
]


@pytest.mark.parametrize("i", range(len(REPR_VALUES)))
def test_repr_and_str_as_jax(i):
    make = REPR_VALUES[i]
    d, j = make(dnp), make(jnp)
    assert repr(d) == repr(j)
    assert str(d) == str(j)


def test_repr_of_random_vectors_as_jax():
    rng = np.random.default_rng(0)
    for n in (1, 2, 3, 5, 6, 7, 9, 11, 13, 17, 23, 29):  # around the line-width breaks
        for dt in ("float32", "int32", "float16", "complex64", "int8"):
            for scale in (1, 1000, 1e-3):
                v = (rng.normal(size=n) * scale).astype(dt)
                assert repr(dnp.asarray(v)) == repr(jnp.asarray(v))
    for w in (2.5, 7, 1j):
        assert repr(dnp.asarray(w) * 2) == repr(jnp.asarray(w) * 2)


def test_array_attributes():
    for make in REPR_VALUES:
        d, j = make(dnp), make(jnp)
        assert (d.shape, d.dtype, d.ndim, d.size, d.itemsize, d.nbytes) == (
            j.shape, j.dtype, j.ndim, j.size, j.itemsize, j.nbytes)
        assert d.weak_type == j.weak_type
    out = didax.jit(lambda x: x * 2)(dnp.ones((2, 3)))
    assert isinstance(out, didax.Array) and out.shape == (2, 3) and out.dtype == np.float32


def test_isinstance_array_holds_for_tracers():
    def call(jx, n):
        seen = []
        jx.jit(lambda x: seen.append(isinstance(x, jx.Array)) or x)(1.0)
        jx.grad(lambda x: seen.append(isinstance(x, jx.Array)) or x)(1.0)
        jx.vmap(lambda x: seen.append(isinstance(x, jx.Array)) or x)(np.ones(2))
        return seen + [isinstance(n.ones(2), jx.Array), isinstance(np.ones(2), jx.Array),
                       isinstance(1.0, jx.Array)]

    assert call(didax, dnp) == call(jax, jnp) == [True] * 4 + [False, False]


def test_array_protocol():
    d = didax.jit(lambda x: x * 2)(dnp.arange(4.0))
    a = np.asarray(d)
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    assert not a.flags.writeable  # Arrays are immutable (as JAX's)
    np.testing.assert_array_equal(a, [0, 2, 4, 6])
    assert np.asarray(d, np.float64).dtype == np.float64
    c = np.array(d, copy=True)
    assert c.flags.writeable
    assert d.__array__(copy=True).flags.writeable
    assert np.asarray(dnp.ones(2, dnp.bfloat16)).dtype == BF16
    assert d.tolist() == [0.0, 2.0, 4.0, 6.0] and dnp.asarray(3).item() == 3
    assert type(np.ones(4) + d).__name__ == "ArrayImpl"  # __array_priority__: didax wins


@pytest.mark.parametrize("op", [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.lt, operator.le, operator.eq, operator.ne,
    operator.gt, operator.ge, operator.and_, operator.or_, operator.xor, operator.lshift,
    operator.rshift, operator.matmul], ids=lambda o: o.__name__)
def test_operators_as_jax(op):
    floaty = op not in (operator.and_, operator.or_, operator.xor, operator.lshift,
                        operator.rshift)

    def call(jx, n):
        x = n.arange(1.0, 5.0).reshape(2, 2) if floaty else n.arange(1, 5).reshape(2, 2)
        y = n.full((2, 2), 2.0) if floaty else n.full((2, 2), 2)
        other = 3.0 if floaty else 3
        if op is operator.matmul:  # no scalar operands
            return [op(x, y), op(np.asarray(y), x), jx.jit(op)(x, y), op(x, y[0])]
        return [op(x, y), op(x, other), op(other, x), op(np.asarray(y), x),
                jx.jit(lambda a, b: op(a, b))(x, other)]

    same(call)


def test_unary_operators_and_conversions():
    same(lambda jx, n: [-n.arange(3), +n.arange(3.0), abs(n.array([-1, 2])), ~n.array([1, 2]),
                        ~n.array([True, False])])
    x = didax.jit(lambda v: v + 0.7)(dnp.float32(2.0))
    assert float(x) == pytest.approx(2.7) and int(x) == 2 and complex(x) == pytest.approx(2.7)
    assert bool(dnp.asarray(1)) and not bool(dnp.zeros(()))
    assert [1, 2, 3][dnp.int32(2)] == 3
    assert f"{dnp.float32(2.5):.3f}" == "2.500" and f"{dnp.arange(2)}" == "[0 1]"
    for conv in (int, float, complex):
        same_error(lambda jx, n, c=conv: c(n.ones(2)))
        same_error(lambda jx, n, c=conv: c(n.ones((1, 1))))
    for bad in (lambda n: n.asarray(True), lambda n: n.ones(1, n.int32),
                lambda n: n.asarray(1.0)):
        same_error(lambda jx, n, b=bad: operator.index(b(n)))
    same_error(lambda jx, n: float(n.asarray(1 + 2j)), "class")
    same_error(lambda jx, n: bool(n.ones(2)))
    same_error(lambda jx, n: len(n.ones(())))
    same_error(lambda jx, n: list(n.ones(())))
    same_error(lambda jx, n: hash(n.ones(2)), "unhashable type")


def test_indexing_and_iteration():
    def call(jx, n):
        x = jx.jit(lambda v: v * 2)(n.arange(12.0).reshape(3, 4))
        return [x[1], x[1, ::2], x[:, -1], x[None, 0], x[..., 1:3], x[n.array([0, 2])],
                x[x > 10], list(x)[2], len(x), x.T, x.reshape(4, 3)[3]]

    same(call)


def test_block_until_ready_and_device_api():
    x = didax.jit(lambda v: v + 1)(dnp.ones(3))
    assert x.block_until_ready() is x and x.is_ready()
    tree = {"a": x, "b": (dnp.ones(2), 3)}
    assert didax.block_until_ready(tree) is tree
    assert str(x.devices()) == str(jnp.ones(2).devices())
    assert str(x.device) == "cpu:0" and x.devices() == {x.device}
    assert [str(d) for d in didax.devices()] == [str(d) for d in jax.devices()]
    assert x.is_fully_addressable is jnp.ones(2).is_fully_addressable is True
    assert x.is_fully_replicated
    assert isinstance(x.unsafe_buffer_pointer(), int)


def test_device_put_as_jax():
    same(lambda jx, n: jx.device_put(np.ones(3)))
    same(lambda jx, n: jx.device_put({"a": 1.0, "b": np.arange(3, dtype=np.int64), "c": True}))
    same(lambda jx, n: jx.device_put(n.arange(3.0), jx.devices()[0]))
    same(lambda jx, n: jx.device_put(2))
    # strided and broadcast views (copied to contiguous memory first)
    same(lambda jx, n: jx.device_put(np.arange(24.0).reshape(4, 6)[::2, ::-1]))
    same(lambda jx, n: jx.device_put(np.broadcast_to(np.float32(3), (2, 3))))
    same(lambda jx, n: jx.jit(lambda a: a * 2)(np.arange(12).reshape(3, 4).T))
    x = didax.device_put(np.arange(3.0, dtype=np.float32))
    assert isinstance(x, didax.Array) and x.devices() == {didax.devices()[0]}
    assert didax.device_get(x).tolist() == [0.0, 1.0, 2.0]


def test_arrays_do_not_alias_numpy_inputs():
    for make in (dnp.asarray, dnp.array, lambda a: didax.jit(lambda v: v)(a)):
        a = np.ones(3, np.float32)
        x = make(a)
        a[0] = 5.0
        assert np.asarray(x).tolist() == [1.0, 1.0, 1.0]


def test_device_put_does_not_alias_numpy_inputs():
    a = np.ones(3, np.float32)
    x = didax.device_put(a)
    a[0] = 5.0
    assert np.asarray(x).tolist() == [1.0, 1.0, 1.0]


def test_host_values_round_trip_through_devices():
    for dt in ("float32", "bfloat16", "float16", "int8", "uint32", "bool", "complex64"):
        v = _value(np.random.default_rng(1), (3, 2), dt)
        on_device = didax.device_put(v)
        out = didax.jit(lambda a: a)(on_device)
        np.testing.assert_array_equal(np.asarray(out), v)
        assert out.dtype == v.dtype


def test_pickle_and_copy():
    import copy

    x = didax.jit(lambda v: v * 2)(dnp.arange(3.0))
    y = pickle.loads(pickle.dumps(x))
    assert repr(y) == repr(x)
    w = pickle.loads(pickle.dumps(dnp.asarray(2.0)))
    assert w.weak_type
    assert copy.copy(x) is x and copy.deepcopy(x) is x


def test_deleted_and_escaped_values():
    x = didax.device_put(np.ones(2, np.float32))
    x.delete()
    assert x.is_deleted()
    leaked = []
    didax.jit(lambda v: leaked.append(v) or v)(1.0)
    e = raised(lambda: didax.jit(lambda y: y + leaked[0])(1.0))
    assert e is not None and "UnexpectedTracerError" in type(e).__name__


# ----------------------------------------------------------------------------------------
# the engine never imports jax
# ----------------------------------------------------------------------------------------

NO_JAX_WORKLOAD = textwrap.dedent("""
    import sys
    import numpy as np
    import didax
    import didax.numpy as jnp
    from didax import lax, random, viz
    from didax.experimental import io_callback

    f = didax.jit(lambda x, y: jnp.sin(x) @ y + 1.0)
    x = jnp.ones((3, 3))
    f(x, x); didax.grad(lambda a: jnp.sum(f(a, a)))(x)
    didax.vmap(didax.jacfwd(lambda a: jnp.tanh(a) * 2))(x)
    didax.hessian(lambda a: jnp.sum(a ** 3))(jnp.arange(3.0))
    lowered = f.lower(x, x)
    lowered.as_text(); compiled = lowered.compile(); compiled(x, x)
    compiled.as_text(); compiled.cost_analysis(); compiled.memory_analysis()

    @didax.custom_jvp
    def g(a):
        return jnp.exp(a)
    g.defjvp(lambda p, t: (g(p[0]), g(p[0]) * t[0]))
    didax.jit(didax.grad(g))(1.0)
    didax.pure_callback(lambda a: np.asarray(a) * 2, didax.ShapeDtypeStruct((), np.float32),
                        jnp.float32(1.0))
    didax.jit(lambda a: io_callback(lambda v: None, None, a, ordered=True))(1.0)
    didax.jit(lambda a: didax.debug.print("a={}", a))(1.0)
    k = random.split(random.key(0))[0]
    random.normal(k, (3,))
    didax.make_jaxpr(lambda a: a * 2)(1.0)
    with viz.capture() as cards:
        didax.grad(lambda a: jnp.sum(jnp.sin(a)))(x)
        f(x, x)
    assert len(cards) == 2 and all(c["error"] is None for c in cards), cards
    bad = sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))
    print("JAX-MODULES:", bad)
""")


def test_engine_never_imports_jax():
    proc = subprocess.run([sys.executable, "-c", NO_JAX_WORKLOAD], capture_output=True,
                          text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "JAX-MODULES: []" in proc.stdout, proc.stdout
