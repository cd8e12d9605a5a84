"""Gradient checkpointing (`jax.checkpoint`, policies, `checkpoint_name`,
`print_saved_residuals`), the pullback of `jax.vjp` as a pytree (`fwd_and_bwd`, passing it
through jit), and `jax.test_util.check_grads` — each against JAX: values and gradients
eager/jitted/vmapped, jaxpr text, and which residuals are saved.
"""

from __future__ import annotations

import contextlib
import io

import didax
import jax
import numpy as np
import pytest
from jaxcompare import assert_same, assert_same_error, raised, same


def _layers(lib):
    jnp = lib.numpy
    from_ckpt = __import__(f"{lib.__name__}.ad_checkpoint", fromlist=["checkpoint_name"])
    name = from_ckpt.checkpoint_name

    def g(W, x):
        return jnp.sin(jnp.dot(W, x))

    def f(W1, W2, W3, x, named=False):
        for i, W in enumerate((W1, W2, W3)):
            x = g(W, x)
            if named:
                x = name(x, f"layer{i}")
        return x
    return f


_ARGS = (np.linspace(0.1, 1.0, 20).reshape(5, 4).astype(np.float32),
         np.linspace(-1.0, 1.0, 30).reshape(6, 5).astype(np.float32),
         np.linspace(0.2, 0.9, 42).reshape(7, 6).astype(np.float32),
         np.linspace(0.1, 1.0, 4).astype(np.float32))

_POLICIES = {
    "none": lambda cp: None,
    "dots": lambda cp: cp.dots_saveable,
    "dots_no_batch": lambda cp: cp.dots_with_no_batch_dims_saveable,
    "everything": lambda cp: cp.everything_saveable,
    "names": lambda cp: cp.save_only_these_names("layer0"),
    "names_but": lambda cp: cp.save_any_names_but_these("layer1"),
    "both": lambda cp: cp.save_from_both_policies(cp.dots_saveable,
                                                  cp.save_only_these_names("layer2")),
}


def _residual_report(lib, f, *args):
    """print_saved_residuals's lines without the source locations."""
    ckpt = __import__(f"{lib.__name__}.ad_checkpoint", fromlist=["print_saved_residuals"])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ckpt.print_saved_residuals(f, *args)
    return [line.split(" from /")[0] for line in buf.getvalue().splitlines()]


@pytest.mark.parametrize("policy", sorted(_POLICIES))
def test_policies_save_what_jax_saves(policy):
    def run(lib):
        f = _layers(lib)
        pol = _POLICIES[policy](lib.checkpoint_policies)
        fc = lib.checkpoint(lambda *a: f(*a, named=True), policy=pol)
        loss = lambda *a: fc(*a).sum()  # noqa: E731
        grads = lib.grad(loss, argnums=(0, 1, 2, 3))(*_ARGS)
        return (_residual_report(lib, fc, *_ARGS),
                str(lib.make_jaxpr(lib.grad(loss))(*_ARGS)), grads,
                lib.jit(lib.grad(loss, argnums=(0, 3)))(*_ARGS))
    got, want = run(didax), run(jax)
    assert got[0] == want[0]
    assert got[1] == want[1]
    assert_same(got[2:], want[2:], weak=False)


def test_checkpoint_jaxprs_and_nesting():
    def run(lib):
        jnp = lib.numpy
        f = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731

        def nested(x):
            inner = lib.checkpoint(lambda y: jnp.cos(f(y)))
            return jnp.sin(lib.checkpoint(lambda z: inner(z) * 2.0)(x))
        return [str(lib.make_jaxpr(lib.checkpoint(f))(1.0)),
                str(lib.make_jaxpr(lib.grad(lib.checkpoint(f)))(1.0)),
                str(lib.make_jaxpr(lambda x: lib.vjp(nested, x))(3.0)),
                str(lib.make_jaxpr(lib.grad(nested))(3.0)),
                _residual_report(lib, nested, 3.0)]
    got, want = run(didax), run(jax)
    for g, w in zip(got, want):
        assert g == w


def test_checkpoint_values_with_control_flow_and_vmap():
    def run(lib):
        jnp = lib.numpy

        def body(c, x):
            return jnp.tanh(c * x + 1.0), jnp.sin(c)
        scan_ckpt = lib.checkpoint(lambda c, xs: lib.lax.scan(body, c, xs)[0])
        ckpt_in_scan = lambda c, xs: lib.lax.scan(lib.checkpoint(body), c, xs)[0]  # noqa
        xs = jnp.linspace(0.1, 1.0, 5)
        outs = []
        for fn in (scan_ckpt, ckpt_in_scan):
            outs += [fn(0.3, xs), lib.grad(fn)(0.3, xs), lib.jit(lib.grad(fn))(0.3, xs),
                     lib.vmap(lib.grad(fn), (0, None))(jnp.array([0.1, 0.5]), xs)]
        outs.append(lib.hessian(lib.checkpoint(lambda x: jnp.exp(jnp.sin(x)).sum()))(xs))
        return outs
    assert_same(run(didax), run(jax))


def test_vjp_pullback_is_a_pytree():
    def run(lib):
        jnp = lib.numpy
        f = lambda x, W: jnp.tanh(x @ W)  # noqa: E731
        x, W = jnp.ones((3, 4)), jnp.arange(20.0).reshape(4, 5) / 10
        y, f_vjp = lib.vjp(f, x, W)
        leaves, tree = lib.tree_util.tree_flatten(f_vjp)
        via_jit = lib.jit(lambda g, c: g(c))(f_vjp, jnp.ones((3, 5)))
        rebuilt = lib.tree_util.tree_unflatten(tree, leaves)(jnp.ones((3, 5)))
        from_jit = lib.jit(lambda x: lib.vjp(f, x, W)[1])(x)(jnp.ones((3, 5)))
        fwd, bwd = lib.fwd_and_bwd(f, argnums=(0, 1))
        y2, res = fwd(x, W)
        fwd1, bwd1 = lib.fwd_and_bwd(f, argnums=1, jitted=False)
        return ([lf.shape for lf in leaves], via_jit, rebuilt, from_jit, y2, bwd(res, y2),
                bwd1(fwd1(x, W)[1], y))
    got, want = run(didax), run(jax)
    assert got[0] == want[0]
    assert_same(got[1:], want[1:])


def test_vjp_args_res():
    """VJP.args_res: the inputs the pullback reads (NotNeeded() for the others), as a list
    per positional input, replaceable before the backward pass (also inside jit)."""
    def run(lib):
        jnp = lib.numpy
        layer = lambda W, x: jnp.tanh(x @ W)  # noqa: E731
        W, x = jnp.arange(9.0).reshape(3, 3) / 10, jnp.ones((2, 3))
        y, f_vjp = lib.vjp(layer, W, x)
        ct = jnp.ones_like(y)
        args_res = [a is b for a, b in zip(f_vjp.args_res, (W, x))]
        n_leaves = len(lib.tree_util.tree_leaves(f_vjp))
        f_vjp.args_res[0] = 2 * W
        replaced = f_vjp(ct)
        bwd = lib.jit(lambda v, W, c: (v.args_res.__setitem__(0, W), v(c))[1])
        _, light = lib.jit(lambda W, x: lib.vjp(layer, W, x))(W, x)
        _, g_vjp = lib.vjp(lambda d, s: d["bye"] @ d["hi"] * s,
                           {"hi": jnp.ones((4, 5)), "bye": jnp.ones((3, 4))}, 2.0)
        shapes = lib.tree_util.tree_map(jnp.shape, g_vjp.args_res)
        g_vjp.args_res = [{"hi": jnp.ones((4, 5)), "bye": 3 * jnp.ones((3, 4))}, 2.0]
        return [args_res, n_leaves, replaced, bwd(light, W, ct), str(shapes),
                g_vjp(jnp.ones((3, 5)))]
    got, want = run(didax), run(jax)
    assert got[:2] == want[:2] and got[4] == want[4]
    assert_same(got[2:4] + got[5:], want[2:4] + want[5:])


@pytest.mark.parametrize("case", ["pass", "pass_rev_order2", "fail", "tolerance"])
def test_check_grads(case):
    def run(lib):
        jnp = lib.numpy
        check = __import__(f"{lib.__name__}.test_util", fromlist=["check_grads"]).check_grads
        x = (jnp.linspace(0.1, 1.0, 3),)
        if case == "pass":
            return check(lambda x: jnp.sin(x) * x ** 2, x, order=2)
        if case == "pass_rev_order2":
            return check(lambda x: jnp.tanh(x).sum(), x, order=2, modes=["rev"])
        if case == "fail":  # a wrong derivative is caught
            bad = lib.custom_jvp(lambda x: jnp.sin(x))
            bad.defjvp(lambda p, t: (jnp.sin(p[0]), 2.0 * t[0]))
            return check(bad, x, order=1)
        return check(lambda x: jnp.exp(x), x, order=1, atol=1e-1, rtol=1e-1, eps=1e-2)
    if case == "fail":
        assert_same_error(raised(run, didax), raised(run, jax), text="class")
    else:
        same(lambda lib, jnp: run(lib))


def test_checkpoint_name_and_policy_reprs():
    def run(lib):
        cp = lib.checkpoint_policies
        name = __import__(f"{lib.__name__}.ad_checkpoint",
                          fromlist=["checkpoint_name"]).checkpoint_name
        return (repr(cp.dots_saveable), repr(cp.dots_with_no_batch_dims_saveable),
                repr(cp.save_only_these_names("a")), repr(cp.save_any_names_but_these("b")),
                str(lib.make_jaxpr(lambda x: name(x * 2, "a"))(1.0)),
                name({"a": 1.0, "b": np.ones(2)}, "n")["a"])
    assert run(didax) == run(jax)


def _nested_sin():
    def f(x):
        return f.lib.numpy.sin(f.lib.numpy.sin(x))
    return f


def test_residual_locations_name_the_qualified_function():
    """`file:line:col (outer.<locals>.f)`: the function's qualified name, as JAX prints it."""
    def run(lib):
        f = _nested_sin()
        f.lib = lib
        ckpt = __import__(f"{lib.__name__}.ad_checkpoint", fromlist=["print_saved_residuals"])
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ckpt.print_saved_residuals(f, 1.0)
        return buf.getvalue()
    got, want = run(didax), run(jax)
    assert "(_nested_sin.<locals>.f)" in want
    assert got == want
