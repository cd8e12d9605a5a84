"""custom_jvp / custom_vjp against JAX: defjvp, defjvps, nondiff_argnums (callables and
tracers), symbolic zeros, defvjp with None cotangents, under jit, vmap (grad-of-vmap uses
the rule), nesting and higher order, Python control flow in the primal, jaxpr texts, JAX's
errors, and JAX's documented examples (log1pexp, clip_gradient, safe norms).
"""

from __future__ import annotations

from functools import partial

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxcompare import same, same_error

F32 = np.float32

# ----------------------------------------------------------------------------------------
# the functions under test, built for either library
# ----------------------------------------------------------------------------------------


def log1pexp(jx, n):
    @jx.custom_jvp
    def f(x):
        return n.log(1.0 + n.exp(x))

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), (1 - 1 / (1 + n.exp(x))) * t

    return f


def scaled_sin(jx, n):
    """A rule that is deliberately not the true derivative (factor 3), so tests see it."""
    @jx.custom_jvp
    def f(x):
        return n.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 3.0 * n.cos(x) * t

    return f


def two_arg_defjvps(jx, n):
    @jx.custom_jvp
    def f(x, y):
        return n.sin(x) * y

    f.defjvps(lambda tx, ans, x, y: n.cos(x) * tx * y * 2.0,
              lambda ty, ans, x, y: n.sin(x) * ty)
    return f


def partial_defjvps(jx, n):
    @jx.custom_jvp
    def h(x, y):
        return x * y

    h.defjvps(lambda tx, ans, x, y: tx * y, None)
    return h


def clip_gradient(jx, n):
    @partial(jx.custom_vjp, nondiff_argnums=(0, 1))
    def clip(lo, hi, x):
        return x

    def fwd(lo, hi, x):
        return x, None

    def bwd(lo, hi, _, g):
        return (n.clip(g, lo, hi),)

    clip.defvjp(fwd, bwd)
    return clip


def safe_norm(jx, n):
    @jx.custom_jvp
    def norm(x):
        return n.sqrt(n.sum(x ** 2))

    @norm.defjvp
    def norm_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = norm(x)
        return y, n.where(y == 0, 0.0, n.dot(x, t) / n.where(y == 0, 1.0, y))

    return norm


def vjp_sin(jx, n):
    @jx.custom_vjp
    def f(x):
        return n.sin(x)

    f.defvjp(lambda x: (n.sin(x), n.cos(x)), lambda c, g: (c * g * 2.0,))
    return f


def vjp_none(jx, n):
    @jx.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (res[1] * g, None))
    return f


def vjp_pytree(jx, n):
    @jx.custom_vjp
    def f(params, x):
        return {"out": params["w"] * x + params["b"][0]}

    def fwd(params, x):
        return f(params, x), (params, x)

    def bwd(res, ct):
        params, x = res
        g = ct["out"]
        return ({"w": g * x * 10.0, "b": (n.sum(g),)}, g * params["w"])

    f.defvjp(fwd, bwd)
    return f


def apply_twice(jx, n):
    @partial(jx.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(f(x))

    @app.defjvp
    def app_jvp(f, primals, tangents):
        y, ft = jx.jvp(f, primals, tangents)
        z, ft2 = jx.jvp(f, (y,), (ft,))
        return z, ft2 * 10.0

    return app


def nondiff_array(jx, n):
    @partial(jx.custom_jvp, nondiff_argnums=(0,))
    def f(a, x):
        return a * n.sin(x)

    @f.defjvp
    def f_jvp(a, primals, tangents):
        return f(a, primals[0]), a * n.cos(primals[0]) * tangents[0] * 10.0

    return f


def python_control_flow(jx, n):
    @jx.custom_jvp
    def f(x):
        if x > 0:
            return n.sin(x)
        return n.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        if x > 0:
            return f(x), n.cos(x) * t * 2
        return f(x), -n.sin(x) * t * 2

    return f


def vjp_python_control_flow(jx, n):
    @jx.custom_vjp
    def f(x, k):
        out = x
        for _ in range(k):
            out = out * x
        return out

    def fwd(x, k):
        return f(x, k), x

    def bwd(x, g):
        return (g * 100.0, None)

    f.defvjp(fwd, bwd)
    return f


# ----------------------------------------------------------------------------------------
# values and derivatives against JAX
# ----------------------------------------------------------------------------------------

CALLS = {
    "log1pexp": lambda jx, n: log1pexp(jx, n)(3.0),
    "log1pexp_grad_large": lambda jx, n: jx.grad(log1pexp(jx, n))(100.0),
    "log1pexp_jit_grad": lambda jx, n: jx.jit(jx.grad(log1pexp(jx, n)))(100.0),
    "log1pexp_grad_grad": lambda jx, n: jx.grad(jx.grad(log1pexp(jx, n)))(3.0),
    "log1pexp_vmap_grad": lambda jx, n: jx.vmap(jx.grad(log1pexp(jx, n)))(n.arange(3.0)),
    "log1pexp_grad_vmap": lambda jx, n: jx.grad(lambda x: jx.vmap(log1pexp(jx, n))(x).sum())(
        n.array([100.0, 1.0])),
    "log1pexp_jvp": lambda jx, n: jx.jvp(log1pexp(jx, n), (n.arange(3.0),), (n.ones(3),)),
    "rule_used_by_grad": lambda jx, n: jx.grad(scaled_sin(jx, n))(0.5),
    "rule_used_by_jvp": lambda jx, n: jx.jvp(scaled_sin(jx, n), (0.5,), (1.0,)),
    "rule_used_by_linearize": lambda jx, n: jx.linearize(scaled_sin(jx, n), 0.5)[1](2.0),
    "rule_used_by_vjp": lambda jx, n: jx.vjp(scaled_sin(jx, n), 0.5)[1](1.0),
    "rule_used_under_jit": lambda jx, n: jx.grad(jx.jit(scaled_sin(jx, n)))(0.5),
    "rule_used_by_grad_of_vmap": lambda jx, n: jx.grad(
        lambda x: jx.vmap(scaled_sin(jx, n))(x).sum())(n.arange(3.0)),
    "rule_used_by_vmap_of_grad": lambda jx, n: jx.vmap(jx.grad(scaled_sin(jx, n)))(
        n.arange(3.0)),
    "rule_used_by_jit_vmap_grad": lambda jx, n: jx.jit(jx.vmap(jx.grad(scaled_sin(jx, n))))(
        n.arange(3.0)),
    "rule_used_by_jacfwd_jacrev": lambda jx, n: (jx.jacfwd(scaled_sin(jx, n))(n.arange(3.0)),
                                                  jx.jacrev(scaled_sin(jx, n))(n.arange(3.0))),
    "rule_second_order": lambda jx, n: (jx.grad(jx.grad(scaled_sin(jx, n)))(0.5),
                                         jx.hessian(scaled_sin(jx, n))(0.5)),
    "nested_custom_jvp": lambda jx, n: jx.grad(lambda x: scaled_sin(jx, n)(
        log1pexp(jx, n)(x)))(0.3),
    "defjvps": lambda jx, n: jx.grad(two_arg_defjvps(jx, n), (0, 1))(2.0, 3.0),
    "defjvps_jvp": lambda jx, n: jx.jvp(two_arg_defjvps(jx, n), (2.0, 3.0), (1.0, 0.5)),
    "defjvps_none": lambda jx, n: jx.grad(partial_defjvps(jx, n), (0, 1))(3.0, 4.0),
    "defjvps_vmap": lambda jx, n: jx.vmap(jx.grad(two_arg_defjvps(jx, n), (0, 1)))(
        n.arange(3.0), n.ones(3)),
    "safe_norm_zero": lambda jx, n: jx.grad(safe_norm(jx, n))(n.zeros(3)),
    "safe_norm": lambda jx, n: jx.grad(safe_norm(jx, n))(n.arange(3.0)),
    "safe_norm_jacfwd": lambda jx, n: jx.jacfwd(safe_norm(jx, n))(n.arange(3.0)),
    "safe_norm_hessian": lambda jx, n: jx.hessian(safe_norm(jx, n))(n.arange(1.0, 4.0)),
    "safe_norm_vmap_grad_zero": lambda jx, n: jx.vmap(jx.grad(safe_norm(jx, n)))(
        n.array([[0.0, 0.0], [3.0, 4.0]])),
    "clip_gradient": lambda jx, n: jx.grad(
        lambda x: clip_gradient(jx, n)(-0.75, 0.75, n.sin(x)) * 3)(2.0),
    "clip_gradient_vmap": lambda jx, n: jx.vmap(jx.grad(
        lambda x: clip_gradient(jx, n)(-0.75, 0.75, x) * 3))(n.arange(3.0)),
    "clip_gradient_jit": lambda jx, n: jx.jit(jx.grad(
        lambda x: clip_gradient(jx, n)(-0.5, 0.5, x * 2.0).sum()))(n.arange(3.0)),
    "clip_gradient_primal": lambda jx, n: clip_gradient(jx, n)(-1.0, 1.0, n.arange(3.0)),
    "vjp_rule": lambda jx, n: jx.grad(vjp_sin(jx, n))(1.0),
    "vjp_rule_jit": lambda jx, n: (jx.grad(jx.jit(vjp_sin(jx, n)))(1.0),
                                   jx.jit(jx.grad(vjp_sin(jx, n)))(1.0)),
    "vjp_rule_second_order": lambda jx, n: jx.grad(jx.grad(vjp_sin(jx, n)))(1.0),
    "vjp_rule_vjp": lambda jx, n: jx.vjp(vjp_sin(jx, n), n.arange(3.0))[1](n.ones(3)),
    "vjp_rule_vmap_grad": lambda jx, n: jx.vmap(jx.grad(vjp_sin(jx, n)))(n.arange(3.0)),
    "vjp_rule_grad_vmap": lambda jx, n: jx.grad(lambda x: jx.vmap(vjp_sin(jx, n))(x).sum())(
        n.arange(3.0)),
    "vjp_rule_jacrev": lambda jx, n: jx.jacrev(vjp_sin(jx, n))(n.arange(3.0)),
    "vjp_none": lambda jx, n: jx.grad(vjp_none(jx, n), (0, 1))(2.0, 3.0),
    "vjp_none_jit": lambda jx, n: jx.jit(jx.grad(vjp_none(jx, n), (0, 1)))(2.0, 3.0),
    "vjp_none_vmap": lambda jx, n: jx.vmap(jx.grad(vjp_none(jx, n), (0, 1)))(
        n.ones(2), n.arange(2.0)),
    "vjp_none_grad_vmap": lambda jx, n: jx.grad(
        lambda x, y: jx.vmap(vjp_none(jx, n))(x, y).sum(), (0, 1))(n.ones(2), n.arange(2.0)),
    "vjp_pytree": lambda jx, n: jx.grad(lambda p, x: vjp_pytree(jx, n)(p, x)["out"].sum(),
                                        (0, 1))({"w": n.ones(2), "b": (2.0,)}, n.arange(2.0)),
    "vjp_kwargs": lambda jx, n: jx.grad(lambda x: vjp_sin(jx, n)(x=x))(1.0),
    "jvp_kwargs": lambda jx, n: jx.grad(lambda x: log1pexp(jx, n)(x=x))(1.0),
    "nondiff_callable": lambda jx, n: (apply_twice(jx, n)(n.sin, 0.5),
                                       jx.grad(lambda x: apply_twice(jx, n)(n.sin, x))(0.5)),
    "nondiff_callable_jit": lambda jx, n: jx.jit(jx.grad(
        lambda x: apply_twice(jx, n)(lambda u: u * u, x)))(1.5),
    "nondiff_callable_vmap": lambda jx, n: jx.vmap(jx.grad(
        lambda x: apply_twice(jx, n)(n.tanh, x)))(n.arange(3.0)),
    "nondiff_tracer_vmap": lambda jx, n: jx.vmap(nondiff_array(jx, n))(n.arange(3.0),
                                                                       n.ones(3)),
    "nondiff_tracer_vmap_grad": lambda jx, n: jx.vmap(jx.grad(nondiff_array(jx, n), 1))(
        n.arange(3.0), n.ones(3)),
    "nondiff_tracer_grad_vmap": lambda jx, n: jx.grad(
        lambda x: jx.vmap(nondiff_array(jx, n), (0, None))(n.arange(3.0), x).sum())(1.0),
    "nondiff_tracer_differentiated": lambda jx, n: jx.grad(
        lambda a: nondiff_array(jx, n)(a, 2.0))(3.0),
    "nondiff_tracer_jit": lambda jx, n: jx.jit(
        lambda a: jx.grad(lambda x: nondiff_array(jx, n)(a, x))(1.0))(3.0),
    "python_control_flow": lambda jx, n: (jx.grad(python_control_flow(jx, n))(1.0),
                                          jx.grad(python_control_flow(jx, n))(-1.0)),
    "vjp_python_control_flow": lambda jx, n: jx.grad(
        lambda x: vjp_python_control_flow(jx, n)(x, 3))(1.5),
    "custom_in_jit_closure": lambda jx, n: jx.grad(
        lambda x: jx.jit(lambda y: scaled_sin(jx, n)(y * x))(2.0))(0.5),
    "closing_over_array_constant": lambda jx, n: _closing_over_constant(jx, n),
    "vmap_of_jit_closing_over_batched": lambda jx, n: jx.vmap(
        lambda y: _closing_vjp(jx, n, y))(n.arange(3.0)),
}


def _closing_over_constant(jx, n):
    c = np.arange(3.0, dtype=F32)

    @jx.custom_jvp
    def f(x):
        return x * c

    f.defjvp(lambda p, t: (f(p[0]), t[0] * c * 2))

    @jx.custom_vjp
    def g(x):
        return x * c

    g.defvjp(lambda x: (g(x), None), lambda r, ct: (ct * c * 10,))
    x = n.ones(3)
    return [jx.grad(lambda v: jx.jit(f)(v).sum())(x), jx.jit(jx.grad(lambda v: g(v).sum()))(x),
            jx.vmap(jx.jit(g))(n.ones((2, 3))), jx.vmap(jx.grad(lambda v: jx.jit(g)(v).sum()))(
                n.ones((2, 3)))]


def _closing_vjp(jx, n, y):
    @jx.custom_vjp
    def h(x):
        return x * y

    h.defvjp(lambda x: (h(x), None), lambda r, ct: (ct * 10,))
    return jx.jit(lambda x: h(x))(n.ones(3)).sum()


@pytest.mark.parametrize("case", list(CALLS))
def test_values_and_derivatives_as_jax(case):
    # eager NumPy and XLA transcendentals may differ by an ulp, amplified by derivatives
    same(lambda jx, n: CALLS[case](jx, n), scale=10)


def test_rule_is_really_used():
    """The deliberate factor 3 of scaled_sin's rule appears in every mode."""
    f = scaled_sin(didax, dnp)
    expected = 3.0 * np.cos(0.5)
    for value in (didax.grad(f)(0.5), didax.jvp(f, (0.5,), (1.0,))[1],
                  didax.jit(didax.grad(f))(0.5), didax.vmap(didax.grad(f))(dnp.full(2, 0.5))[0],
                  didax.grad(lambda x: didax.vmap(f)(x).sum())(dnp.full(2, 0.5))[0]):
        np.testing.assert_allclose(float(value), expected, rtol=1e-6)


def test_symbolic_zeros():
    from didax.custom_derivatives import SymbolicZero

    seen = []

    @didax.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((type(tx).__name__, type(ty).__name__))
        out = 0.0 if isinstance(tx, SymbolicZero) else tx * y
        out = out + (0.0 if isinstance(ty, SymbolicZero) else ty * x)
        return f(x, y), out

    f.defjvp(f_jvp, symbolic_zeros=True)
    assert didax.jvp(lambda x: f(x, 2.0), (3.0,), (1.0,)) == (6.0, 2.0)
    assert float(didax.grad(lambda y: f(3.0, y))(2.0)) == 3.0
    assert float(didax.jit(didax.grad(lambda y: f(3.0, y)))(2.0)) == 3.0
    assert ("SymbolicZero", "Array") in seen or ("SymbolicZero", "JVPTracer") in seen or any(
        a == "SymbolicZero" for a, _ in seen)
    z = SymbolicZero.from_primal_value(dnp.ones(2))
    assert z.shape == (2,) and z.dtype == np.float32 and "SymbolicZero" in repr(z)

    @jax.custom_jvp
    def g(x, y):
        return x * y

    def g_jvp(primals, tangents):
        from jax.custom_derivatives import SymbolicZero as JZero

        x, y = primals
        tx, ty = tangents
        out = 0.0 if isinstance(tx, JZero) else tx * y
        return g(x, y), out + (0.0 if isinstance(ty, JZero) else ty * x)

    g.defjvp(g_jvp, symbolic_zeros=True)
    assert jax.jvp(lambda x: g(x, 2.0), (3.0,), (1.0,)) == (6.0, 2.0)


def test_symbolic_zero_returned_by_rule():
    from didax.custom_derivatives import SymbolicZero, zero_from_primal

    @didax.custom_jvp
    def f(x):
        return x * 2

    f.defjvp(lambda p, t: (f(p[0]), SymbolicZero.from_primal_value(p[0])),
             symbolic_zeros=True)
    assert float(didax.grad(f)(1.0)) == 0.0
    zeros = zero_from_primal({"a": dnp.ones(2)})
    assert np.asarray(zeros["a"]).tolist() == [0.0, 0.0]
    assert isinstance(zero_from_primal(dnp.ones(2), symbolic_zeros=True), SymbolicZero)


# ----------------------------------------------------------------------------------------
# jaxpr text
# ----------------------------------------------------------------------------------------

JAXPRS = {
    "custom_jvp": lambda jx, n: jx.make_jaxpr(log1pexp(jx, n))(3.0),
    "custom_jvp_grad": lambda jx, n: jx.make_jaxpr(jx.grad(log1pexp(jx, n)))(3.0),
    "custom_jvp_jvp": lambda jx, n: jx.make_jaxpr(
        lambda x: jx.jvp(log1pexp(jx, n), (x,), (x,)))(3.0),
    "custom_jvp_linearize": lambda jx, n: jx.make_jaxpr(
        lambda x: jx.linearize(log1pexp(jx, n), x)[1](x))(3.0),
    "custom_jvp_vmap": lambda jx, n: jx.make_jaxpr(jx.vmap(log1pexp(jx, n)))(
        np.ones(2, F32)),
    "custom_jvp_vmap_grad": lambda jx, n: jx.make_jaxpr(jx.vmap(jx.grad(log1pexp(jx, n))))(
        np.ones(2, F32)),
    "custom_jvp_grad_vmap": lambda jx, n: jx.make_jaxpr(jx.grad(
        lambda x: jx.vmap(log1pexp(jx, n))(x).sum()))(np.ones(2, F32)),
    "custom_jvp_jit": lambda jx, n: jx.make_jaxpr(jx.jit(log1pexp(jx, n)))(3.0),
    "custom_jvp_defjvps_jvp": lambda jx, n: jx.make_jaxpr(
        lambda x, y: jx.jvp(two_arg_defjvps(jx, n), (x, y), (x, y)))(2.0, 3.0),
    "custom_jvp_nondiff_callable": lambda jx, n: jx.make_jaxpr(
        lambda x: apply_twice(jx, n)(n.sin, x))(3.0),
    "custom_jvp_nondiff_grad": lambda jx, n: jx.make_jaxpr(jx.grad(
        lambda x: apply_twice(jx, n)(n.sin, x)))(3.0),
    "custom_jvp_constant": lambda jx, n: jx.make_jaxpr(lambda x: _const_jvp(jx)(x))(
        np.ones(3, F32)),
    "custom_vjp": lambda jx, n: jx.make_jaxpr(vjp_none(jx, n))(1.0, 2.0),
    "custom_vjp_grad": lambda jx, n: jx.make_jaxpr(jx.grad(vjp_none(jx, n)))(1.0, 2.0),
    "custom_vjp_grad_both": lambda jx, n: jx.make_jaxpr(jx.grad(vjp_none(jx, n), (0, 1)))(
        1.0, 2.0),
    "custom_vjp_vjp": lambda jx, n: jx.make_jaxpr(
        lambda x, y: jx.vjp(vjp_none(jx, n), x, y)[1](1.0))(1.0, 2.0),
    "custom_vjp_vmap": lambda jx, n: jx.make_jaxpr(jx.vmap(vjp_none(jx, n)))(
        np.ones(2, F32), np.ones(2, F32)),
    "custom_vjp_jit_grad": lambda jx, n: jx.make_jaxpr(jx.jit(jx.grad(vjp_sin(jx, n))))(1.0),
    "custom_vjp_clip": lambda jx, n: jx.make_jaxpr(
        lambda x: clip_gradient(jx, n)(-0.75, 0.75, x))(2.0),
    "custom_vjp_clip_grad": lambda jx, n: jx.make_jaxpr(jx.grad(
        lambda x: clip_gradient(jx, n)(-0.75, 0.75, x) * 3))(2.0),
    "custom_vjp_linearize_primal": lambda jx, n: jx.make_jaxpr(
        lambda x: jx.linearize(lambda a: vjp_none(jx, n)(a, 2.0), x)[0])(1.0),
}


def _const_jvp(jx):
    c = np.arange(3.0, dtype=F32)

    @jx.custom_jvp
    def f(x):
        return x * c

    f.defjvp(lambda p, t: (f(p[0]), t[0] * c))
    return f


@pytest.mark.parametrize("name", list(JAXPRS))
def test_jaxpr_text_as_jax(name):
    d = str(JAXPRS[name](didax, dnp))
    j = str(JAXPRS[name](jax, jnp))
    assert d == j, f"didax:\n{d}\nJAX:\n{j}"


def test_printed_params_name_the_rules():
    text = str(didax.make_jaxpr(log1pexp(didax, dnp))(3.0))
    assert "custom_jvp_call[" in text and "name=f" in text and "call_jaxpr={" in text
    assert "jvp=f_jvp" in text and "symbolic_zeros=False" in text
    text = str(didax.make_jaxpr(clip_gradient(didax, dnp), static_argnums=(0, 1))(-1.0, 1.0,
                                                                                   2.0))
    assert "custom_vjp_call[" in text and "fwd=fwd" in text and "bwd=bwd" in text


# ----------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------


def _bad_jvp(jx, n, rule):
    @jx.custom_jvp
    def f(x):
        return x * 2

    f.defjvp(rule)
    return f


def _bad_bwd(jx, n, bwd, nargs=2):
    if nargs == 2:
        @jx.custom_vjp
        def f(x, y):
            return x * y

        f.defvjp(lambda x, y: (x * y, None), bwd)
    else:
        @jx.custom_vjp
        def f(x):
            return x

        f.defvjp(lambda x: (x, None), bwd)
    return f


ERRORS = {
    "jvp_of_custom_vjp": (lambda jx, n: jx.jvp(vjp_sin(jx, n), (1.0,), (1.0,)), "exact"),
    "jvp_of_jit_custom_vjp": (lambda jx, n: jx.jvp(jx.jit(vjp_sin(jx, n)), (1.0,), (1.0,)),
                              "exact"),
    "jvp_of_custom_vjp_in_jit": (lambda jx, n: jx.jit(
        lambda x: jx.jvp(vjp_sin(jx, n), (x,), (x,)))(1.0), "exact"),
    "jacfwd_of_custom_vjp": (lambda jx, n: jx.jacfwd(vjp_sin(jx, n))(n.ones(2)), "exact"),
    "tracer_in_custom_vjp_nondiff": (lambda jx, n: jx.grad(
        lambda a: _scale(jx)(a, 3.0))(2.0), "exact"),
    "tracer_in_custom_vjp_nondiff_jit": (lambda jx, n: jx.jit(
        lambda a: _scale(jx)(a, 3.0))(2.0), "exact"),
    "tracer_in_custom_vjp_nondiff_vmap": (lambda jx, n: jx.vmap(
        lambda a: _scale(jx)(a, 3.0))(n.ones(2)), "exact"),
    "no_jvp_defined": (lambda jx, n: jx.custom_jvp(lambda x: x)(1.0), "exact"),
    "no_vjp_defined": (lambda jx, n: jx.custom_vjp(lambda x: x)(1.0), "exact"),
    "defjvps_with_nondiff": (lambda jx, n: jx.custom_jvp(lambda f, x: x, nondiff_argnums=(0,))
                             .defjvps(None), "exact"),
    "jvp_rule_not_a_pair": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: p[0]),
                                                 (1.0,), (1.0,)), "class"),
    "jvp_rule_shape": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: (
        p[0] * 2, n.ones((2, 2)))), (n.ones(2),), (n.ones(2),)), "exact"),
    "jvp_rule_dtype": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: (
        p[0] * 2, t[0].astype(n.float16))), (n.ones(2),), (n.ones(2),)), "exact"),
    "jvp_rule_bf16": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: (
        p[0] * 2, t[0].astype(n.bfloat16))), (n.float32(1.0),), (n.float32(1.0),)), "exact"),
    "jvp_rule_int": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: (p[0] * 2, n.int32(1))),
                                          (1.0,), (1.0,)), "exact"),
    "jvp_rule_tree": (lambda jx, n: jx.jvp(_bad_jvp(jx, n, lambda p, t: (p[0] * 2, (t[0],))),
                                           (1.0,), (1.0,)), "class"),
    "bwd_wrong_length": (lambda jx, n: jx.grad(_bad_bwd(jx, n, lambda r, g: (g,)))(1.0, 2.0),
                         "exact"),
    "bwd_not_a_tuple": (lambda jx, n: jx.grad(_bad_bwd(jx, n, lambda r, g: g, 1))(1.0),
                        "exact"),
    "bwd_nested_structure": (lambda jx, n: jx.grad(_bad_bwd(
        jx, n, lambda r, g: ((g,), g)))(1.0, 2.0), "exact"),
    "bwd_wrong_shape": (lambda jx, n: jx.grad(_bad_bwd(
        jx, n, lambda r, g: (n.ones(3),), 1))(1.0), "exact"),
    "bwd_wrong_shape_array": (lambda jx, n: jx.grad(lambda x: _bad_bwd(
        jx, n, lambda r, g: (n.ones(()), g))(x, 2.0).sum())(n.ones(3)), "exact"),
    "control_flow_under_jit": (lambda jx, n: jx.jit(python_control_flow(jx, n))(1.0),
                               "Attempted boolean conversion of traced array"),
    "closure_over_differentiated_tracer": (lambda jx, n: jx.grad(
        lambda y: _closes_over(jx, y))(3.0), "Encountered an unexpected tracer."),
}


def _scale(jx):
    @partial(jx.custom_vjp, nondiff_argnums=(0,))
    def scale(a, x):
        return a * x

    scale.defvjp(lambda a, x: (a * x, None), lambda a, r, g: (a * g,))
    return scale


def _closes_over(jx, y):
    @jx.custom_jvp
    def f(x):
        return x * y

    f.defjvp(lambda p, t: (f(p[0]), t[0] * y))
    return f(2.0)


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_as_jax(case):
    call, text = ERRORS[case]
    same_error(call, text)


def test_bwd_accepts_lists_and_lenient_dtypes_as_jax():
    same(lambda jx, n: jx.grad(_bad_bwd(jx, n, lambda r, g: [g, g]))(1.0, 2.0))
    same(lambda jx, n: jx.grad(_bad_bwd(jx, n, lambda r, g: (g.astype(n.float16), g)))(1.0,
                                                                                       2.0))
