"""jax.shard_map over 8 CPU devices, against real JAX: values (eager, jit, grad, vmap),
result shardings, what the body prints and what jax.typeof shows inside it, the
collectives (psum, all_gather, ppermute, psum_scatter, all_to_all, axis_index, pcast),
JAX's errors for bad specs, and callbacks over sharded arrays.

The cases run in a subprocess started with XLA_FLAGS=--xla_force_host_platform_device_count=8
(`python test_shard_map.py --cases` prints a JSON report, one entry per case).
"""

from __future__ import annotations

import contextlib
import io
import sys
from functools import partial

import device_cases
import numpy as np
import pytest

N_DEVICES = 8


def _assert_same(got, want, rtol=2e-5, atol=1e-5):
    import didax  # noqa: PLC0415
    import jax  # noqa: PLC0415

    gl, gt = didax.tree_util.tree_flatten(got)
    wl, wt = jax.tree_util.tree_flatten(want)
    assert str(gt) == str(wt), (gt, wt)
    for g, w in zip(gl, wl):
        if isinstance(w, str):
            assert g == w, f"\n{g}\n!=\n{w}"
            continue
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _printed(f):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f()
    return buf.getvalue()


A = np.arange(8 * 16.0, dtype=np.float32).reshape(8, 16)
B = np.arange(16 * 4.0, dtype=np.float32).reshape(16, 4)
V16 = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2], np.int32)


def _mesh2(j, types=None):
    return j.make_mesh((4, 2), ("x", "y"), types)


def _matmul(j, lax, jnp):
    return j.shard_map(lambda a, b: lax.psum(jnp.dot(a, b), "y"),
                       in_specs=(j.P("x", "y"), j.P("y", None)), out_specs=j.P("x", None))


def _with_mesh(mesh, f):
    import didax  # noqa: PLC0415
    import jax  # noqa: PLC0415

    lib = didax if type(mesh).__module__.startswith("didax") else jax
    with lib.set_mesh(mesh):
        return f()


def _case_matmul(j, lax, jnp, jit=False):
    mesh = _mesh2(j)

    def run():
        a = j.device_put(A, j.P("x", "y"))
        b = j.device_put(B, j.P("y", None))
        f = _matmul(j, lax, jnp)
        c = (j.jit(f) if jit else f)(a, b)
        return c, str(c.sharding)
    return _with_mesh(mesh, run)


def _case_collectives(j, lax, jnp):
    mesh = j.sharding.Mesh(np.array(j.devices()[:4]), ("i",))
    P = j.P

    def sm(f, out=P("i")):
        return j.shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=out)(V16)
    perm = [(i, (i + 1) % 4) for i in range(4)]
    return (sm(lambda x: lax.psum(x, "i"), P()),
            sm(lambda x: lax.all_gather(x, "i", tiled=True)),
            sm(lambda x: lax.all_gather(x, "i")),
            sm(lambda x: lax.psum_scatter(x, "i", tiled=True)),
            sm(lambda x: lax.ppermute(x, "i", perm)),
            sm(lambda x: lax.ppermute(x, "i", perm[:2])),
            sm(lambda x: lax.all_to_all(x, "i", 0, 0, tiled=True)),
            sm(lambda x: lax.all_to_all(x.reshape(4, 1), "i", 0, 1) * lax.axis_size("i")),
            sm(lambda x: x * lax.axis_index("i")),
            sm(lambda x: lax.pmean(x.astype(jnp.float32), "i"), P()))


def _case_2d_reductions(j, lax, jnp):
    mesh = j.sharding.Mesh(np.array(j.devices()[:4]).reshape(2, 2), ("i", "j"))
    P = j.P
    x = np.arange(16).reshape(4, 4)
    outs = []
    for axes, spec in [("i", P(None, "j")), (("i", "j"), P(None, None)), ("j", P("i"))]:
        outs.append(j.shard_map(lambda b, axes=axes: lax.psum(b, axes), mesh=mesh,
                                in_specs=P("i", "j"), out_specs=spec)(x))
    outs.append(j.shard_map(lambda b: b, mesh=mesh, in_specs=P(("i", "j")),
                            out_specs=P(("j", "i")))(np.arange(8)))
    return outs


def _case_tile_constant(j, lax, jnp):
    mesh = j.make_mesh((4, 2), ("i", "j"), (j.sharding.AxisType.Auto,) * 2)
    x = jnp.array([[3.0]])
    return _with_mesh(mesh, lambda: [
        j.shard_map(lambda: x, in_specs=(), out_specs=s)()
        for s in (j.P("i", "j"), j.P("i", None), j.P(None, None))])


def _case_prints(j, lax, jnp):
    mesh = j.make_mesh((4, 2), ("i", "j"))

    def body(x):
        print(j.typeof(x))
        y = lax.psum(x, "j")
        print(j.typeof(y), sorted(j.typeof(y).manual_axis_type.varying))
        print("BLOCKS", y)
        z = lax.pcast(jnp.ones(2), "i", to="varying")
        print(j.typeof(z))
        return y

    def run():
        x = j.device_put(np.arange(8 * 4.0, dtype=np.float32).reshape(8, 4), j.P("i", "j"))
        return j.shard_map(body, in_specs=j.P("i", "j"), out_specs=j.P("i"))(x)
    return _printed(lambda: _with_mesh(mesh, run))


def _predict(jnp, params, x):
    for w, b in params:
        x = jnp.tanh(jnp.dot(x, w) + b)
    return x


def _params():
    rng = np.random.RandomState(0)
    return [(rng.randn(16, 8).astype(np.float32) / 4, rng.randn(8).astype(np.float32)),
            (rng.randn(8, 8).astype(np.float32) / 3, rng.randn(8).astype(np.float32))]


def _case_data_parallel_grad(j, lax, jnp, jit=False, fsdp=False):
    mesh = j.make_mesh((4,), ("batch",))
    rng = np.random.RandomState(1)
    xs, ys = rng.randn(8, 16).astype(np.float32), rng.randn(8, 8).astype(np.float32)

    def local_loss(params, batch):
        if fsdp:
            params = [(lax.all_gather(w, "batch", tiled=True),
                       lax.all_gather(b, "batch", tiled=True)) for w, b in params]
        pred = _predict(jnp, params, batch[0])
        return lax.pmean(jnp.mean((pred - batch[1]) ** 2), "batch")

    def run():
        batch = j.device_put((xs, ys), j.P("batch"))
        params = j.device_put(_params(), j.P("batch") if fsdp else j.P())
        loss = j.shard_map(local_loss, out_specs=j.P())
        g = j.grad(loss)
        g = j.jit(g) if jit else g
        return loss(params, batch), g(params, batch)
    return _with_mesh(mesh, run)


def _case_tensor_parallel(j, lax, jnp):
    mesh = j.make_mesh((4,), ("feats",))
    rng = np.random.RandomState(2)
    x, w, b = (rng.randn(4, 8).astype(np.float32), rng.randn(8, 8).astype(np.float32),
               rng.randn(8).astype(np.float32))

    @j.shard_map(in_specs=(j.P(None, "feats"), j.P("feats", None), j.P("feats")),
                 out_specs=j.P(None, "feats"))
    def gemm(x, w, b):
        return lax.psum_scatter(jnp.dot(x, w), "feats", scatter_dimension=1, tiled=True) + b

    def run():
        args = (j.device_put(x, j.P(None, "feats")), j.device_put(w, j.P("feats", None)),
                j.device_put(b, j.P("feats")))
        loss = lambda *a: jnp.sum(jnp.sin(gemm(*a)))  # noqa: E731
        return gemm(*args), j.jit(j.grad(loss, argnums=(0, 1, 2)))(*args)
    return _with_mesh(mesh, run)


def _case_ring_grad(j, lax, jnp):
    mesh = j.sharding.Mesh(np.array(j.devices()[:4]), ("i",))

    def f(x):
        y = j.shard_map(lambda v: jnp.sin(lax.ppermute(v, "i", [(k, (k + 1) % 4)
                                                            for k in range(4)])) * v,
                        mesh=mesh, in_specs=j.P("i"), out_specs=j.P("i"))(x)
        return (y ** 2).sum()
    x = np.linspace(0, 1, 8, dtype=np.float32)
    return j.grad(f)(x), j.jit(j.grad(f))(x), j.jit(f)(x)


def _case_scan_pcast(j, lax, jnp):
    mesh = j.make_mesh((2,), ("i",))

    def f(x, y):
        y = lax.pcast(y, "i", to="varying")
        (a, b), _ = lax.scan(lambda c, _: ((c[1], c[0]), ()), (x, y), (), length=3)
        return a, b

    def run():
        x = j.device_put(jnp.arange(6.0), j.P("i"))
        sm = j.shard_map(f, in_specs=(j.P("i"), j.P()), out_specs=j.P("i"))
        return sm(x, jnp.arange(3.0)), j.jit(sm)(x, jnp.arange(3.0))
    return _with_mesh(mesh, run)


def _case_vmap_and_experimental(j, lax, jnp):
    from importlib import import_module  # noqa: PLC0415

    mesh = j.sharding.Mesh(np.array(j.devices()[:4]), ("i",))
    smap = import_module(j.__name__ + ".experimental.shard_map").shard_map
    f = smap(lambda v: v * lax.psum(v, "i"), mesh, in_specs=j.P("i"), out_specs=j.P("i"),
             check_rep=False)
    xs = np.arange(24.0, dtype=np.float32).reshape(3, 8)
    return f(xs[0]), j.vmap(f)(xs)


def _case_partial_manual(j, lax, jnp):
    mesh = j.make_mesh((4, 2), ("i", "j"), (j.sharding.AxisType.Auto,) * 2)

    def run():
        f = j.shard_map(lambda x: lax.psum(x.sum(1, keepdims=True), "i"), mesh=mesh,
                        in_specs=j.P("i"), out_specs=j.P(), axis_names={"i"})
        return j.jit(f)(np.arange(32.0, dtype=np.float32).reshape(8, 4))
    return _with_mesh(mesh, run)


def _case_callbacks(j, lax, jnp):
    mesh = j.make_mesh((4,), ("i",))
    seen = []

    def host(x):
        seen.append(np.shape(x))
        return np.asarray(x) * 2

    def f(x):
        return j.pure_callback(host, j.ShapeDtypeStruct(x.shape, x.dtype), x)

    def run():
        x = j.device_put(jnp.arange(8.0), j.P("i"))
        return (j.jit(f)(x), j.shard_map(f, in_specs=j.P("i"), out_specs=j.P("i"))(x),
                str(seen))
    return _with_mesh(mesh, run)


VALUE_CASES = {
    "matmul_eager": _case_matmul,
    "matmul_jit": partial(_case_matmul, jit=True),
    "collectives": _case_collectives,
    "reductions_2d": _case_2d_reductions,
    "tile_constant_outputs": _case_tile_constant,
    "prints_and_types": _case_prints,
    "data_parallel_grad": _case_data_parallel_grad,
    "data_parallel_jit_grad": partial(_case_data_parallel_grad, jit=True),
    "fsdp_jit_grad": partial(_case_data_parallel_grad, jit=True, fsdp=True),
    "tensor_parallel": _case_tensor_parallel,
    "ring_grad": _case_ring_grad,
    "scan_pcast": _case_scan_pcast,
    "vmap_and_experimental": _case_vmap_and_experimental,
    "partial_manual": _case_partial_manual,
    "callbacks": _case_callbacks,
}


def _jaxpr_mixed(j, lax, jnp):
    mesh = j.make_mesh((2,), ("i",))

    def run():
        f = j.shard_map(lambda x, y: x * y, in_specs=(j.P("i"), j.P()), out_specs=j.P("i"))
        return str(j.make_jaxpr(f)(j.device_put(jnp.arange(6.0), j.P("i")), jnp.arange(3.0)))
    return _with_mesh(mesh, run)


def _jaxpr_2d(j, lax, jnp):
    mesh = j.make_mesh((4, 2), ("i", "j"))

    def body(x, y):
        s = lax.psum(x, "j")
        return s * y + lax.axis_index("j"), lax.psum(s, "i")

    def run():
        f = j.shard_map(body, in_specs=(j.P("i", "j"), j.P()), out_specs=(j.P("i", "j"), j.P()))
        x = j.device_put(jnp.ones((8, 4)), j.P("i", "j"))
        return str(j.make_jaxpr(f)(x, jnp.ones((2, 2))))
    return _with_mesh(mesh, run)


def _random_out_sharding(j, lax, jnp):
    mesh = _mesh2(j)

    def run():
        k = j.random.key(0)
        x = j.random.normal(k, (8, 4), out_sharding=j.P("x", "y"))
        u = j.jit(lambda k: j.random.uniform(k, (8,), out_sharding=j.P("x")))(k)
        return x, str(x.sharding), u
    return _with_mesh(mesh, run)


def _unchecked_index_debug_print(j, lax, jnp):
    mesh = _mesh2(j)
    P = j.P

    def h(v):
        j.debug.print("v={v}", v=v)
        print(j.sharding.get_abstract_mesh())
        return v + lax.axis_index(("x", "y"))

    def run():
        x = j.device_put(jnp.arange(8.0).reshape(4, 2), P("x", "y"))
        f = j.shard_map(lambda v: v * 2, in_specs=P("x", "y"), out_specs=P(), check_vma=False)
        out = [f(x), j.jit(f)(x)]
        text = _printed(lambda: out.append(j.shard_map(h, in_specs=P("x", "y"),
                                                        out_specs=P("x", "y"))(x)))
        return out, text
    return _with_mesh(mesh, run)


VALUE_CASES["random_out_sharding"] = _random_out_sharding
VALUE_CASES["unchecked_index_debug_print"] = _unchecked_index_debug_print
VALUE_CASES["jaxpr_mixed_vma"] = _jaxpr_mixed
VALUE_CASES["jaxpr_2d_collectives"] = _jaxpr_2d


def _err_vma(j, lax, jnp):
    mesh = j.make_mesh((2,), ("i",))
    x = _with_mesh(mesh, lambda: j.device_put(jnp.arange(6.0), j.P("i")))
    return _with_mesh(mesh, lambda: j.shard_map(lambda v: v, in_specs=j.P("i"),
                                                out_specs=j.P())(x))


def _err_in_layout(j, lax, jnp):
    mesh = j.make_mesh((2,), ("i",))
    return _with_mesh(mesh, lambda: j.shard_map(lambda v: v, in_specs=j.P("i"),
                                                out_specs=j.P("i"))(jnp.arange(6.0)))


def _err_divisibility(j, lax, jnp):
    mesh = j.sharding.Mesh(np.array(j.devices()[:4]), ("i",))
    return j.shard_map(lambda v: v, mesh=mesh, in_specs=j.P("i"),
                       out_specs=j.P("i"))(jnp.arange(6.0))


def _err_unknown_axis(j, lax, jnp):
    mesh = j.sharding.Mesh(np.array(j.devices()[:4]), ("i",))
    return j.shard_map(lambda v: v, mesh=mesh, in_specs=j.P("k"),
                       out_specs=j.P("i"))(jnp.arange(8.0))


def _err_no_mesh(j, lax, jnp):
    return j.shard_map(lambda v: v, in_specs=j.P("i"), out_specs=j.P("i"))(jnp.arange(8.0))


ERROR_CASES = {
    "out_specs_replication": (_err_vma, True),
    "in_specs_vs_layout": (_err_in_layout, True),
    "not_divisible": (_err_divisibility, True),
    "unknown_axis": (_err_unknown_axis, True),
    "no_mesh": (_err_no_mesh, True),
}


def _run_case(kind: str, name: str) -> None:
    import didax  # noqa: PLC0415
    import didax.lax as dlax  # noqa: PLC0415
    import didax.numpy as dnp  # noqa: PLC0415
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415
    from jax import lax as jlax  # noqa: PLC0415

    if kind == "value":
        case = VALUE_CASES[name]
        _assert_same(case(didax, dlax, dnp), case(jax, jlax, jnp))
        return
    case, same_message = ERROR_CASES[name]
    errs = []
    for lib in ((didax, dlax, dnp), (jax, jlax, jnp)):
        try:
            case(*lib)
        except Exception as e:  # noqa: BLE001
            errs.append(e)
        else:
            raise AssertionError(f"{lib[0].__name__}: no error raised")
    got, want = errs
    assert type(got).__name__ == type(want).__name__, (got, want)
    if same_message:
        assert str(got) == str(want), f"\n{got}\n!=\n{want}"


def _all_cases() -> list[tuple[str, str]]:
    return [("value", n) for n in VALUE_CASES] + [("error", n) for n in ERROR_CASES]




@pytest.fixture(scope="module")
def device_report():
    return device_cases.device_report(__file__, N_DEVICES)


@pytest.mark.parametrize("case", [f"{k}/{n}" for k, n in _all_cases()])
def test_on_eight_devices(device_report, case):
    assert device_report[case] == "ok", device_report[case]


if __name__ == "__main__" and "--cases" in sys.argv:
    device_cases.print_report(_all_cases(), _run_case)
