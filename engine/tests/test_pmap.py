"""pmap over several CPU devices and collectives over named axes, against real JAX.

Device tests run in a subprocess started with
XLA_FLAGS=--xla_force_host_platform_device_count=4 (the flag must be set before an XLA
client exists; this test process already has one): `python test_pmap.py --cases` runs every
case under both libraries and prints a JSON report, one entry per case. The vmap(axis_name=)
collective tests need one device and run in this process.
"""

from __future__ import annotations

import re
import sys

import device_cases
import numpy as np
import pytest

N_DEVICES = 4


# ----------------------------------------------------------------------------------------
# Comparison helpers (used in both processes)
# ----------------------------------------------------------------------------------------


def _assert_same(got, want, rtol=2e-5, atol=1e-5):
    import didax  # noqa: PLC0415
    import jax  # noqa: PLC0415

    gl, gt = didax.tree_util.tree_flatten(got)
    wl, wt = jax.tree_util.tree_flatten(want)
    assert str(gt) == str(wt), (gt, wt)
    for g, w in zip(gl, wl):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _norm_jaxpr(text: str) -> str:
    """JAX prints some batched broadcast dimensions as np.int64(k), which changes line
    breaking; compare modulo that and whitespace."""
    text = re.sub(r"np\.int64\((\d+)\)", r"\1", text)
    text = re.sub(r"\s+", " ", text)
    return text.replace("[ ", "[").replace(" ]", "]")


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e)
    raise AssertionError("no error raised")


# ----------------------------------------------------------------------------------------
# Cases run under 4 devices: each takes (jax, lax, jnp) modules and returns a value
# ----------------------------------------------------------------------------------------

X = np.arange(8.0, dtype=np.float32).reshape(4, 2)


def _f_psum_index(lax):
    return lambda x: lax.psum(x, "i") * lax.axis_index("i")


VALUE_CASES = {
    "psum_axis_index": lambda j, lax, jnp: j.pmap(_f_psum_index(lax), axis_name="i")(X),
    "in_axes_none_pmean": lambda j, lax, jnp: j.pmap(
        lambda x, y: (x + y, lax.pmean(x, "i")), axis_name="i", in_axes=(0, None))(
        X, jnp.ones(2)),
    "pmax_pmin_all_gather": lambda j, lax, jnp: j.pmap(
        lambda x: (lax.pmax(x, "i"), lax.pmin(x, "i"), lax.all_gather(x, "i"),
                   lax.all_gather(x, "i", tiled=True)), axis_name="i")(X),
    "in_out_axes_1": lambda j, lax, jnp: j.pmap(lambda x: x * 2, in_axes=1,
                                                out_axes=1)(X.T),
    "static_arg": lambda j, lax, jnp: j.pmap(lambda x, n: x * n,
                                             static_broadcasted_argnums=1)(X, 3),
    "pytree_and_constant_out": lambda j, lax, jnp: j.pmap(
        lambda d: {"a": d["a"] + 1, "c": 2.0})({"a": X}),
    "closure_over_array": lambda j, lax, jnp: j.pmap(
        lambda v: v * np.array([1.0, 2.0], np.float32))(X),
    "int_and_bool_psum": lambda j, lax, jnp: j.pmap(
        lambda v: (lax.psum(v, "i"), lax.psum(v > 1, "i")), axis_name="i")(jnp.arange(4)),
    "jit_of_pmap": lambda j, lax, jnp: j.jit(j.pmap(_f_psum_index(lax), axis_name="i"))(X),
    "vmap_of_pmap": lambda j, lax, jnp: j.vmap(j.pmap(_f_psum_index(lax), axis_name="i"))(
        np.arange(24.0, dtype=np.float32).reshape(3, 4, 2)),
    "jvp": lambda j, lax, jnp: j.jvp(j.pmap(_f_psum_index(lax), axis_name="i"), (X,),
                                     (jnp.ones_like(X),)),
    "grad": lambda j, lax, jnp: j.grad(
        lambda x: (j.pmap(lambda v: jnp.sin(v) * lax.psum(v, "i"), axis_name="i")(x)
                   ** 2).sum())(X),
    "grad_replicated_arg": lambda j, lax, jnp: j.grad(
        lambda w: j.pmap(lambda v, w: (v * w).sum(), in_axes=(0, None))(X, w).sum())(
        jnp.array([1.0, 2.0])),
    "grad_of_grad_closure": lambda j, lax, jnp: j.grad(j.grad(
        lambda s: j.pmap(lambda v: jnp.sin(v * s), axis_name="i")(X).sum()))(1.5),
    "grad_pmean": lambda j, lax, jnp: j.grad(
        lambda x: j.pmap(lambda v: (v - lax.pmean(v, "i")) ** 2, axis_name="i")(x).sum())(X),
    "grad_all_gather": lambda j, lax, jnp: j.grad(
        lambda x: j.pmap(lambda v: (lax.all_gather(v, "i") * jnp.arange(4.0)[:, None]).sum()
                         * v, axis_name="i")(x).sum())(X),
    "jit_grad_of_pmap": lambda j, lax, jnp: j.jit(j.grad(
        lambda x: (j.pmap(lambda v: jnp.cos(v) * lax.psum(v, "i"), axis_name="i")(x)
                   ** 2).sum()))(X),
    "vmap_inside_pmap": lambda j, lax, jnp: j.pmap(
        lambda v: j.vmap(lambda u: lax.psum(u, "j") + lax.psum(u, "i"), axis_name="j")(v),
        axis_name="i")(X),
    "hessian": lambda j, lax, jnp: j.hessian(lambda x: j.pmap(
        lambda v: jnp.sin(v) * lax.psum(v * v, "i"), axis_name="i")(x).sum())(X[:, :1] / 3),
    "linearize_and_vjp": lambda j, lax, jnp: (
        j.linearize(j.pmap(_f_psum_index(lax), axis_name="i"), X)[1](X),
        j.vjp(j.pmap(_f_psum_index(lax), axis_name="i"), X)[1](X)),
    "grad_of_jit_of_pmap": lambda j, lax, jnp: j.grad(j.jit(lambda x: j.pmap(
        lambda v: jnp.sin(v) * lax.psum(v, "i"), axis_name="i")(x).sum()))(X),
    "control_flow_in_pmap": lambda j, lax, jnp: j.pmap(lambda v: (
        lax.scan(lambda c, u: (c + lax.psum(u, "i"), c), 0.0, v),
        lax.cond(lax.axis_index("i") > 1, lambda u: u * 2, lambda u: -u, v)),
        axis_name="i")(X),
    "grad_inside_pmap": lambda j, lax, jnp: j.pmap(
        j.grad(lambda v: (lax.psum(v, "i") ** 2).sum()), axis_name="i")(X),
    "ppermute_psum_scatter_all_to_all": lambda j, lax, jnp: j.pmap(
        lambda v: (lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]),
                   lax.psum_scatter(v, "i", tiled=True), lax.all_to_all(v, "i", 0, 0),
                   lax.all_to_all(v, "i", 0, 0, tiled=True)), axis_name="i")(
        np.arange(16.0, dtype=np.float32).reshape(4, 4)),
    "grad_ppermute": lambda j, lax, jnp: j.grad(lambda x: (j.pmap(
        lambda v: jnp.sin(lax.ppermute(v, "i", [(0, 2), (2, 0), (1, 3), (3, 1)])) * v,
        axis_name="i")(x)).sum())(X),
    "two_devices_of_four": lambda j, lax, jnp: j.pmap(
        lambda v: lax.psum(v, "i"), axis_name="i")(X[:2]),
}

JAXPR_CASES = {
    "psum_axis_index": (lambda j, lax, jnp: j.pmap(_f_psum_index(lax), axis_name="i"), (X,)),
    "in_axes_none_pmean": (lambda j, lax, jnp: j.pmap(
        lambda x, y: (x + y, lax.pmean(x, "i")), axis_name="i", in_axes=(0, None)),
        (X, np.ones(2, np.float32))),
    "collectives": (lambda j, lax, jnp: j.pmap(
        lambda x: (lax.pmax(x, "i"), lax.pmin(x, "i"), lax.all_gather(x, "i")),
        axis_name="i"), (X,)),
    "default_axis_name_in_axes_1": (lambda j, lax, jnp: j.pmap(
        lambda x: x * 2, in_axes=1, out_axes=1), (X.T,)),
    "constant_output": (lambda j, lax, jnp: j.pmap(lambda x: 2.0), (X,)),
    "vmap_of_pmap": (lambda j, lax, jnp: j.vmap(j.pmap(_f_psum_index(lax), axis_name="i")),
                     (np.ones((3, 4, 2), np.float32),)),
    "jit_of_pmap": (lambda j, lax, jnp: j.jit(j.pmap(_f_psum_index(lax), axis_name="i")),
                    (X,)),
}

ERROR_CASES = {
    "more_devices_than_available": lambda j, lax, jnp: j.pmap(lambda x: x)(
        np.ones((8, 2), np.float32)),
    "inconsistent_sizes": lambda j, lax, jnp: j.pmap(lambda x, y: x)(
        np.ones(2, np.float32), np.ones(3, np.float32)),
    "unbound_axis": lambda j, lax, jnp: j.pmap(lambda x: lax.psum(x, "j"),
                                               axis_name="i")(X),
    "no_mapped_argument": lambda j, lax, jnp: j.pmap(lambda x: x, in_axes=None)(1.0),
    "pmax_not_differentiable": lambda j, lax, jnp: j.grad(
        lambda x: j.pmap(lambda v: lax.pmax(v, "i"), axis_name="i")(x).sum())(X),
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
    elif kind == "jaxpr":
        build, args = JAXPR_CASES[name]
        got = str(didax.make_jaxpr(build(didax, dlax, dnp))(*args))
        want = str(jax.make_jaxpr(build(jax, jlax, jnp))(*args))
        assert _norm_jaxpr(got) == _norm_jaxpr(want), f"\n{got}\n!=\n{want}"
    elif kind == "error":
        case = ERROR_CASES[name]
        got = _error(lambda: case(didax, dlax, dnp))
        want = _error(lambda: case(jax, jlax, jnp))
        assert issubclass(want, got) or issubclass(got, want), (got, want)
    else:
        _multi_device_evidence()


def _multi_device_evidence() -> None:
    """An eager pmap really runs one replica per device, communicating by all-reduce."""
    import didax  # noqa: PLC0415
    import didax.lax as dlax  # noqa: PLC0415
    from didax._src import pmap as dpmap  # noqa: PLC0415

    devs = didax.devices()
    assert len(devs) == N_DEVICES
    f = didax.pmap(lambda v: dlax.psum(v, "k") + dlax.axis_index("k"), axis_name="k",
                   devices=devs[1:3])  # kept alive: its traced body keys the program cache
    out = f(X[:2])
    np.testing.assert_allclose(np.asarray(out), X[:2].sum(0) + np.arange(2.0)[:, None])
    progs = [p for table in dpmap._memo.values() for p in table.values()
             if isinstance(p, dpmap._DeviceProgram) and p.mesh.name == "k"]
    assert progs, "no device program was built"
    exe = progs[0].exe
    assert sorted(d.id for d in exe.local_devices()) == [1, 2]
    hlo = exe.hlo_modules()[0].to_string()
    assert "all-reduce" in hlo and "replica-id" in hlo


def _all_cases() -> list[tuple[str, str]]:
    return ([("value", n) for n in VALUE_CASES] + [("jaxpr", n) for n in JAXPR_CASES]
            + [("error", n) for n in ERROR_CASES] + [("devices", "multi_device")])




# ----------------------------------------------------------------------------------------
# pytest side: the device report
# ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def device_report():
    return device_cases.device_report(__file__, N_DEVICES)


@pytest.mark.parametrize("case", [f"{k}/{n}" for k, n in _all_cases()])
def test_on_four_devices(device_report, case):
    assert device_report[case] == "ok", device_report[case]


# ----------------------------------------------------------------------------------------
# vmap(axis_name=) collectives (one device, this process)
# ----------------------------------------------------------------------------------------

V = np.arange(4.0, dtype=np.float32)
VMAP_CASES = {
    "psum": lambda j, lax, jnp: j.vmap(lambda x: lax.psum(x * x, "i"), axis_name="i")(V),
    "pmean_centered": lambda j, lax, jnp: j.vmap(
        lambda x: x - lax.pmean(x, "i"), axis_name="i", in_axes=1, out_axes=1)(
        np.arange(6.0, dtype=np.float32).reshape(2, 3)),
    "pmax_pmin": lambda j, lax, jnp: j.vmap(
        lambda x: (lax.pmax(x, "i"), lax.pmin(x, "i")), axis_name="i")(V),
    "all_gather": lambda j, lax, jnp: j.vmap(
        lambda x: (lax.all_gather(x, "i"), lax.all_gather(x, "i", tiled=True)),
        axis_name="i")(np.ones((4, 2), np.float32)),
    "axis_index": lambda j, lax, jnp: j.vmap(lambda x: lax.axis_index("i") * x,
                                             axis_name="i")(V),
    "constant_psum": lambda j, lax, jnp: j.vmap(lambda x: (lax.psum(2, "i"),
                                                           lax.psum(True, "i")),
                                                axis_name="i")(V),
    "nested_axes": lambda j, lax, jnp: j.vmap(j.vmap(
        lambda x: (lax.psum(x, ("i", "j")), lax.psum(x, "i"), lax.axis_index("j")),
        axis_name="j"), axis_name="i")(np.arange(6.0, dtype=np.float32).reshape(2, 3)),
    "jit_inside_vmap": lambda j, lax, jnp: j.vmap(
        j.jit(lambda x: lax.psum(x, "i") + lax.axis_index("i")), axis_name="i")(V),
    "grad_inside_vmap": lambda j, lax, jnp: j.vmap(
        j.grad(lambda x: lax.all_gather(x, "i").sum() * x + lax.pmean(x * x, "i")),
        axis_name="i")(V),
    "grad_of_vmap": lambda j, lax, jnp: j.grad(lambda x: j.vmap(
        lambda v: jnp.sin(v) * lax.psum(v, "i") * lax.axis_index("i"), axis_name="i")(
        x).sum())(V),
}


def _modules():
    import didax  # noqa: PLC0415
    import didax.lax as dlax  # noqa: PLC0415
    import didax.numpy as dnp  # noqa: PLC0415
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415
    from jax import lax as jlax  # noqa: PLC0415

    return (didax, dlax, dnp), (jax, jlax, jnp)


@pytest.mark.parametrize("name", list(VMAP_CASES))
def test_vmap_collectives_values(name):
    d, j = _modules()
    _assert_same(VMAP_CASES[name](*d), VMAP_CASES[name](*j))


@pytest.mark.parametrize("name", ["psum", "pmean_centered", "pmax_pmin", "axis_index",
                                  "nested_axes", "constant_psum"])
def test_vmap_collectives_jaxprs(name):
    (dx, dlax, dnp), (jx, jlax, jnp) = _modules()

    def staged(mods, x):
        return mods[0].make_jaxpr(lambda v: _inner(name, mods, v))(x)

    args = {"pmean_centered": np.ones((2, 3), np.float32),
            "nested_axes": np.ones((2, 3), np.float32)}.get(name, V)
    got = str(staged((dx, dlax, dnp), args))
    want = str(staged((jx, jlax, jnp), args))
    assert _norm_jaxpr(got) == _norm_jaxpr(want), f"\n{got}\n!=\n{want}"


def _inner(name, mods, x):
    """VMAP_CASES[name] applied to x (a traced argument) instead of its fixed input."""
    j, lax, jnp = mods
    fns = {
        "psum": lambda: j.vmap(lambda v: lax.psum(v * v, "i"), axis_name="i")(x),
        "pmean_centered": lambda: j.vmap(lambda v: v - lax.pmean(v, "i"), axis_name="i",
                                         in_axes=1, out_axes=1)(x),
        "pmax_pmin": lambda: j.vmap(lambda v: (lax.pmax(v, "i"), lax.pmin(v, "i")),
                                    axis_name="i")(x),
        "axis_index": lambda: j.vmap(lambda v: lax.axis_index("i") * v, axis_name="i")(x),
        "nested_axes": lambda: j.vmap(j.vmap(lambda v: lax.psum(v, ("i", "j")),
                                             axis_name="j"), axis_name="i")(x),
        "constant_psum": lambda: j.vmap(lambda v: lax.psum(2, "i"), axis_name="i")(x),
    }
    return fns[name]()


@pytest.mark.parametrize("which", ["psum", "axis_index", "all_gather"])
def test_unbound_axis_errors(which):
    (dx, dlax, dnp), (jx, jlax, jnp) = _modules()

    def call(j, lax):
        fn = {"psum": lambda v: lax.psum(v, "i"), "axis_index": lambda v: lax.axis_index("i"),
              "all_gather": lambda v: lax.all_gather(v, "i")}[which]
        return j.make_jaxpr(fn)(V)

    with pytest.raises(NameError) as got:
        call(dx, dlax)
    with pytest.raises(NameError) as want:
        call(jx, jlax)
    if which != "all_gather":
        assert str(got.value) == str(want.value)


def test_pmap_single_device_in_process():
    (dx, dlax, dnp), (jx, jlax, jnp) = _modules()
    x = np.arange(3.0, dtype=np.float32)[None]

    def run(j, lax):
        return j.pmap(lambda v: lax.psum(v, "i") * 2 + lax.axis_index("i"), axis_name="i")(x)

    _assert_same(run(dx, dlax), run(jx, jlax))


if __name__ == "__main__" and "--cases" in sys.argv:
    device_cases.print_report(_all_cases(), _run_case)
