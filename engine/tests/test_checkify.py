"""jax.experimental.checkify against JAX: user checks (messages with run-time values),
automatic checks (NaN, division by zero, out-of-bounds indexing), checks without checkify
(eager JaxRuntimeError, jit's "not functionalized" ValueError), and composition with jit,
vmap (batched errors), grad, control flow and custom derivative rules.

Error values are compared by their messages (codes are process-wide counters) and the
function outputs leaf by leaf."""

from __future__ import annotations

import importlib

import didax
import jax
import numpy as np
import pytest
from jaxcompare import assert_same_error, raised, same


def _ck(lib):
    return importlib.import_module(f"{lib.__name__}.experimental.checkify")


def _msg(err):
    return err.get()


def test_user_checks_eager_and_jit():
    def run(lib, jnp):
        ck = _ck(lib)

        def f(x, i):
            ck.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
            ck.check(x.sum() < 10, "sum {:.2f} of {} too big", x.sum(), x)
            return jnp.sin(x[i])

        cf = ck.checkify(f)
        x = jnp.arange(3.0)
        out = []
        for args in [(x, -2), (x * 5, 1), (x, 1)]:
            e1, y1 = cf(args[0], jnp.int32(args[1]))
            e2, y2 = lib.jit(cf)(*args)
            out += [_msg(e1), _msg(e2), str(e2), y1, y2]
        return out

    same(run)


def test_automatic_checks():
    def run(lib, jnp):
        ck = _ck(lib)
        lax = lib.lax
        cases = [
            (lambda x, i: jnp.sin(x) / i, (jnp.array([1.0, jnp.inf]), 1.0)),
            (lambda x, i: x / i, (jnp.ones(2), 0.0)),
            (lambda x, i: x // i, (jnp.arange(2), jnp.int32(0))),
            (lambda x, i: x[i], (jnp.ones(5), 100)),
            (lambda x, i: x[i], (jnp.ones(3), -5)),
            (lambda x, i: x[i, 1], (jnp.ones((3, 4)), 5)),
            (lambda x, i: jnp.take(x, jnp.array([0, i, 9])), (jnp.ones(3), 4)),
            (lambda x, i: x.at[i].set(1.0), (jnp.ones((3, 4)), 5)),
            (lambda x, i: x.at[jnp.array([0, i])].add(1.0), (jnp.ones(3), 7)),
            (lambda x, i: lax.dynamic_slice(x, (i,), (2,)), (jnp.ones(3), 2)),
            (lambda x, i: lax.dynamic_update_slice(x, jnp.zeros(2), (i,)), (jnp.ones(3), 2)),
            (lambda x, i: jnp.log(x).sum() + i, (-jnp.ones(2), 0.0)),
        ]
        out = []
        for f, args in cases:
            for errors in (ck.all_checks, ck.nan_checks, ck.index_checks, ck.div_checks):
                err, y = ck.checkify(f, errors=errors)(*args)
                out.append(_msg(err))
            err, y = lib.jit(ck.checkify(f, errors=ck.automatic_checks))(*args)
            out += [_msg(err), y]
        return out

    same(run)


def test_check_without_checkify():
    def f(ck, jnp):
        def g(x):
            ck.check(x > 0, "{} must be positive!", x)
            return jnp.log(x)
        return g

    for call in [
        lambda lib, jnp: f(_ck(lib), jnp)(jnp.float32(-1.0)),
        lambda lib, jnp: lib.jit(f(_ck(lib), jnp))(jnp.float32(1.0)),
        lambda lib, jnp: lib.vmap(f(_ck(lib), jnp))(jnp.array([1.0, -2.0, -3.0])),
        lambda lib, jnp: lib.grad(f(_ck(lib), jnp))(jnp.float32(-1.0)),
        lambda lib, jnp: _ck(lib).check(False, "plain"),
        lambda lib, jnp: _ck(lib).check(jnp.array([True]), "x"),
        lambda lib, jnp: _ck(lib).check(jnp.array(True), "x {}", 3),
        lambda lib, jnp: _ck(lib).check_error(3),
        lambda lib, jnp: _ck(lib).checkify(f(_ck(lib), jnp))(-1.0),
    ]:
        e_j, e_d = raised(call, jax, jax.numpy), raised(call, didax, didax.numpy)
        assert_same_error(e_d, e_j)
        assert isinstance(e_d, ValueError) == isinstance(e_j, ValueError)
    same(lambda lib, jnp: [f(_ck(lib), jnp)(jnp.float32(2.0)),
                           lib.grad(f(_ck(lib), jnp))(jnp.float32(2.0))])

    def debug(lib, jnp):
        ck = _ck(lib)

        def g(x):
            ck.debug_check(x > 0, "debug {}", x)
            return x
        return [g(jnp.float32(-1.0)), lib.jit(g)(jnp.float32(-1.0)),
                _msg(ck.checkify(g)(jnp.float32(-1.0))[0])]
    same(debug)


def test_error_methods():
    def run(lib, jnp):
        ck = _ck(lib)
        err, _ = ck.checkify(jnp.log, errors=ck.nan_checks)(jnp.float32(-1.0))
        e_throw = raised(err.throw)
        e_check = raised(ck.check_error, err)
        exc = err.get_exception()
        recheck = ck.checkify(lambda: ck.check_error(err), errors=ck.all_checks)()[0]
        ok, _ = ck.checkify(jnp.log, errors=ck.nan_checks)(jnp.float32(1.0))
        return [type(e_throw).__name__, str(e_throw), type(e_check).__name__,
                type(exc).__name__, str(exc), _msg(recheck), ok.get(), str(ok),
                str(ck.init_error), len(lib.tree_util.tree_leaves(err)),
                sorted(t.__name__ for t in ck.all_checks), raised(ok.throw) is None]

    same(run)


def test_vmap_batched_errors():
    def run(lib, jnp):
        ck = _ck(lib)

        def f(x, i):
            ck.check(i >= 0, "index needs to be non-negative!")
            return x[i]

        cf = ck.checkify(f, errors=ck.all_checks)
        xs, idx = jnp.ones((3, 5)), jnp.array([-1, 2, 100])
        errs, out = lib.vmap(cf)(xs, idx)
        errs_j, _ = lib.jit(lib.vmap(cf))(xs, idx)
        err2, out2 = ck.checkify(lib.vmap(f), errors=ck.all_checks)(xs, idx)
        e = raised(errs.throw)
        return [_msg(errs), _msg(errs_j), str(e), type(errs.get_exception()).__name__,
                _msg(err2), out, out2]

    same(run)


def test_control_flow():
    def run(lib, jnp):
        ck, lax = _ck(lib), lib.lax

        def cond_f(x):
            def t(x):
                ck.check(x < 5, "true branch: {} >= 5", x)
                return jnp.sin(x)
            return lax.cond(x > 0, t, jnp.log, x)

        def while_f(x):
            def cond(c):
                ck.check(c[0] < 10, "cond check i={}", c[0])
                return (c[1] < 100.0) & (jnp.abs(c[1]) < 1000.0)

            def body(c):
                ck.check(c[1] > 0, "body check v={}", c[1])
                return c[0] + 1, c[1] * 2
            return lax.while_loop(cond, body, (0, x))

        def scan_f(xs):
            def body(c, x):
                ck.check(x >= 0, "negative {x} at carry {c}", x=x, c=c)
                return c + x, jnp.sqrt(x)
            return lax.scan(body, 0.0, xs)

        def switch_f(i, x):
            return lax.switch(i, [lambda x: x / 0.0, lambda x: x[None][3], jnp.log], x)

        out = []
        for f, args in [(cond_f, (1.0,)), (cond_f, (7.0,)), (cond_f, (-1.0,)),
                        (while_f, (1.0,)), (while_f, (0.001,)), (while_f, (-1.0,)),
                        (scan_f, (jnp.array([1.0, 2.0]),)),
                        (scan_f, (jnp.array([1.0, -2.0, -3.0]),)),
                        (switch_f, (0, 2.0)), (switch_f, (1, 2.0)), (switch_f, (2, -2.0))]:
            cf = ck.checkify(f, errors=ck.all_checks)
            args = [jnp.asarray(a) for a in args]
            e1, y1 = cf(*args)
            e2, y2 = lib.jit(cf)(*args)
            out += [_msg(e1), _msg(e2), y1, y2]
        errs, ys = lib.vmap(ck.checkify(scan_f))(jnp.array([[1.0, -2.0], [1.0, 1.0]]))
        out += [_msg(errs), ys]
        e = raised(lambda: ck.checkify(lib.vmap(while_f))(jnp.array([1.0, -1.0])))
        return out + [str(e)]

    same(run)


def test_grad_and_custom_rules():
    def run(lib, jnp):
        ck = _ck(lib)

        def mlp(w, x):
            h = lib.nn.relu(x @ w)
            ck.check(jnp.all(jnp.isfinite(h)), "hidden not finite, max={m}", m=jnp.max(h))
            return -lib.nn.log_softmax(h)[:, 0].mean()

        w = jnp.array([[0.5, -1.0], [2.0, 0.3], [-0.7, 1.1]])
        x = jnp.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
        cl = ck.checkify(mlp, errors=ck.all_checks)
        g1 = lib.grad(lambda w: cl(w, x)[1])(w)
        g2 = lib.jit(lib.grad(lambda w: cl(w, x)[1]))(w)
        e3, g3 = ck.checkify(lib.grad(mlp), errors=ck.all_checks)(w, x)
        e4, _ = lib.jit(cl)(w.at[0, 0].set(jnp.inf), x)

        @lib.custom_vjp
        def cv(x):
            ck.check(x > 0, "cv {}", x)
            return jnp.sqrt(x)
        cv.defvjp(lambda x: (cv(x), x), lambda r, g: (g / r,))

        @lib.checkpoint
        def rm(x):
            ck.check(x > 0, "remat {}", x)
            return jnp.sin(jnp.sin(x))

        out = [g1, g2, _msg(e3), g3, _msg(e4)]
        for fn in (cv, rm):
            for v in (-1.0, 4.0):
                e, y = ck.checkify(fn)(jnp.float32(v))
                eg, gy = ck.checkify(lib.grad(fn))(jnp.float32(v))
                # grad of checkify runs cv's fwd, which calls cv: its check raises (JAX too)
                e2 = raised(lib.grad(lambda z, fn=fn: ck.checkify(fn)(z)[1]), jnp.float32(v))
                out += [_msg(e), y, _msg(eg), gy, type(e2).__name__, str(e2)]
        return out

    same(run, scale=10.0)


@pytest.mark.parametrize("lib", [didax, jax], ids=["didax", "jax"])
def test_check_in_custom_vjp_bwd_raises(lib):
    ck = _ck(lib)

    @lib.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (f(x), None), lambda _, g: (ck.check(g < 0, "negative!"), (g,))[1])
    with pytest.raises(ck.JaxRuntimeError, match="negative! \\(`check` failed\\)"):
        lib.grad(f)(-1.0)
    assert np.isclose(lib.grad(lambda x: -f(x))(1.0), -1.0)


def test_pmap_and_shard_map():
    """Errors from a device-mapped body are per device (a batched error), as JAX's; here
    over one device (test_shard_map covers meshes of several)."""
    def run(lib, jnp):
        ck = _ck(lib)

        def f(x, i):
            ck.check(i >= 0, "index needs to be non-negative!")
            return x[i]

        def g(x):
            ck.check(jnp.all(x > 0), "positive {}", x)
            return jnp.log(x) * 2

        P = lib.sharding.PartitionSpec
        mesh = lib.sharding.Mesh(lib.devices()[:1], ("x",))
        sm = lib.shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
        out = []
        for i in (-1, 100, 2):
            err, y = lib.pmap(ck.checkify(f, errors=ck.index_checks | ck.user_checks))(
                jnp.ones((1, 5)), jnp.array([i]))
            out += [_msg(err), y, str(raised(err.throw))]
        out.append(_msg(ck.checkify(lib.pmap(f))(jnp.ones((1, 5)), jnp.array([-1]))[0]))
        for v in ([1.0, 2.0], [-1.0, 2.0]):
            for cf in (ck.checkify(sm), lib.jit(ck.checkify(sm))):
                err, y = cf(jnp.array(v))
                out += [_msg(err), y]
        return out

    same(run)
