"""Structured control flow — lax.cond, switch, scan, while_loop, fori_loop, map,
associative_scan and reduce — against real JAX.

`CASES` runs each program through `oracle.check_against_jax`: eager value (dtype, weak
type), make_jaxpr round trip, jvp, vjp, grad and vmap with batched and unbatched operands
(so batched predicates, indices, carries and xs all occur). Further tests cover float64
finite differences, jit, linearize, nested compositions, the printed jaxprs (exact text for
plain programs, primitive multisets for grad/vmap-derived ones), the StableHLO lowering,
DCE, effects inside loops, eager executable caching and JAX's error messages.
"""

from __future__ import annotations

import re
from collections import Counter

import didax
import jax
import numpy as np
import oracle
import pytest
from didax._src.interpreters import partial_eval as dpe
from didax._src.lax.control_flow import eager as deager
from oracle import check_against_jax, check_error_against_jax, x64_mode

f32 = np.float32
RNG = np.random.default_rng(0)
XS = RNG.normal(size=(5,)).astype(f32)
M = RNG.normal(size=(3, 4)).astype(f32)
XS2 = RNG.normal(size=(4, 3)).astype(f32)
ALL = ("eval", "jaxpr", "jvp", "vjp", "vmap", "grad")
FWD = ("eval", "jaxpr", "jvp", "vmap")  # while loops have no reverse mode


def _rnn(jnp, lax):
    def f(w, h0, xs):
        def step(h, x):
            h = jnp.tanh(w * h + x)
            return h, h * h
        h, ys = lax.scan(step, h0, xs)
        return h + jnp.sum(ys)
    return f


def _cond_in_scan(jnp, lax):
    def f(w, xs):
        def body(c, x):
            c = lax.cond(x > 0, lambda u: u * w + x, lambda u: u - w * x, c)
            return c, jnp.sin(c)
        return lax.scan(body, jnp.ones_like(w), xs)
    return f


def _scan_in_cond(jnp, lax):
    def f(a, xs):
        return lax.cond(a > 0, lambda x: lax.scan(lambda c, v: (c * v + a, c), a, x),
                        lambda x: (a * 2, x * a), xs)
    return f


CASES = {
    # cond / switch
    "cond_scalar": (lambda jnp, lax: lambda a: lax.cond(a > 0, jnp.sin, jnp.cos, a),
                    (f32(0.7),), ALL),
    "cond_array_pred_from_data": (
        lambda jnp, lax: lambda a, b: lax.cond(a.sum() > 0, lambda x, y: x * y,
                                               lambda x, y: x - jnp.exp(y), a, b),
        (M, M * 2), ALL),
    "cond_int_pred": (lambda jnp, lax: lambda a, i: lax.cond(i, lambda u: u * 3, jnp.cos, a),
                      (XS, np.int32(2)), ALL),
    "cond_pytree": (
        lambda jnp, lax: lambda a, b: lax.cond(
            a[0] > 0, lambda p: {"s": p[0] * 2, "t": (p[1], p[0].sum())},
            lambda p: {"s": p[0] + 1, "t": (jnp.sin(p[1]), p[1].sum())}, (a, b)),
        (XS, M), ALL),
    "cond_forwarded_operand": (
        lambda jnp, lax: lambda a, b: lax.cond(a > 0, lambda x, y: (x, y * 2),
                                               lambda x, y: (x, jnp.sin(y)), a, b),
        (f32(-0.4), XS), ALL),
    "cond_closed_over": (
        lambda jnp, lax: lambda a, w: lax.cond(a > 0, lambda u: u * w, lambda u: u + w, a),
        (f32(0.3), f32(1.5)), ALL),
    "switch": (
        lambda jnp, lax: lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: v * v], x),
        (np.int32(1), XS), ALL),
    "switch_clamped": (
        lambda jnp, lax: lambda i, x: lax.switch(i, [jnp.sin, lambda v: v * 3], x),
        (np.int32(7), XS), ALL),
    "switch_negative": (
        lambda jnp, lax: lambda i, x: lax.switch(i, [jnp.sin, lambda v: v * 3], x),
        (np.int32(-2), XS), ALL),
    # scan
    "scan_rnn": (_rnn, (f32(0.7), f32(0.2), XS), ALL),
    "scan_reverse": (
        lambda jnp, lax: lambda c, xs: lax.scan(lambda c, x: (c * 0.5 + x, c * x), c, xs,
                                                reverse=True),
        (f32(1.0), XS), ALL),
    "scan_pytree": (
        lambda jnp, lax: lambda c, xs: lax.scan(
            lambda c, x: ((c[0] + x["a"], c[1] * jnp.cos(x["b"])), [c[0], x["a"] * c[1]]),
            (c, c * 2), {"a": xs, "b": xs * 3}),
        (f32(0.5), XS), ALL),
    "scan_matrix_carry": (
        lambda jnp, lax: lambda w, xs: lax.scan(
            lambda h, x: (jnp.tanh(w @ h + x), h.sum()), jnp.zeros(3, f32), xs),
        (RNG.normal(size=(3, 3)).astype(f32), XS2), ALL),
    "scan_unroll": (
        lambda jnp, lax: lambda c, xs: lax.scan(lambda c, x: (jnp.sin(c) + x, c), c, xs,
                                                unroll=2),
        (f32(0.1), XS), ALL),
    "scan_no_xs": (
        lambda jnp, lax: lambda c: lax.scan(lambda c, _: (c * 1.1, jnp.sin(c)), c, None,
                                            length=4),
        (XS,), ALL),
    "scan_carry_forwarded": (  # a forwarded carry comes back as given (asarray'd here)
        lambda jnp, lax: lambda w, xs: jax.tree_util.tree_map(jnp.asarray, lax.scan(
            lambda c, x: ((c[0] * c[1] + x, c[1]), x * 2), (f32(0.0), w), xs)),
        (f32(0.9), XS), ALL),
    "scan_int_carry": (
        lambda jnp, lax: lambda w, xs: lax.scan(
            lambda c, x: ((c[0] + 1, c[1] * jnp.sin(x * w)), c[0]), (0, w), xs),
        (f32(0.9), XS), ALL),
    "map": (lambda jnp, lax: lambda xs: lax.map(lambda r: jnp.sin(r) * r.sum(), xs),
            (M,), ALL),
    "map_batch_size": (
        lambda jnp, lax: lambda xs: lax.map(lambda r: jnp.cos(r) + r.sum(), xs, batch_size=2),
        (RNG.normal(size=(5, 3)).astype(f32),), ALL),
    "scan_list_output": (
        lambda jnp, lax: lambda c, xs: lax.scan(lambda c, x: [c * x, jnp.sin(c)], c, xs),
        (f32(0.5), XS), ALL),
    "fori_static": (
        lambda jnp, lax: lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * (i + 1.5), x),
        (XS,), ALL),
    "associative_scan": (
        lambda jnp, lax: lambda x: lax.associative_scan(jnp.add, x), (XS,), ALL),
    "associative_scan_rev_axis": (
        lambda jnp, lax: lambda x: lax.associative_scan(jnp.multiply, x, reverse=True, axis=1),
        (M,), ALL),
    # nesting
    "cond_in_scan": (_cond_in_scan, (f32(0.5), XS), ALL),
    "scan_in_cond": (_scan_in_cond, (f32(0.5), XS), ALL),
    "scan_in_scan": (
        lambda jnp, lax: lambda w, xs: lax.scan(
            lambda c, row: (lax.scan(lambda d, v: (jnp.sin(d * w + v), None), c, row)[0],
                            c), w * 0.1, xs),
        (f32(0.8), XS2), ALL),
    # while loops: forward mode only
    "while_scalar": (
        lambda jnp, lax: lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 1.7 + 0.1,
                                                  x),
        (f32(0.3),), FWD),
    "while_tuple_carry": (
        lambda jnp, lax: lambda x, k: lax.while_loop(
            lambda c: c[1] < 4, lambda c: (jnp.sin(c[0]) * k, c[1] + 1), (x, 0))[0],
        (XS, f32(1.3)), FWD),
    "while_batched_pred": (
        lambda jnp, lax: lambda x: lax.while_loop(lambda c: c[0].sum() < 8.0,
                                                  lambda c: (c[0] * 1.5 + 0.2, c[1] + 1),
                                                  (x, 0)),
        (np.abs(XS) + 0.1,), FWD),
    "fori_dynamic": (
        lambda jnp, lax: lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 0.9 + i, x),
        (XS, np.int32(3)), FWD),
    "while_in_scan": (
        lambda jnp, lax: lambda xs: lax.scan(
            lambda c, x: (lax.while_loop(lambda v: v < jnp.abs(x) * 5, lambda v: v + 1.0, c),
                          c), f32(0.0), xs),
        (XS,), ("eval", "jaxpr", "vmap")),
    # lax.reduce: a monoid with its identity is its reduction primitive; others stage reduce
    "reduce_monoid_max": (
        lambda jnp, lax: lambda m: lax.reduce(m, -np.inf, lax.max, (1,)), (M,), ALL),
    "reduce_product": (
        lambda jnp, lax: lambda m: lax.reduce(m, f32(1.0), lambda a, b: a * b, (0,)),
        (M,), ALL),
    "reduce_logaddexp_all": (
        lambda jnp, lax: lambda m: lax.reduce(m, -np.inf, jnp.logaddexp, (0, 1)), (M,), ALL),
    "reduce_pair": (
        lambda jnp, lax: lambda m, v: lax.reduce(
            (m, v), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,)),
        (M, XS2.T.copy()), ALL),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_jax(name):
    builder, args, modes = CASES[name]
    check_against_jax(builder, args, modes, seed=oracle.seed_of(name))


FD_CASES = ["scan_rnn", "scan_reverse", "scan_pytree", "cond_in_scan", "scan_in_cond",
            "cond_pytree", "switch", "fori_static", "scan_in_scan", "map"]


@pytest.mark.parametrize("name", FD_CASES)
def test_finite_differences_float64(name):
    builder, args, _ = CASES[name]
    args64 = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == f32
              else np.float64(a) if isinstance(a, np.floating) else a for a in args]
    with x64_mode():
        check_against_jax(builder, args64, ("eval", "grad", "fd"), seed=1)


# ----------------------------------------------------------------------------------------
# jit, linearize, nested transformations
# ----------------------------------------------------------------------------------------


def _both(fn):
    got = fn(didax, didax.numpy, didax.lax)
    want = fn(jax, jax.numpy, jax.lax)
    oracle.assert_tree_matches(got, want, scale=10.0)


@pytest.mark.parametrize("name", ["scan_rnn", "cond_pytree", "switch_clamped", "scan_unroll",
                                  "while_batched_pred", "fori_dynamic", "cond_in_scan",
                                  "map_batch_size", "scan_reverse"])
def test_jit_matches(name):
    builder, args, _ = CASES[name]
    _both(lambda m, jnp, lax: m.jit(builder(jnp, lax))(*args))


def test_jit_of_grad_and_vmap():
    def fn(m, jnp, lax):
        f = _rnn(jnp, lax)
        g = m.jit(m.grad(f, argnums=(0, 1)))(f32(0.7), f32(0.2), XS)
        v = m.jit(m.vmap(f, (None, 0, None)))(f32(0.7), XS, XS)
        return g, v
    _both(fn)


def test_scan_inside_grad_inside_vmap():
    def fn(m, jnp, lax):
        def loss(w, xs):
            return lax.scan(lambda h, x: (jnp.tanh(w * h + x), None), f32(0.1), xs)[0]
        return m.vmap(m.grad(loss), (0, None))(XS, XS)
    _both(fn)


def test_grad_of_vmap_of_cond_and_while():
    def fn(m, jnp, lax):
        def f(w):
            y = m.vmap(lambda x: lax.cond(x > 0, lambda u: u * w, lambda u: jnp.sin(u * w),
                                          x))(XS)
            return jnp.sum(y)
        g = m.grad(f)(f32(1.3))
        t = m.jvp(lambda w: m.vmap(lambda x: lax.while_loop(
            lambda c: c[1] < 3, lambda c: (c[0] * w + x, c[1] + 1), (x, 0))[0])(XS),
            (f32(0.5),), (f32(1.0),))
        return g, t
    _both(fn)


def test_linearize():
    def fn(m, jnp, lax):
        f = _cond_in_scan(jnp, lax)
        out, f_lin = m.linearize(lambda w: f(w, XS), f32(0.5))
        return out, f_lin(f32(1.0)), f_lin(f32(-2.0))
    _both(fn)


def test_higher_order_derivatives():
    def fn(m, jnp, lax):
        def f(w):
            return lax.scan(lambda h, x: (jnp.sin(w * h) + x, None), f32(0.3), XS)[0]
        hess = m.grad(m.grad(f))(f32(0.7))
        cond = m.jvp(m.grad(lambda a: lax.cond(a > 0, lambda u: u ** 3, jnp.sin, a)),
                     (f32(0.5),), (f32(1.0),))
        return hess, cond
    _both(fn)


def test_nested_vmap_of_while_and_cond():
    def fn(m, jnp, lax):
        w = m.vmap(m.vmap(lambda a: lax.while_loop(lambda c: c < 20.0,
                                                   lambda c: c * 2 + 1.0, a)))(np.abs(M))
        c = m.vmap(m.vmap(lambda a: lax.cond(a > 0, lambda u: u * 2, lambda u: -u, a)))(M)
        return w, c
    _both(fn)


def test_grad_of_static_fori_is_scan():
    def fn(m, jnp, lax):
        return m.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * i, x))(f32(1.1))
    _both(fn)
    txt = str(didax.make_jaxpr(lambda x: didax.lax.fori_loop(0, 3, lambda i, c: c, x))(1.0))
    assert "scan[" in txt and "while[" not in txt


def test_disable_jit_runs_python():
    from didax._src.config import config
    calls = []

    def body(c, x):
        calls.append(type(c).__name__)
        return c + x, c
    config.update("jax_disable_jit", True)
    try:
        c, ys = didax.lax.scan(body, didax.numpy.float32(0.0), XS)
        w = didax.lax.while_loop(lambda v: v < 5, lambda v: v + 2, 0)
        s = didax.lax.cond(True, lambda: 1, lambda: 2)
    finally:
        config.update("jax_disable_jit", False)
    assert len(calls) == len(XS)
    np.testing.assert_allclose(np.asarray(c), XS.sum(), rtol=1e-6)
    assert int(w) == 6 and s == 1


# ----------------------------------------------------------------------------------------
# printed jaxprs
# ----------------------------------------------------------------------------------------


def _jaxpr_texts(fn, args):
    got = str(didax.make_jaxpr(fn(didax, didax.numpy, didax.lax))(*args))
    want = str(jax.make_jaxpr(fn(jax, jax.numpy, jax.lax))(*args))
    return got, want


TEXT_CASES = {
    "cond": (lambda m, jnp, lax: lambda a: lax.cond(a > 0, lax.sin, lax.cos, a), (1.0,)),
    "cond_float_pred": (lambda m, jnp, lax: lambda a: lax.cond(a, lambda u: u + 1,
                                                               lambda u: u - 1, a), (1.0,)),
    "cond_forward_and_consts": (
        lambda m, jnp, lax: lambda a, b: lax.cond(a > 0, lambda x, y: (x, y * M),
                                                  lambda x, y: (x, y + M), a, b), (1.0, 2.0)),
    "switch": (lambda m, jnp, lax: lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.exp], x),
               (1, 1.0)),
    "scan": (lambda m, jnp, lax: lambda x: lax.scan(lambda c, x: (c + x, c * x), 0.0, x),
             (XS,)),
    "scan_reverse_unroll": (
        lambda m, jnp, lax: lambda x: lax.scan(lambda c, x: (c * 2.0 + x, c), 0.0, x,
                                               reverse=True, unroll=2), (XS,)),
    "scan_carry_to_const_and_xs_forward": (
        lambda m, jnp, lax: lambda x, w: lax.scan(lambda c, x: ((c[0] + x * c[1], c[1]), x),
                                                  (0.0, w), x), (XS, 2.0)),
    "while": (lambda m, jnp, lax: lambda x: lax.while_loop(lambda c: c < 10.0,
                                                           lambda c: c * 2.0, x), (1.0,)),
    "while_forwarded_carry_to_const": (
        lambda m, jnp, lax: lambda x, k: lax.while_loop(lambda c: c[0] < 10.0,
                                                        lambda c: (c[0] * c[1], c[1]), (x, k)),
        (1.0, 2.0)),
    "fori_static": (lambda m, jnp, lax: lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2.0, x),
                    (1.0,)),
    "fori_dynamic": (lambda m, jnp, lax: lambda x, n: lax.fori_loop(0, n,
                                                                   lambda i, c: c * 2.0, x),
                     (1.0, 3)),
    "grad_cond": (lambda m, jnp, lax: m.grad(lambda a: lax.cond(a > 0, lambda u: u * u,
                                                                jnp.sin, a)), (1.0,)),
    "grad_rnn": (lambda m, jnp, lax: m.grad(_rnn(jnp, lax), argnums=(0, 1)),
                 (0.7, 0.2, XS)),
    "grad_scan_weak_init": (
        lambda m, jnp, lax: m.grad(lambda w, xs: lax.scan(lambda c, x: (c - w * x, None),
                                                          1.0, xs)[0]), (0.5, XS)),
    "grad_cond_in_scan": (
        lambda m, jnp, lax: m.grad(lambda w, xs: _cond_in_scan(jnp, lax)(w, xs)[0]),
        (0.5, XS)),
    "vmap_cond": (lambda m, jnp, lax: m.vmap(lambda a: lax.cond(a > 0, jnp.sqrt,
                                                                lambda u: u * u, a)), (XS,)),
    "vmap_while_batched_pred": (
        lambda m, jnp, lax: m.vmap(lambda x: lax.while_loop(lambda c: c < 10.0,
                                                            lambda c: c * 2.0, x)), (XS,)),
    "jvp_scan": (lambda m, jnp, lax: lambda w: m.jvp(
        lambda w: lax.scan(lambda h, x: (jnp.sin(h * w) + x, h), 0.1, XS), (w,), (1.0,)),
                 (0.7,)),
    "grad_vmap_batched_cond": (
        lambda m, jnp, lax: m.grad(lambda w: jnp.sum(m.vmap(lambda x: lax.cond(
            x > 0, lambda u: u * w, lambda u: jnp.sin(u) + w, x))(XS))), (0.7,)),
    "grad_nested_cond": (
        lambda m, jnp, lax: m.grad(lambda x: lax.cond(
            x > 0, lambda u: lax.cond(u > 1, jnp.sin, jnp.cos, u), lambda u: u ** 2, x)),
        (1.5,)),
    "grad_of_jit_of_scan": (
        lambda m, jnp, lax: m.grad(m.jit(lambda w: lax.scan(lambda c, v: (c * w + v, None),
                                                            0.0, XS)[0])), (0.5,)),
    "cond_constant_pred": (lambda m, jnp, lax: lambda x: lax.cond(True, lambda: x,
                                                                  lambda: x + 1), (1.0,)),
    "while_weak_int_init_promoted": (
        lambda m, jnp, lax: lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0), ()),
    "map_batch_size": (
        lambda m, jnp, lax: lambda x: lax.map(lambda v: v * 2 + 1, x, batch_size=2),
        (RNG.normal(size=(5, 3)).astype(f32),)),
    "vmap_switch": (
        lambda m, jnp, lax: m.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)),
        (np.array([0, 1, 2, 1, 0], np.int32), XS)),
    "jvp_while": (lambda m, jnp, lax: lambda x: m.jvp(
        lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x), (x,), (1.0,)),
                  (1.0,)),
}


@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_jaxpr_text_matches_jax(name):
    fn, args = TEXT_CASES[name]
    got, want = _jaxpr_texts(fn, args)
    assert got == want


def _prims(text):
    return Counter(re.findall(r"= ([a-z][a-z_0-9]*)(?=[\[\s])", text))


PRIM_CASES = {
    "grad_scan_ys_and_xs": (
        lambda m, jnp, lax: m.grad(lambda w, xs: jnp.sum(lax.scan(
            lambda h, x: (h * w, jnp.sin(h) * x), 1.0, xs)[1]), argnums=(0, 1)), (0.7, XS)),
    "grad_scan_reverse": (
        lambda m, jnp, lax: m.grad(lambda w, xs: jnp.sum(lax.scan(
            lambda h, x: (h * w + x, h), 1.0, xs, reverse=True)[1])), (0.7, XS)),
    "grad_vmap_scan": (
        lambda m, jnp, lax: m.grad(lambda w, xs: jnp.sum(m.vmap(lambda x: lax.scan(
            lambda h, v: (jnp.tanh(w * h + v), None), 0.1, x)[0])(xs))), (0.5, XS2)),
    "vmap_grad_scan": (
        lambda m, jnp, lax: m.vmap(m.grad(lambda w, xs: lax.scan(
            lambda h, x: (jnp.tanh(w * h + x), None), 0.1, xs)[0]), (0, None)), (XS, XS)),
    "hessian_scan": (
        lambda m, jnp, lax: m.grad(m.grad(lambda w: lax.scan(
            lambda h, x: (jnp.sin(w * h) + x, None), 0.3, XS)[0])), (0.7,)),
    "jvp_of_grad_cond": (
        lambda m, jnp, lax: lambda a: m.jvp(m.grad(lambda a: lax.cond(
            a > 0, lambda u: u ** 3, jnp.sin, a)), (a,), (1.0,)), (0.5,)),
    "vmap_switch_ints": (
        lambda m, jnp, lax: m.vmap(lambda i, x: lax.switch(
            i, [lambda v: v + 1, lambda v: v * 3, lambda v: v - 7], x)),
        (np.array([0, 1, 2, 5], np.int32), np.arange(4, dtype=np.int32))),
    "associative_scan": (lambda m, jnp, lax: lambda x: lax.associative_scan(jnp.add, x),
                         (XS,)),
    "grad_fori_static": (
        lambda m, jnp, lax: m.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * i,
                                                           x)), (1.0,)),
}


@pytest.mark.parametrize("name", sorted(PRIM_CASES))
def test_jaxpr_primitives_match_jax(name):
    fn, args = PRIM_CASES[name]
    got, want = _jaxpr_texts(fn, args)
    assert _prims(got) == _prims(want), f"didax:\n{got}\nJAX:\n{want}"


def test_primitive_params_are_jax_s():
    closed = didax.make_jaxpr(lambda x: didax.lax.scan(lambda c, x: (c + x, c), 0.0, x))(XS)
    (eqn,) = closed.jaxpr.eqns
    assert sorted(eqn.params) == ["jaxpr", "length", "num_carry", "num_consts", "reverse",
                                  "unroll"]
    closed = didax.make_jaxpr(lambda x: didax.lax.while_loop(lambda c: c < 1, lambda c: c,
                                                             x))(0.0)
    assert sorted(closed.jaxpr.eqns[0].params) == ["body_jaxpr", "body_nconsts",
                                                   "cond_jaxpr", "cond_nconsts"]
    closed = didax.make_jaxpr(lambda x: didax.lax.cond(x > 0, lambda: x, lambda: -x))(1.0)
    assert list(closed.jaxpr.eqns[-1].params) == ["branches"]


# ----------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------

ERROR_CASES = {
    "cond_shape_mismatch": lambda jnp, lax: lambda: lax.cond(
        True, lambda: jnp.ones(2), lambda: jnp.ones(3)),
    "cond_dtype_mismatch": lambda jnp, lax: lambda: lax.cond(
        True, lambda: jnp.ones(2, "int32"), lambda: jnp.ones(2)),
    "cond_tree_mismatch": lambda jnp, lax: lambda: lax.cond(
        True, lambda: (jnp.ones(2),), lambda: jnp.ones(2)),
    "switch_mismatch": lambda jnp, lax: lambda: lax.switch(
        1, [lambda: jnp.ones(2), lambda: jnp.ones(2), lambda: jnp.ones(3)]),
    "cond_pred_not_scalar": lambda jnp, lax: lambda: lax.cond(
        jnp.ones(2) > 0, lambda: 1.0, lambda: 2.0),
    "switch_float_index": lambda jnp, lax: lambda: lax.switch(
        1.0, [lambda: 1.0, lambda: 2.0]),
    "switch_empty": lambda jnp, lax: lambda: lax.switch(0, []),
    "cond_not_callable": lambda jnp, lax: lambda: lax.cond(True, 1.0, 2.0),
    "scan_carry_shape": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: (jnp.stack([c, c]), x), 0.0, jnp.ones(3)),
    "scan_carry_dtype": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: (c.astype("int32"), x), jnp.float32(0.0), jnp.ones(3)),
    "scan_carry_tree": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: ((c, c), x), 0.0, jnp.ones(3)),
    "scan_body_not_pair": lambda jnp, lax: lambda: lax.scan(lambda c, x: c, 0.0, jnp.ones(3)),
    "scan_lengths_differ": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4))),
    "scan_length_disagrees": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: (c, x), 0.0, jnp.ones(3), length=4),
    "scan_no_length": lambda jnp, lax: lambda: lax.scan(lambda c, x: (c, x), 0.0, None),
    "scan_unscannable": lambda jnp, lax: lambda: lax.scan(lambda c, x: (c, x), 0.0, 1.0),
    "while_pred_not_scalar": lambda jnp, lax: lambda: lax.while_loop(
        lambda c: jnp.array([True, False]), lambda c: c, 0.0),
    "while_pred_not_bool": lambda jnp, lax: lambda: lax.while_loop(lambda c: c, lambda c: c,
                                                                   0.0),
    "while_carry_tree": lambda jnp, lax: lambda: lax.while_loop(
        lambda c: c < 3, lambda c: (c, c), 0.0),
    "fori_bound_types": lambda jnp, lax: lambda: lax.fori_loop(0, 3.0, lambda i, c: c, 1.0),
    "scan_body_triple": lambda jnp, lax: lambda: lax.scan(lambda c, x: (c, x, x), 0.0,
                                                          jnp.ones(3)),
    "scan_two_carry_types": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: ((c[0].astype(int), c[1][None]), x), (0.0, 0.0), jnp.ones(3)),
    "cond_two_mismatches": lambda jnp, lax: lambda: lax.cond(
        True, lambda: (jnp.ones(2), jnp.ones(3)), lambda: (jnp.ones(3), jnp.ones(2, int))),
    "cond_dict_keys": lambda jnp, lax: lambda: lax.cond(True, lambda: {"a": 1.0},
                                                        lambda: {"b": 1.0}),
    "scan_dict_carry": lambda jnp, lax: lambda: lax.scan(
        lambda c, x: ({"a": c["a"], "b": c["a"]}, x), {"a": 0.0}, jnp.ones(3)),
    "cond_operand_and_positional": lambda jnp, lax: lambda: lax.cond(
        True, lambda x: x, lambda x: x, 1.0, operand=2.0),
}


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_errors_match_jax(name):
    check_error_against_jax(ERROR_CASES[name], ())


@pytest.mark.parametrize("name", ["scan_carry_shape", "scan_two_carry_types",
                                  "cond_shape_mismatch", "cond_two_mismatches",
                                  "cond_dict_keys", "scan_body_triple"])
def test_full_error_messages(name):
    e_d, e_j = check_error_against_jax(ERROR_CASES[name], ())
    strip = re.compile(r"\n-{20}\nFor simplicity.*", re.S)
    # branch lines name the lambda's source line, which differs between the two builders
    src = re.compile(r" at \S+:\d+")
    assert src.sub("", strip.sub("", str(e_d))) == src.sub("", strip.sub("", str(e_j)))


@pytest.mark.parametrize("dynamic", [True, False])
def test_reverse_mode_of_while_raises(dynamic):
    def builder(jnp, lax):
        if dynamic:
            return lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)
        return lambda x, n: lax.while_loop(lambda c: c < n, lambda c: c * 2.0, x)
    e_d, _ = check_error_against_jax(builder, (1.0, 3.0 if not dynamic else np.int32(3)),
                                     transform=lambda m, f: m.jit(m.grad(f)))
    assert "Reverse-mode differentiation does not work for lax.while_loop" in str(e_d)


# ----------------------------------------------------------------------------------------
# lowering, DCE, effects, eager caching
# ----------------------------------------------------------------------------------------


def test_lowering_uses_case_and_while():
    lax = didax.lax
    text = didax.jit(lambda i, x: lax.switch(i, [lax.sin, lax.cos], x)).lower(1, 1.0).as_text()
    assert "stablehlo.case" in text
    text = didax.jit(lambda x: lax.scan(lambda c, v: (c + v, c), 0.0, x)).lower(XS).as_text()
    assert "stablehlo.while" in text
    text = didax.jit(lambda x: lax.while_loop(lambda c: c < 5.0, lambda c: c + 1, x)).lower(
        1.0).as_text()
    assert "stablehlo.while" in text


def test_dce_drops_unused_scan_outputs_and_carries():
    lax = didax.lax

    def f(xs):
        (a, b), ys = lax.scan(lambda c, x: ((c[0] + x, c[1] * x), jnp_sin(x)), (0.0, 1.0), xs)
        return a
    jnp_sin = didax.numpy.sin
    closed = didax.make_jaxpr(f)(XS)
    dced, _ = dpe.dce_jaxpr(closed.jaxpr)
    (eqn,) = [e for e in dced.eqns if e.primitive.name == "scan"]
    assert eqn.params["num_carry"] == 1 and len(eqn.outvars) == 1
    assert [e.primitive.name for e in eqn.params["jaxpr"].eqns] == ["convert_element_type",
                                                                     "add"]


def test_dce_of_cond_and_while():
    lax, jnp = didax.lax, didax.numpy
    closed = didax.make_jaxpr(lambda a, b: lax.cond(a > 0, lambda x, y: (x * 2, jnp.sin(y)),
                                                    lambda x, y: (x, y), a, b)[0])(1.0, 2.0)
    dced, used = dpe.dce_jaxpr(closed.jaxpr)
    assert used == [True, False]
    closed = didax.make_jaxpr(lambda x: lax.while_loop(
        lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0, c[2] + c[0]), (0, x, 1.0))[2])(1.0)
    dced, used = dpe.dce_jaxpr(closed.jaxpr)
    (eqn,) = [e for e in dced.eqns if e.primitive.name == "while"]
    assert len(eqn.outvars) == 2 and used == [False]


def test_effects_inside_loops_and_cond_run_in_order():
    seen = []
    lax = didax.lax

    def f(xs):
        def body(c, x):
            didax.debug.callback(lambda v: seen.append(("scan", float(v))), x, ordered=True)
            return c + x, None
        c, _ = lax.scan(body, 0.0, xs)
        lax.cond(c > 0, lambda: didax.debug.callback(lambda: seen.append(("cond", 1.0)),
                                                     ordered=True),
                 lambda: None)
        return lax.while_loop(lambda v: v < 3, lambda v: (didax.debug.callback(
            lambda u: seen.append(("while", float(u))), v, ordered=True), v + 1)[1], 0)
    for run in (f, didax.jit(f)):
        seen.clear()
        assert int(run(np.array([1.0, 2.0], f32))) == 3
        assert seen == [("scan", 1.0), ("scan", 2.0), ("cond", 1.0), ("while", 0.0),
                        ("while", 1.0), ("while", 2.0)]


def test_eager_loops_compile_once_per_structure():
    lax, jnp = didax.lax, didax.numpy
    xs = jnp.asarray(RNG.normal(size=(64, 8)).astype(f32))

    def run(scale):
        def step(h, x):  # a fresh closure (new jaxpr) on every call
            return jnp.tanh(h * scale + x), h.sum()
        return lax.scan(step, jnp.zeros(8, f32), xs)
    run(jnp.float32(0.5))
    before = deager.compiled_cache_size()
    for s in (0.1, 0.2, 0.3):
        out = run(jnp.float32(s))
    assert deager.compiled_cache_size() == before
    oracle.assert_tree_matches(out, jax.lax.scan(
        lambda h, x: (jax.numpy.tanh(h * np.float32(0.3) + x), h.sum()),
        np.zeros(8, f32), np.asarray(xs)), scale=10.0)


def test_eager_cond_runs_only_the_selected_branch():
    ran = []
    didax.lax.cond(True, lambda: ran.append("t") or 1.0, lambda: ran.append("f") or 2.0)
    assert sorted(ran) == ["f", "t"]  # both are traced, like JAX
    out = didax.lax.switch(5, [lambda x: x + 1, lambda x: x * 10], didax.numpy.float32(2))
    assert float(out) == 20.0


@pytest.mark.parametrize("case", [
    lambda lax: lax.reduce(M, 1, lax.add, (0,)),  # init dtype differs from the operand's
    lambda lax: lax.reduce((M,), (0.0, 1.0), lax.add, (0,)),  # tree mismatch
])
def test_reduce_errors_match_jax(case):
    check_error_against_jax(lambda jnp, lax: lambda: case(lax), ())


def test_reduce_jaxpr_and_lowering_text_match_jax():
    def texts(top):
        f = lambda m: top.lax.reduce((m, m), (0.0, 1.0),  # noqa: E731
                                     lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,))
        return str(top.make_jaxpr(f)(M)), top.jit(f).lower(M).as_text()
    assert texts(didax) == texts(jax)
