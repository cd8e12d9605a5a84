"""Ahead-of-time stages against JAX's: jit(f).trace(...) -> Traced, .lower(...) -> Lowered
(StableHLO text with a public @main), .compile() -> Compiled (optimized HLO, cost and
memory analysis), ShapeDtypeStruct inputs, the TypeErrors a Compiled raises for argument
type and pytree mismatches (JAX's text), and that a Compiled refuses transformations.
"""

from __future__ import annotations

import re
from functools import partial

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from didax.experimental import io_callback as d_io_callback
from jax.experimental import io_callback as j_io_callback
from jaxcompare import assert_same, raised, same, same_error, x64

F32 = np.float32


def _ones(*shape, dtype=F32):
    return np.ones(shape, dtype)


def _both(f_of, *args, **kwargs):
    """(didax stage, JAX stage) of f_of(jx, jnp_like)."""
    return (f_of(didax, dnp)(*args, **kwargs), f_of(jax, jnp)(*args, **kwargs))


# ----------------------------------------------------------------------------------------
# Traced
# ----------------------------------------------------------------------------------------


def test_trace_stage():
    def f(jx, n):
        return jx.jit(lambda x, y: (n.sin(x) * y, x)).trace

    td, tj = _both(f, 1.0, _ones(2))
    assert type(td).__name__ == type(tj).__name__ == "Traced"
    assert str(td.jaxpr) == str(tj.jaxpr)
    assert repr(td.out_info) == repr(tj.out_info)
    assert repr(td.args_info) == repr(tj.args_info)
    assert td.fun_name == tj.fun_name == "<lambda>"
    assert type(td.lower()).__name__ == "Lowered"


def test_trace_with_kwargs_statics_and_donation():
    def f(jx, n):
        g = jx.jit(lambda x, k, y=1.0: x * k + y, static_argnums=1, donate_argnums=0)
        return g.trace(n.ones(3), 2, y=n.float32(4.0))

    td, tj = f(didax, dnp), f(jax, jnp)
    assert str(td.jaxpr) == str(tj.jaxpr)
    assert repr(td.args_info) == repr(tj.args_info)  # donated=True on x


def test_eval_shape():
    same(lambda jx, n: jx.jit(lambda x, y: (x @ y, n.sum(x), 2.0)).eval_shape(
        _ones(2, 3), _ones(3, 4)) and [
            (s.shape, str(s.dtype), s.weak_type) for s in jx.jit(
                lambda x, y: (x @ y, n.sum(x), 2.0)).eval_shape(_ones(2, 3), _ones(3, 4))])
    d = didax.eval_shape(lambda x: x.astype(np.int8), didax.ShapeDtypeStruct((2,), F32))
    assert (d.shape, d.dtype) == ((2,), np.int8)


# ----------------------------------------------------------------------------------------
# Lowered
# ----------------------------------------------------------------------------------------


def _normalize_mlir(text: str) -> str:
    """Drops what only JAX adds: result-name attributes (and the parentheses they need)."""
    text = re.sub(r' \{jax\.result_info = "[^"]*"\}', "", text)
    text = re.sub(r"-> \((tensor<[^>]*>)\)", r"-> \1", text)
    return text


def _inner(jx):
    @jx.jit
    def inner(x):
        return x * 2

    return inner


LOWERINGS = {
    "sin_mul": (lambda jx, n: lambda x, y: n.sin(x) * y, (_ones(3), _ones(3))),
    "scalar_broadcast": (lambda jx, n: lambda x: x * 2.0 + 1.0, (_ones(2, 3),)),
    "reduce": (lambda jx, n: lambda x: n.sum(x, axis=0), (_ones(2, 3),)),
    "tuple_out": (lambda jx, n: lambda x: (x, x + 1), (_ones(3),)),
    "where": (lambda jx, n: lambda x: n.where(x > 0, x, -x), (_ones(3),)),
    "nested_jit": (lambda jx, n: lambda x: _inner(jx)(x) + 1, (_ones(3),)),
    "weak_scalar_args": (lambda jx, n: lambda x, y: x * y, (2.0, 3)),
    "constant_output": (lambda jx, n: lambda x: (x, n.arange(3.0)), (_ones(2),)),
    "bool_int": (lambda jx, n: lambda x: (x > 1).astype(n.int8), (np.arange(4, dtype=np.int32),)),
    "unused_argument": (lambda jx, n: lambda x, y: x + 1, (_ones(2), _ones(5))),
    "closed_over_constant": (
        lambda jx, n: lambda x: x + np.arange(3.0, dtype=F32), (_ones(3),)),
}


@pytest.mark.parametrize("name", list(LOWERINGS))
def test_lowered_text_as_jax(name):
    build, args = LOWERINGS[name]
    d = didax.jit(build(didax, dnp)).lower(*args)
    j = jax.jit(build(jax, jnp)).lower(*args)
    text = d.as_text()
    assert isinstance(text, str) and "func.func public @main" in text
    assert "stablehlo." in text or "return" in text
    assert _normalize_mlir(text) == _normalize_mlir(j.as_text()), (
        f"didax:\n{text}\nJAX:\n{j.as_text()}")


def test_lowered_text_with_shape_dtype_structs():
    def f(n):
        return lambda x, y: n.sin(x) * y

    specs = [didax.ShapeDtypeStruct((3,), F32), didax.ShapeDtypeStruct((3,), F32)]
    from_specs = didax.jit(f(dnp)).lower(*specs).as_text()
    from_arrays = didax.jit(f(dnp)).lower(_ones(3), _ones(3)).as_text()
    assert from_specs == from_arrays
    j = jax.jit(f(jnp)).lower(*[jax.ShapeDtypeStruct((3,), F32)] * 2).as_text()
    assert _normalize_mlir(from_specs) == _normalize_mlir(j)


def test_shape_dtype_struct():
    same(lambda jx, n: [repr(jx.ShapeDtypeStruct((2, 3), np.float64)),
                        repr(jx.ShapeDtypeStruct((), np.int32, weak_type=True)),
                        jx.ShapeDtypeStruct((2,), F32) == jx.ShapeDtypeStruct((2,), F32),
                        jx.ShapeDtypeStruct((2,), F32) == jx.ShapeDtypeStruct((2,), np.int32),
                        jx.ShapeDtypeStruct((2, 3), F32).ndim,
                        jx.ShapeDtypeStruct((2, 3), F32).size])
    # a float64 spec is lowered as float32 without x64, and as float64 with it
    spec = didax.ShapeDtypeStruct((2,), np.float64)
    assert spec.dtype == np.float64
    assert "tensor<2xf32>" in didax.jit(lambda x: x * 2).lower(spec).as_text()
    with x64():
        assert "tensor<2xf64>" in didax.jit(lambda x: x * 2).lower(spec).as_text()
    # weak-typed specs lower like Python scalars
    texts = [jx.jit(lambda x, y: x * y).lower(
        jx.ShapeDtypeStruct((), F32, weak_type=True), jx.ShapeDtypeStruct((2,), np.int8))
        for jx in (didax, jax)]
    assert _normalize_mlir(texts[0].as_text()) == _normalize_mlir(texts[1].as_text())


def test_lowered_unoptimized_hlo_and_ir():
    d, j = _both(lambda jx, n: jx.jit(lambda x, y: x * y).lower, 2.0, 3)
    hlo = d.as_text("hlo")
    assert hlo.startswith("HloModule jit__lambda") and "ENTRY" in hlo
    assert hlo.splitlines()[0] == j.as_text("hlo").splitlines()[0]
    assert "func.func public @main" in str(d.compiler_ir())
    assert repr(d.out_info) == repr(j.out_info)
    assert repr(d.args_info) == repr(j.args_info)
    assert str(d.in_tree) == str(j.in_tree) and str(d.out_tree) == str(j.out_tree)


def test_keep_unused_keeps_parameters():
    for jx in (didax, jax):
        text = jx.jit(lambda x, y: x, keep_unused=True).lower(1.0, 2).as_text()
        assert text.count("%arg") >= 2 and "%arg1: tensor<i32>" in text
        np.testing.assert_array_equal(
            jx.jit(lambda x, y: x, keep_unused=True).lower(1.0, 2).compile()(3.0, 4), 3.0)


# ----------------------------------------------------------------------------------------
# Compiled
# ----------------------------------------------------------------------------------------


def _compiled(jx, n):
    return jx.jit(lambda x, y: n.sin(x) * y).lower(_ones(3), _ones(3)).compile()


def test_compiled_text_cost_and_memory():
    d, j = _compiled(didax, dnp), _compiled(jax, jnp)
    assert type(d).__name__ == "Compiled"
    text = d.as_text()
    assert text.startswith("HloModule jit__lambda, is_scheduled=true") and "ENTRY" in text
    assert text.splitlines()[0].split(", allow_spmd")[0] == j.as_text().splitlines()[0].split(
        ", allow_spmd")[0]
    cost = d.cost_analysis()
    assert isinstance(cost, dict) and all(isinstance(v, float) for v in cost.values())
    assert cost == j.cost_analysis()
    mem_d, mem_j = d.memory_analysis(), j.memory_analysis()
    assert type(mem_d).__name__ == type(mem_j).__name__
    for field in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                  "temp_size_in_bytes", "generated_code_size_in_bytes"):
        assert isinstance(getattr(mem_d, field), int)
    assert mem_d.argument_size_in_bytes == mem_j.argument_size_in_bytes == 24
    assert mem_d.output_size_in_bytes == mem_j.output_size_in_bytes == 12
    assert repr(d.args_info) == repr(j.args_info)
    assert str(d.in_tree) == str(j.in_tree)
    assert d.runtime_executable() is not None
    assert isinstance(didax.jit(lambda x: x * 2).lower(1.0).cost_analysis(), dict)


def test_compiled_calls():
    same(lambda jx, n: _compiled(jx, n)(n.ones(3), n.arange(3.0)))
    same(lambda jx, n: _compiled(jx, n)(np.ones(3, F32), np.arange(3, dtype=F32)))

    def pytree_call(jx, n):
        def step(params, x):
            return {"y": params["w"] * x + params["b"], "n": n.sum(x)}
        params = {"w": n.array([1.0, 2.0]), "b": n.array(0.5)}
        compiled = jx.jit(step).lower(params, n.array([3.0, 4.0])).compile()
        return compiled({"w": n.array([-1.0, 0.0]), "b": n.array(2.0)}, n.array([3.0, 4.0]))

    same(pytree_call)
    same(lambda jx, n: jx.jit(lambda x, y: x * y).lower(1.0, y=2.0).compile()(3.0, y=4.0))
    same(lambda jx, n: jx.jit(lambda x: (x, 2.0, n.int8(3))).lower(_ones(2)).compile()(
        _ones(2)))
    same(lambda jx, n: jx.jit(lambda x: x + np.arange(3.0, dtype=F32)).lower(_ones(3))
         .compile()(_ones(3)))


def test_weak_type_differences_are_accepted():
    same(lambda jx, n: jx.jit(lambda x, y: x * y).lower(1.0, 2.0).compile()(n.float32(1), 2.0))
    same(lambda jx, n: jx.jit(lambda x, y: x * y).lower(n.float32(1.0), 2.0).compile()(1.0,
                                                                                    2.0))


def test_static_arguments_are_fixed_at_lowering():
    def build(jx, n):
        @partial(jx.jit, static_argnums=(1,))
        def tile_scale(x, k):
            return n.concatenate([x] * k) * k
        return tile_scale

    same(lambda jx, n: build(jx, n).lower(n.array([1.0, 2.0]), 3).compile()(n.array([1.0, 2.0])))
    same(lambda jx, n: jx.jit(lambda k, s: n.arange(k) * s, static_argnums=0).lower(4, 2.0)
         .compile()(0.5))
    same(lambda jx, n: jx.jit(lambda x, *, k: x * k, static_argnames="k").lower(_ones(2), k=3)
         .compile()(_ones(2)))
    # passing the static argument again is a pytree mismatch, as in JAX
    same_error(lambda jx, n: build(jx, n).lower(n.ones(2), 3).compile()(n.ones(2), 3))


ARG_MISMATCHES = {
    "shape": (lambda n: (_ones(3), _ones(3)), lambda n: (_ones(4), _ones(3))),
    "dtype_and_shape": (lambda n: (_ones(3), _ones(3)),
                        lambda n: (np.ones(3, np.int32), _ones(2))),
    "python_ints": (lambda n: (1.0, 2.0), lambda n: (1, 2)),
    "rank": (lambda n: (_ones(2, 2), 1.0), lambda n: (_ones(4), 1.0)),
    "bool": (lambda n: (_ones(2), True), lambda n: (_ones(2), 1)),
}


@pytest.mark.parametrize("case", list(ARG_MISMATCHES))
def test_argument_type_mismatch_errors_as_jax(case):
    lower_args, call_args = ARG_MISMATCHES[case]

    def call(jx, n):
        compiled = jx.jit(lambda x, y: x * y).lower(*lower_args(n)).compile()
        return compiled(*call_args(n))

    e_d, e_j = same_error(call)
    assert str(e_d) == str(e_j)


def test_argument_names_in_mismatch_errors():
    def call(jx, n):
        def f(params, scale, *rest):
            return params["w"] * scale
        compiled = jx.jit(f).lower({"w": _ones(2), "b": 1.0}, 2.0, _ones(1)).compile()
        return compiled({"w": _ones(3), "b": 1}, 2.0, _ones(1))

    e_d, e_j = same_error(call)
    assert str(e_d) == str(e_j)


PYTREE_MISMATCHES = {
    "leaf_vs_tuple": (((1.0, 2.0), {}), (((1.0,), 2.0), {})),
    "dict_keys": ((({"a": 1.0}, 2.0), {}), (({"b": 1.0}, 2.0), {})),
    "too_few": (((1.0, 2.0), {}), ((1.0,), {})),
    "kwarg_as_positional": (((1.0,), {"y": 2.0}), ((1.0, 3.0), {})),
    "list_vs_tuple": ((([1.0, 2.0], 2.0), {}), (((1.0, 2.0), 2.0), {})),
    "list_length": ((([1.0, 2.0], 2.0), {}), (([1.0], 2.0), {})),
    "none_vs_leaf": (((None, 2.0), {}), ((1.0, 2.0), {})),
    "dict_children": ((({"a": 1.0, "b": 2.0}, 2.0), {}), (({"a": 1.0}, 2.0), {})),
    "nested": ((({"a": (1.0, [2.0])}, 2.0), {}), (({"a": (1.0, (2.0,))}, 2.0), {})),
}


@pytest.mark.parametrize("case", list(PYTREE_MISMATCHES))
def test_pytree_mismatch_errors_as_jax(case):
    (l_args, l_kw), (c_args, c_kw) = PYTREE_MISMATCHES[case]

    def call(jx, n):
        compiled = jx.jit(lambda x, y=0.0: y).lower(*l_args, **l_kw).compile()
        return compiled(*c_args, **c_kw)

    e_d, e_j = same_error(call)
    assert str(e_d) == str(e_j)


def test_non_array_argument_to_compiled():
    same_error(lambda jx, n: jx.jit(lambda x, y: x).lower(1.0, 2).compile()(1.0, "a"))


@pytest.mark.parametrize("transform", ["grad", "vmap", "jit", "jvp", "vjp", "linearize"])
def test_transforming_a_compiled_function_raises(transform):
    def call(jx, n):
        compiled = jx.jit(lambda x: x * 2.0).lower(1.0).compile()
        if transform == "grad":
            return jx.grad(compiled)(1.0)
        if transform == "vmap":
            return jx.vmap(compiled)(n.ones(3))
        if transform == "jit":
            return jx.jit(compiled)(1.0)
        if transform == "jvp":
            return jx.jvp(compiled, (1.0,), (1.0,))
        if transform == "vjp":
            return jx.vjp(compiled, 1.0)
        return jx.linearize(compiled, 1.0)

    e_d, e_j = same_error(call, "class")
    prefix = ("Cannot apply JAX transformations to a function lowered and compiled for a "
              "particular signature. Detected argument of Tracer type")
    assert str(e_d).startswith(prefix) and str(e_j).startswith(prefix)


def test_compiled_with_host_callbacks_and_ordered_effects():
    def call(jx, n, io_callback):
        log = []

        def f(x):
            io_callback(lambda v: log.append(float(v)), None, x, ordered=True)
            io_callback(lambda v: log.append(float(v) * 10), None, x, ordered=True)
            return jx.pure_callback(lambda v: np.asarray(v * 2, F32),
                                    jx.ShapeDtypeStruct((), F32), x)

        compiled = jx.jit(f).lower(F32(1.5)).compile()
        out = [compiled(F32(1.5)), compiled(F32(2.0))]
        if jx is jax:
            jax.effects_barrier()
        return out, log

    assert_same(call(didax, dnp, d_io_callback), call(jax, jnp, j_io_callback))


def test_lowered_and_compiled_keys():
    def call(jx):
        k = jx.random.key(0)
        compiled = jx.jit(lambda k: jx.random.uniform(k, (2,))).lower(k).compile()
        return compiled(k), compiled(jx.random.key(1))

    assert_same(call(didax), call(jax))


def test_lowering_a_function_closing_over_tracers_fails():
    e = raised(lambda: didax.grad(lambda x: didax.jit(lambda y: y * x).lower(1.0))(2.0))
    assert isinstance(e, TypeError)


def test_lower_does_not_disturb_the_jit_cache():
    count = [0]

    def f(x):
        count[0] += 1
        return x + 1

    g = didax.jit(f)
    g.lower(_ones(2)).compile()
    g(_ones(2))
    g.lower(_ones(2)).compile()
    assert count[0] == 1
    np.testing.assert_array_equal(g.lower(_ones(2)).compile()(_ones(2)), [2.0, 2.0])
