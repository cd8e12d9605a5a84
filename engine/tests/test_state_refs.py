"""Mutable array references (`jax.new_ref`, `jax.ref`) against JAX 0.10: eager reads and
writes, the printed Ref, jitted programs updating refs in place (closed over, passed in,
nested jits, loops and branches), the jaxpr text of programs using refs, grad/jvp/vmap of
functions with internal refs, vmap over ref arguments, and JAX's errors for the uses it
rejects.

Each case is a program written once against a `jax`-like module; it returns a list of
strings (reprs, jaxpr texts, `ExceptionType: message`), compared line for line.
"""

from __future__ import annotations

import didax
import jax
import pytest

CASES: dict = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def attempt(out: list, f) -> None:
    try:
        out.append(repr(f()))
    except Exception as e:  # noqa: BLE001 - the error is the result compared
        out.append(f"{type(e).__name__}: {e}")


@case
def eager_reads_writes(jx):
    jnp = jx.numpy
    r = jx.new_ref(jnp.arange(12.).reshape(3, 4))
    out = [repr(r), str(jx.typeof(r)), repr(r[1]), repr(r[1, 2]), repr(r[:, 1])]
    r[0] = r[2]
    r[1, :3] += 10.
    r[jnp.array([0, 2]), jnp.array([1, 3])] = jnp.array([-1., -2.])
    out.append(repr(jx.ref.swap(r, (2, 0), 5.)))
    jx.ref.addupdate(r, 1, jnp.ones(4))
    out += [repr(r), repr(jx.freeze(r)), repr(jx.new_ref(3)), repr(jx.new_ref(2.5))]
    out += [str((r.shape, r.dtype, r.ndim, r.size, len(r))), str(isinstance(r, jx.Ref))]
    return out


@case
def eager_errors(jx):
    jnp = jx.numpy
    r = jx.new_ref(jnp.zeros(3))
    out: list = []
    attempt(out, lambda: r.__setitem__(..., jnp.ones(4)))
    attempt(out, lambda: r.__setitem__(0, 5))
    attempt(out, lambda: r[5])
    attempt(out, lambda: r + 1)
    attempt(out, lambda: jx.new_ref([1., 2.]))
    return out


@case
def jit_updates_in_place(jx):
    jnp = jx.numpy
    x_ref = jx.new_ref(jnp.zeros(3))

    @jx.jit
    def f():
        x_ref[1] += 1.

    f()
    f()

    @jx.jit
    def g(a_ref, x):
        a_ref[...] = jnp.sin(a_ref[...]) + x
        return a_ref[0] * 2

    a = jx.new_ref(jnp.arange(3.))
    y = g(a, 1.0)
    y2 = jx.jit(lambda x: g(a, x))(2.0)  # nested jit
    k = jx.new_ref(0)
    jx.jit(lambda v: k.__setitem__(..., v))(7)
    return [repr(x_ref), repr(y), repr(y2), repr(a), repr(k)]


@case
def jaxpr_text(jx):
    jnp = jx.numpy
    r = jx.new_ref(jnp.zeros((2, 3)))

    def internal(x):
        s = jx.new_ref(x)
        s[...] += 1.
        s[1] = 3.
        return s[...] * 2, s[0:2], jx.freeze(s)

    def with_arg(a_ref, x):
        a_ref[...] = x
        a_ref[0] += x[1]
        return a_ref[2]

    def closed(x):
        r[0, 1] = x
        r[:, 2] += x
        return r[1]

    b = jx.new_ref(jnp.zeros(3))
    return [str(jx.make_jaxpr(internal)(jnp.arange(3.))),
            str(jx.make_jaxpr(with_arg)(b, jnp.ones(3))),
            str(jx.jit(with_arg).trace(b, jnp.ones(3)).jaxpr),
            str(jx.make_jaxpr(closed)(1.0)),
            str(jx.make_jaxpr(jx.jit(closed))(1.0)),
            str(jx.make_jaxpr(lambda x: jx.ref.addupdate(jx.new_ref(x), (), 2.))(1.))]


@case
def loops_and_branches(jx):
    jnp, lax = jx.numpy, jx.lax
    r = jx.new_ref(jnp.zeros(5))

    def body(i, c):
        r[i] += c
        return c * 2.

    out = [repr(lax.fori_loop(0, 5, body, 1.0)), repr(r)]
    out.append(repr(jx.jit(lambda k: lax.fori_loop(0, k, body, 1.0))(3)))
    n = jx.new_ref(0)

    def wbody(c):
        n[...] += 1
        return c + 1.

    out.append(repr(jx.jit(lambda x: lax.while_loop(lambda c: c < 4., wbody, x))(0.)))
    c_ref = jx.new_ref(jnp.float32(0))

    def branch(x):
        c_ref[...] = x
        return x

    out.append(repr(jx.jit(lambda p: lax.cond(p, branch, lambda x: x * 0, 4.))(True)))
    t = jx.new_ref(0)
    ys = lax.scan(lambda _, x: (None, t.__setitem__(..., t[...] + x) or x * 2), None,
                  jnp.arange(5))[1]
    out += [repr(r), repr(n), repr(c_ref), repr(t), repr(ys)]
    out.append(str(jx.make_jaxpr(lambda: lax.fori_loop(0, 5, body, 1.0))()))
    return out


@case
def autodiff_internal_refs(jx):
    jnp, lax = jx.numpy, jx.lax

    def g(x):
        x_ref = jx.new_ref(0.)
        x_ref[...] = jnp.sin(x)
        return x_ref[...]

    def h(x):
        acc = jx.new_ref(jnp.zeros(()))

        def b(i, c):
            acc[...] += x * i
            return c

        lax.fori_loop(0, 4, b, 0.)
        return acc[...]

    def k(x):
        s = jx.new_ref(x)
        s[...] = s[...] * s[...]
        return s[...]

    return [repr(jx.grad(g)(1.0)), repr(jx.jit(jx.grad(g))(1.0)), repr(jx.grad(h)(2.0)),
            repr(jx.jit(jx.grad(h))(2.0)), repr(jx.grad(jx.jit(k))(3.0)),
            repr(jx.jvp(h, (2.0,), (1.0,))),
            repr(jx.grad(lambda x: (x / jx.freeze(jx.new_ref(x.sum()))).sum())(
                jnp.arange(1., 4.)))]


@case
def vmap_refs(jx):
    jnp = jx.numpy

    def dist(x, y, out_ref):
        out_ref[...] = jnp.sum((x - y) ** 2)

    vecs = jnp.arange(12.).reshape(3, 4)
    out_ref = jx.new_ref(jnp.zeros((3, 3)))
    jx.vmap(jx.vmap(dist, (0, None, 0)), (None, 0, 0))(vecs, vecs, out_ref)
    o = jx.new_ref(jnp.zeros(3))

    def w(x, o_ref):
        o_ref[...] += x

    jx.jit(jx.vmap(w))(jnp.arange(3.), o)
    jx.vmap(jx.jit(w))(jnp.arange(3.), o)

    def k(x):
        s = jx.new_ref(x)
        s[...] = s[...] * s[...]
        return s[...]

    return [repr(out_ref), repr(o), repr(jx.vmap(k)(jnp.arange(3.))),
            repr(jx.jit(jx.vmap(k))(jnp.arange(3.))),
            repr(jx.vmap(lambda x, r: r[...] + x, (0, None))(jnp.arange(2.), o))]


@case
def transformation_errors(jx):
    jnp = jx.numpy
    r = jx.new_ref(jnp.zeros(3))
    out: list = []

    def err1(x_ref):
        x_ref[...] = 5.
        return x_ref

    def err3(y_ref):
        y_ref[...] = r[...]

    def write(x):
        r[...] = r[...] + x
        return r[...].sum()

    attempt(out, lambda: jx.jit(err1)(jx.new_ref(0.)))
    attempt(out, lambda: jx.jit(lambda x: jx.new_ref(x))(1.0))
    attempt(out, lambda: jx.jit(lambda a, b: a[...] + b[...])(r, r))
    attempt(out, lambda: jx.jit(err3)(r))
    attempt(out, lambda: jx.grad(write)(1.0))
    attempt(out, lambda: jx.vmap(lambda x: r.__setitem__(0, x))(jnp.arange(3.)))
    attempt(out, lambda: jx.grad(lambda x: (r[...] * x).sum())(1.0))
    return out


@case
def ref_arguments_and_gradient_refs(jx):
    jnp = jx.numpy

    def f(x_ref):
        return x_ref[...] ** 2

    def g(x, r):
        r[...] += 1.
        return x * r[...]

    out: list = []
    x_ref = jx.new_ref(2.)
    attempt(out, lambda: jx.jvp(f, (x_ref,), (jx.new_ref(1.),)))
    attempt(out, lambda: jx.grad(f)(x_ref))
    attempt(out, lambda: jx.vjp(f, x_ref)[1](1.0))
    attempt(out, lambda: (jx.grad(g)(2., x_ref), float(x_ref[...])))
    attempt(out, lambda: (jx.jit(jx.grad(g))(2., x_ref), x_ref))
    w = jx.new_ref(2.)
    w[...] += 1.
    out.append(repr(w))
    grad_ref = jx.new_ref(jnp.zeros(4))
    for i in [1, 3, 1]:
        _, take_vjp = jx.vjp(jx.jit(lambda x, i: x[i]), jnp.arange(4.), i)
        out.append(repr(take_vjp.with_refs(grad_ref, jx.ad.DontWant())(1.0)))
    _, p_vjp = jx.vjp(lambda w, x: w @ x, jnp.ones((2, 2)), jnp.ones(2))
    out += [repr(grad_ref),
            repr(p_vjp.with_refs(jx.ad.GradValue(), jx.ad.DontWant())(jnp.ones(2)))]
    only_w = jx.make_jaxpr(lambda: p_vjp.with_refs(jx.ad.GradValue(), jx.ad.DontWant())(
        jnp.ones(2)))()
    out.append(str(str(only_w).count("dot_general")))
    out.append(str(jx.make_jaxpr(jx.vmap(lambda x, o: o.__setitem__(..., x)))(
        jnp.arange(3.), jx.new_ref(jnp.zeros(3)))))
    return out


@case
def loops_under_transformations(jx):
    jnp, lax = jx.numpy, jx.lax

    def w(x, o):
        def body(i, c):
            o[i] += x * i
            return c
        lax.fori_loop(0, 3, body, 0.)

    o1, o2 = jx.new_ref(jnp.zeros((2, 3))), jx.new_ref(jnp.zeros((2, 3)))
    jx.vmap(w)(jnp.arange(2.), o1)
    jx.jit(jx.vmap(w))(jnp.arange(2.), o2)

    def cumsum(xs):
        r = jx.new_ref(0.)

        def body(c, x):
            r[...] += x
            return c, r[...]
        return lax.scan(body, 0., xs)[1]

    def q(x):
        r = jx.new_ref(x)
        r[...] = lax.cond(x > 0, lambda: r[...] * 2, lambda: r[...] * 3)
        return r[...]

    return [repr(o1), repr(o2), repr(jx.grad(lambda xs: cumsum(xs).sum())(jnp.arange(4.))),
            repr(jx.vmap(cumsum)(jnp.ones((2, 3)))), repr(jx.grad(q)(1.5)),
            repr(jx.jacrev(lambda x: cumsum(x * jnp.arange(3.)))(2.)),
            str(jx.make_jaxpr(cumsum)(jnp.arange(4.)))]


@pytest.mark.parametrize("name", list(CASES))
def test_matches_jax(name):
    build = CASES[name]
    assert build(didax) == build(jax)


def test_ref_module_names():
    public = ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze", "get",
              "new_ref", "set", "swap"]
    for name in public:
        assert hasattr(didax.ref, name), name
    for name in ["new_ref", "freeze", "Ref", "empty_ref", "free_ref"]:
        assert hasattr(didax, name), name
