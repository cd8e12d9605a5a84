"""The transformations against JAX: jvp, linearize, vjp, grad/value_and_grad, jacfwd,
jacrev, hessian, vmap, make_jaxpr, eval_shape — values, pytree structures, dtypes and weak
types, nesting, Python control flow on concrete values, closures over tracers,
perturbation confusion, and the errors JAX raises (class and message), including
concretization errors under make_jaxpr and leaked tracers.

Each test runs `call(top, jnp, lax)` with didax's modules and with JAX's and compares.
"""

from __future__ import annotations

import inspect
import re

import didax
import jax
import numpy as np
import pytest
from oracle import assert_same_error, raised, same, x64_mode

x3 = np.array([0.5, -1.25, 2.0], np.float32)
m23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
tree_in = {"w": m23, "b": (x3, np.float32(0.3))}


def both_raise(call, message="exact"):
    """call(top, jnp, lax) raises the same error class (and first message line) on both."""
    e_j = raised(call, jax, jax.numpy, jax.lax)
    assert e_j is not None, "JAX did not raise"
    e_d = raised(call, didax, didax.numpy, didax.lax)
    assert e_d is not None, f"didax did not raise; JAX raised {type(e_j).__name__}: {e_j}"
    assert_same_error(e_d, e_j, message)
    return e_d


def loss(jnp, lax):
    def f(p):
        h = jnp.tanh(p["w"] @ p["b"][0] + p["b"][1])
        return jnp.sum(h ** 2) + lax.sin(p["b"][1])
    return f


# ----------------------------------------------------------------------------------------
# jvp / linearize / vjp
# ----------------------------------------------------------------------------------------


def test_jvp_pytrees():
    same(lambda top, jnp, lax: top.jvp(
        lambda a, b: {"s": lax.sin(a) * b[0], "t": (jnp.sum(a), b[1])},
        (x3, (x3, np.float32(2.0))), (x3 * 0 + 1, (x3, np.float32(1.0)))))


def test_jvp_has_aux():
    same(lambda top, jnp, lax: top.jvp(lambda a: (jnp.sin(a), {"aux": a * 2}), (x3,), (x3,),
                                       has_aux=True))


def test_jvp_of_integer_function_gives_float0():
    same(lambda top, jnp, lax: top.jvp(lambda a, i: (a * 2, i + 1), (x3, np.int32(3)),
                                       (x3, np.zeros((), jax.dtypes.float0))))


@pytest.mark.parametrize("case", ["dtype", "shape", "tree", "not_tuple"])
def test_jvp_errors(case):
    args = {"dtype": ((x3,), (x3.astype(np.float16),)), "shape": ((x3,), (x3[:2],)),
            "tree": ((x3,), ((x3,),)), "not_tuple": (x3, x3)}[case]
    both_raise(lambda top, jnp, lax: top.jvp(jnp.sin, *args))


def test_linearize():
    def call(top, jnp, lax):
        y, f_jvp = top.linearize(lambda a, b: jnp.sin(a) * b, x3, np.float32(3.0))
        return y, f_jvp(x3, np.float32(1.0)), f_jvp(x3 * 0, np.float32(2.0))
    same(call)


def test_linearize_pytree_and_aux():
    def call(top, jnp, lax):
        y, f_jvp, aux = top.linearize(lambda p: (loss(jnp, lax)(p), p["w"].sum()), tree_in,
                                      has_aux=True)
        return y, aux, f_jvp(jax.tree_util.tree_map(np.ones_like, tree_in))
    same(call)


def test_vjp_pytrees_and_aux():
    def call(top, jnp, lax):
        out, pull, aux = top.vjp(lambda p: ((jnp.sin(p["w"]), p["b"][1] * 2),
                                            (p["w"] * 3, "aux")), tree_in, has_aux=True)
        assert aux[1] == "aux"  # aux may hold non-array leaves
        return out, aux[0], pull((np.ones((2, 3), np.float32), np.float32(1.0)))
    same(call)


def test_vjp_integer_input_cotangent_is_float0():
    def call(top, jnp, lax):
        _, pull = top.vjp(lambda a, i: a * i, x3, np.int32(2))
        return pull(np.ones(3, np.float32))
    same(call)


def test_vjp_wrong_cotangent_shape():
    def call(top, jnp, lax):
        _, pull = top.vjp(jnp.sin, x3)
        return pull(np.ones(2, np.float32))
    both_raise(call)


# ----------------------------------------------------------------------------------------
# grad / value_and_grad
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("argnums", [0, 1, -1, (0, 1), (1,), (0, 2)])
def test_grad_argnums(argnums):
    def call(top, jnp, lax):
        f = lambda a, b, c: jnp.sum(jnp.sin(a) * b) + c ** 2  # noqa: E731
        return top.value_and_grad(f, argnums=argnums)(x3, np.float32(2.0), 1.5)
    same(call)


def test_grad_pytree_has_aux():
    same(lambda top, jnp, lax: top.grad(lambda p: (loss(jnp, lax)(p), {"n": p["b"][1]}),
                                        has_aux=True)(tree_in))
    same(lambda top, jnp, lax: top.value_and_grad(
        lambda p: (loss(jnp, lax)(p), p["w"]), has_aux=True)(tree_in))


def test_grad_holomorphic():
    z = np.array([1 + 2j, -0.5 + 0.25j], np.complex64)
    same(lambda top, jnp, lax: top.grad(lambda a: jnp.sum(a ** 3 + jnp.sin(a)),
                                        holomorphic=True)(z))
    same(lambda top, jnp, lax: top.jacfwd(lambda a: a ** 2, holomorphic=True)(z))
    same(lambda top, jnp, lax: top.jacrev(lambda a: jnp.exp(a), holomorphic=True)(z))


def test_grad_allow_int():
    same(lambda top, jnp, lax: top.grad(lambda a, i: jnp.sum(a * i), argnums=(0, 1),
                                        allow_int=True)(x3, np.int32(3)))


def test_grad_python_scalar_weak_type():
    same(lambda top, jnp, lax: top.grad(lambda a, b: a * b + b, argnums=(0, 1))(2.0, 3.0))
    same(lambda top, jnp, lax: top.grad(lambda a, b: a * 2.0, argnums=1)(2.0, 3.0))


GRAD_ERRORS = {
    "non_scalar": lambda top, jnp, lax: top.grad(jnp.sin)(x3),
    "integer_output": lambda top, jnp, lax: top.grad(lambda a: jnp.int32(3) + 0 * jnp.int32(a)
                                                     )(1.0),
    "complex_output": lambda top, jnp, lax: top.grad(lambda a: a * 1j)(1.0),
    "integer_input": lambda top, jnp, lax: top.grad(lambda i: i * 2.0)(np.int32(2)),
    "argnums_range": lambda top, jnp, lax: top.grad(lambda a: a, argnums=2)(1.0),
    "holomorphic_real_input": lambda top, jnp, lax: top.grad(lambda a: a, holomorphic=True)(
        1.0),
    "holomorphic_real_output": lambda top, jnp, lax: top.grad(
        lambda a: jnp.real(a), holomorphic=True)(np.complex64(1j)),
    "jacfwd_complex_input": lambda top, jnp, lax: top.jacfwd(jnp.sin)(np.complex64(1j)),
    "jacfwd_int_input": lambda top, jnp, lax: top.jacfwd(lambda i: i * 2.0)(np.int32(1)),
    "jacrev_int_output": lambda top, jnp, lax: top.jacrev(lambda a: jnp.int32(1) + 0 * a.astype(
        jnp.int32))(np.float32(1)),
    "has_aux_not_pair": lambda top, jnp, lax: top.grad(lambda a: a, has_aux=True)(1.0),
}


@pytest.mark.parametrize("name", sorted(GRAD_ERRORS))
def test_grad_errors(name):
    both_raise(GRAD_ERRORS[name], message="class" if name == "has_aux_not_pair" else "exact")


# ----------------------------------------------------------------------------------------
# Jacobians and Hessians
# ----------------------------------------------------------------------------------------


def two_in_two_out(jnp, lax):
    return lambda a, b: {"p": jnp.sin(a) * b[0], "q": (jnp.sum(a ** 2) * b[1],)}


@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1)])
def test_jacobians_pytrees(jac, argnums):
    same(lambda top, jnp, lax: getattr(top, jac)(two_in_two_out(jnp, lax), argnums=argnums)(
        x3, (x3 * 2, np.float32(2.0))))


@pytest.mark.parametrize("jac", ["jacfwd", "jacrev"])
def test_jacobian_has_aux(jac):
    same(lambda top, jnp, lax: getattr(top, jac)(lambda a: (jnp.sin(a), a.sum()),
                                                 has_aux=True)(x3))


def test_hessian_pytree():
    same(lambda top, jnp, lax: top.hessian(loss(jnp, lax))(tree_in), scale=10)
    same(lambda top, jnp, lax: top.hessian(lambda a, b: jnp.sum(a ** 2 * b), argnums=(0, 1))(
        x3, np.float32(2.0)))


def test_jacobian_of_python_scalar():
    same(lambda top, jnp, lax: (top.jacfwd(lambda a: a ** 3)(2.0),
                                top.jacrev(lambda a: a ** 3)(2.0),
                                top.hessian(lambda a: a ** 3)(2.0)))


# ----------------------------------------------------------------------------------------
# nesting, control flow on concrete values, closures, perturbation confusion
# ----------------------------------------------------------------------------------------


def test_grad_of_grad_of_vmap():
    def call(top, jnp, lax):
        def f(a):
            return jnp.sum(top.vmap(lambda r: jnp.sin(r) * r[0])(jnp.stack([a, a * 2])))
        return top.grad(lambda s: top.grad(lambda t: f(x3 * t))(s))(1.5)
    same(call)


def test_vmap_of_grad_and_jvp_of_grad():
    same(lambda top, jnp, lax: top.vmap(top.grad(lambda a: jnp.sin(a) * a))(x3))
    same(lambda top, jnp, lax: top.jvp(top.grad(lambda a: a ** 3), (2.0,), (1.0,)))
    same(lambda top, jnp, lax: top.grad(lambda a: top.jvp(jnp.sin, (a,), (a,))[1])(0.7))


def test_jacfwd_of_jacrev_and_vmap_of_vmap():
    same(lambda top, jnp, lax: top.jacfwd(top.jacrev(lambda a: jnp.sin(a) * a.sum()))(x3))
    same(lambda top, jnp, lax: top.vmap(top.vmap(lambda a, b: a * b, (0, None)), (None, 0))(
        x3, m23[0]))


def test_python_control_flow_on_concrete_values_under_grad():
    def call(top, jnp, lax):
        def f(a, n):
            out = a
            for _ in range(n):
                out = jnp.sin(out) if out > 0 else out * out
            while out < 5.0:
                out = out * 2.0
            return out
        return [top.grad(f)(v, 3) for v in (0.5, -1.5)]
    same(call)


def test_closure_over_tracer():
    def call(top, jnp, lax):
        def outer(a):
            def inner(b):
                return jnp.sin(a * b) + a
            return top.grad(inner)(a) + inner(2.0)
        return top.grad(outer)(0.8), top.vmap(outer)(x3)
    same(call)


def test_perturbation_confusion():
    """d/dx [x * d/dy (x + y)] = 1 (not 2): nested differentiation keeps the tangents of
    different transformations apart."""
    def call(top, jnp, lax):
        g = top.grad(lambda x: x * top.grad(lambda y: x + y)(1.0))(3.0)
        h = top.jvp(lambda x: x * top.jvp(lambda y: x * y, (1.0,), (1.0,))[1], (2.0,), (1.0,))
        return g, h
    out = same(call)
    assert float(out[0]) == 1.0


# ----------------------------------------------------------------------------------------
# vmap
# ----------------------------------------------------------------------------------------

VMAP_CASES = {
    "int": (0, 0, (m23,)),
    "negative": (-1, 0, (m23,)),
    "none_and_int": ((None, 1), 0, (x3, m23)),
    "pytree_prefix": (({"w": 1, "b": (0, None)},), 0, (tree_in,)),
    "out_axes_negative": (0, -1, (m23,)),
    "out_axes_pytree": (0, {"a": 1, "b": None}, (m23,)),
    "list_in_axes": ([0, None], 0, (m23, x3)),
}


def _vmap_fn(jnp, name):
    if name == "pytree_prefix":
        return lambda p: p["w"].sum() * p["b"][0] + p["b"][1]
    if name == "out_axes_pytree":
        return lambda a: {"a": jnp.stack([a, a]), "b": 2.0}
    if name in ("none_and_int", "list_in_axes"):
        return lambda a, b: a * b.sum() if np.ndim(a) == 1 and np.ndim(b) == 1 else a + b
    return lambda a: jnp.cumsum(a) * a[0]


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_axes(name):
    in_axes, out_axes, args = VMAP_CASES[name]
    same(lambda top, jnp, lax: top.vmap(_vmap_fn(jnp, name), in_axes, out_axes)(*args))


def test_vmap_axis_size_and_kwargs():
    same(lambda top, jnp, lax: top.vmap(lambda a: a * 2.0, in_axes=None, axis_size=3)(x3))
    same(lambda top, jnp, lax: top.vmap(lambda a, *, k: a * k)(x3, k=x3))


VMAP_ERRORS = {
    "inconsistent_sizes": lambda top, jnp, lax: top.vmap(lambda a, b: a + b)(x3, m23),
    "in_axes_tree": lambda top, jnp, lax: top.vmap(lambda a: a, in_axes=(0, 0))(x3),
    "axis_out_of_range": lambda top, jnp, lax: top.vmap(jnp.sin, in_axes=2)(x3),
    "all_none": lambda top, jnp, lax: top.vmap(jnp.sin, in_axes=None)(x3),
    "out_axes_none_batched": lambda top, jnp, lax: top.vmap(jnp.sin, out_axes=None)(x3),
    "axis_size_mismatch": lambda top, jnp, lax: top.vmap(jnp.sin, axis_size=4)(x3),
}


@pytest.mark.parametrize("name", sorted(VMAP_ERRORS))
def test_vmap_errors(name):
    both_raise(VMAP_ERRORS[name])


# ----------------------------------------------------------------------------------------
# make_jaxpr / eval_shape / ShapeDtypeStruct
# ----------------------------------------------------------------------------------------


def test_make_jaxpr_static_argnums_and_kwargs():
    def call(top, jnp, lax):
        f = lambda a, n, scale=1.0: lax.integer_pow(a, n) * scale  # noqa: E731
        return (str(top.make_jaxpr(f, static_argnums=(1,))(x3, 3)),
                str(top.make_jaxpr(f, static_argnums=1)(x3, 2, scale=2.0)))
    assert call(didax, didax.numpy, didax.lax) == call(jax, jax.numpy, jax.lax)


def test_make_jaxpr_return_shape():
    def call(top, jnp, lax):
        closed, shape = top.make_jaxpr(lambda p: {"a": p["w"].sum(0), "b": 1.0},
                                       return_shape=True)(tree_in)
        return str(closed), jax.tree_util.tree_map(
            lambda s: (s.shape, str(s.dtype), s.weak_type), shape)
    got = call(didax, didax.numpy, didax.lax)
    want = call(jax, jax.numpy, jax.lax)
    assert got == want


def test_eval_shape():
    def call(top, jnp, lax):
        spec = top.ShapeDtypeStruct((4, 3), np.float32)
        out = top.eval_shape(lambda p, q: {"y": jnp.dot(q, p["w"].T), "n": p["b"][1] * 2},
                             tree_in, spec)
        return jax.tree_util.tree_map(lambda s: (s.shape, str(s.dtype), s.weak_type), out)
    assert call(didax, didax.numpy, didax.lax) == call(jax, jax.numpy, jax.lax)


def test_shape_dtype_struct():
    d = didax.ShapeDtypeStruct((2, 3), np.float32)
    j = jax.ShapeDtypeStruct((2, 3), np.float32)
    assert repr(d) == repr(j)
    assert d == didax.ShapeDtypeStruct((2, 3), np.float32)
    assert d != didax.ShapeDtypeStruct((2, 3), np.int32)
    assert hash(d) == hash(didax.ShapeDtypeStruct((2, 3), np.float32))
    assert (d.shape, d.dtype, d.ndim, d.size) == (j.shape, j.dtype, j.ndim, j.size)
    w = didax.ShapeDtypeStruct((), np.float32, weak_type=True)
    assert repr(w) == repr(jax.ShapeDtypeStruct((), np.float32, weak_type=True))
    with x64_mode(False):
        for dt in (np.float64, np.int64, np.float16, "bfloat16"):
            d, j = didax.ShapeDtypeStruct((1,), dt), jax.ShapeDtypeStruct((1,), dt)
            assert (repr(d), d.dtype) == (repr(j), j.dtype)


# ----------------------------------------------------------------------------------------
# concretization errors and leaked tracers
# ----------------------------------------------------------------------------------------


def _line_of(marker: str) -> int:
    src, start = inspect.getsourcelines(_concretize_programs)
    for i, line in enumerate(src):
        if marker in line:
            return start + i
    raise AssertionError(marker)


def _concretize_programs(jnp):
    def use_if(a):
        if a > 0:  # <if>
            return a
        return -a

    def use_bool(a):
        return bool(a > 0)  # <bool>

    def use_int(a):
        return jnp.zeros(int(a))  # <int>

    def use_float(a):
        return float(a) * 2  # <float>

    def use_index(a):
        return [1, 2, 3][a]  # <index>

    return {"if": use_if, "bool": use_bool, "int": use_int, "float": use_float,
            "index": use_index}


CONCRETIZE = {"if": ("TracerBoolConversionError", "Attempted boolean conversion"),
              "bool": ("TracerBoolConversionError", "Attempted boolean conversion"),
              "int": ("ConcretizationTypeError", "The problem arose with the `int` function"),
              "float": ("ConcretizationTypeError",
                        "The problem arose with the `float` function"),
              "index": ("TracerIntegerConversionError", "The __index__() method")}


@pytest.mark.parametrize("op", sorted(CONCRETIZE))
def test_concretization_errors_name_operation_and_line(op):
    arg = np.int32(1) if op in ("int", "index") else np.float32(1)
    e_d = raised(didax.make_jaxpr(_concretize_programs(didax.numpy)[op]), arg)
    e_j = raised(jax.make_jaxpr(_concretize_programs(jax.numpy)[op]), arg)
    assert_same_error(e_d, e_j, message="class")
    cls, words = CONCRETIZE[op]
    assert type(e_d).__name__ == type(e_j).__name__ == cls
    assert words in str(e_d) and words in str(e_j)
    assert str(e_d).splitlines()[0] == str(e_j).splitlines()[0]
    where = f"{__file__}:{_line_of(f'<{op}>')}"
    assert where in str(e_d), f"didax's message does not name {where}:\n{e_d}"


def test_concretization_under_jit_and_vmap_of_shape():
    both_raise(lambda top, jnp, lax: top.make_jaxpr(lambda a: jnp.ones(a.sum()))(x3),
               message="class")
    both_raise(lambda top, jnp, lax: top.vmap(lambda a: 1.0 if a > 0 else 0.0)(x3),
               message="class")


def test_concrete_values_allowed_under_grad_and_jvp():
    same(lambda top, jnp, lax: (top.grad(lambda a: a * 2 if a > 0 else -a)(3.0),
                                top.jvp(lambda a: a * int(a), (3.0,), (1.0,))))


@pytest.mark.parametrize("where", ["make_jaxpr", "jvp", "vmap"])
def test_leaked_tracer_raises_unexpected_tracer_error(where):
    def call(top, jnp, lax):
        box = []

        def leak(a):
            box.append(a * 2)
            return a
        if where == "make_jaxpr":
            top.make_jaxpr(leak)(x3)
        elif where == "jvp":
            top.jvp(leak, (x3,), (x3,))
        else:
            top.vmap(leak)(m23)
        return jnp.sin(box[0])
    e = both_raise(call, message="class")
    assert re.search("unexpected tracer", str(e), re.I) or "escape" in str(e)
