"""didax.export against jax.export: Exported metadata, calls (eager, jit, grad to the
serialized order), jaxprs, error messages, and didax's own serialization format
(round trips, a fresh process, corruption and version checks).

A serialized Exported is compared with JAX's after a round trip through each one's format
(JAX's needs flatbuffers, a test dependency); neither keeps weak types.
"""

from __future__ import annotations

import collections
import json
import struct
import subprocess
import sys
import textwrap

import didax
import didax.numpy as dnp
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from didax import export as dexport
from didax._src import core as dcore
from didax._src.interpreters import lowering as dlowering
from jax import export as jexport

F32 = np.float32


def _spec(mod, shape, dtype):
    return mod.ShapeDtypeStruct(shape, dtype)


def _both(fn_builder, *spec_args, **kw):
    """(didax Exported, jax Exported) of fn_builder(jnp_module) at the given specs, where a
    spec is (shape, dtype) or a Python scalar."""
    def specs(mod):
        return [_spec(mod, *s) if isinstance(s, tuple) else s for s in spec_args]
    d = dexport.export(didax.jit(fn_builder(dnp)), **kw)(*specs(didax))
    j = jexport.export(jax.jit(fn_builder(jnp)), **kw)(*specs(jax))
    return d, j


def _close(a, b, rtol=2e-5, atol=2e-6):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_allclose(a.astype(np.float64) if a.dtype == ml_dtypes.bfloat16 else a,
                               b.astype(np.float64) if b.dtype == ml_dtypes.bfloat16 else b,
                               rtol=rtol, atol=atol)


def _trees_close(a, b, **kw):
    la, ta = didax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    assert str(ta) == str(tb)
    for x, y in zip(la, lb):
        _close(x, y, **kw)
        assert getattr(x, "weak_type", False) == getattr(y, "weak_type", False)


def _roundtrip(exp, order=0):
    return dexport.deserialize(exp.serialize(vjp_order=order))


def _jroundtrip(exp, order=0):
    return jexport.deserialize(exp.serialize(vjp_order=order))


def _avals_str(avals):
    return [f"{a.dtype if a.dtype != np.dtype([('float0', np.void, 0)]) else 'float0'}"
            f"{list(a.shape)}{'~' if a.weak_type else ''}" for a in avals]


# ----------------------------------------------------------------------------------------
# Metadata and module text
# ----------------------------------------------------------------------------------------


def _fn_sin_mul(np_):
    return lambda x, y: np_.sin(x) * y


def test_metadata_matches_jax():
    d, j = _both(_fn_sin_mul, ((3,), F32), ((3,), F32))
    assert d.fun_name == j.fun_name == "<lambda>"
    assert str(d.in_tree) == str(j.in_tree)
    assert str(d.out_tree) == str(j.out_tree)
    assert _avals_str(d.in_avals) == _avals_str(j.in_avals)
    assert _avals_str(d.out_avals) == _avals_str(j.out_avals)
    assert d.platforms == j.platforms == ("cpu",)
    assert d.nr_devices == j.nr_devices == 1
    assert d.calling_convention_version == j.calling_convention_version == 10
    assert d.module_kept_var_idx == j.module_kept_var_idx
    assert d.in_shardings_hlo == j.in_shardings_hlo == (None, None)
    assert d.out_shardings_hlo == j.out_shardings_hlo == (None,)
    assert d.uses_global_constants == j.uses_global_constants is False
    assert (dexport.minimum_supported_calling_convention_version,
            dexport.maximum_supported_calling_convention_version) == (
        jexport.minimum_supported_calling_convention_version,
        jexport.maximum_supported_calling_convention_version)
    assert str(d) == str(j) == "Exported(fun_name=<lambda>, ...)"
    assert dexport.default_export_platform() == jexport.default_export_platform()


def test_mlir_module_text_and_artifact():
    d, j = _both(_fn_sin_mul, ((3,), F32), ((3,), F32))
    text = d.mlir_module()
    # the entry's signature as JAX prints it: arguments named by location, results' names
    main = [ln for ln in text.splitlines() if "@main" in ln]
    assert main == [ln for ln in j.mlir_module().splitlines() if "@main" in ln]
    assert 'loc("x")' in main[0] and 'jax.result_info = "result"' in main[0]
    assert "stablehlo.sine" in text and "jax.uses_shape_polymorphism = false" in text
    assert d.mlir_module_serialized.startswith(b"ML\xefR")
    assert b"StableHLO_v" in d.mlir_module_serialized[:32]


def test_export_of_jitted_numpy_function_and_deserialized_types_strong():
    # jnp.cos is a jitted function in JAX, so export takes it; jnp.sum is not
    d, j = dexport.export(dnp.cos)(1.0), jexport.export(jnp.cos)(1.0)
    assert (repr(d.in_avals), repr(d.out_avals)) == (repr(j.in_avals), repr(j.out_avals))
    for exp_mod, np_ in ((dexport, dnp), (jexport, jnp)):
        with pytest.raises(ValueError, match="must be the result of `jit`"):
            exp_mod.export(np_.sum)(1.0)
    # JAX's serialization keeps no weak types: a rehydrated call's result is strong
    blob_d = dexport.export(didax.jit(lambda x: 7 * x))(1.0).serialize()
    blob_j = jexport.export(jax.jit(lambda x: 7 * x))(1.0).serialize()
    rd, rj = dexport.deserialize(blob_d).call(0.1), jexport.deserialize(blob_j).call(0.1)
    assert rd.aval.weak_type == rj.aval.weak_type is False
    assert (3.0 * rd).aval.weak_type is False


def test_unused_inputs_dropped_and_weak_types_kept():
    c = np.array([1.0, 2.0, 3.0], F32)

    def build(np_):
        return lambda x, y, z: (x * c, 1.0, np_.zeros(2) + x[0], z)

    d, j = _both(build, ((3,), F32), ((2,), F32), 2.0)
    assert d.module_kept_var_idx == j.module_kept_var_idx == (0, 2)
    assert _avals_str(d.in_avals) == _avals_str(j.in_avals)
    assert _avals_str(d.out_avals) == _avals_str(j.out_avals)
    x = np.array([1.0, -2.0, 0.5], F32)
    args = (x, np.ones(2, F32), 3.0)
    _trees_close(d.call(*args), j.call(*args))
    _trees_close(_roundtrip(d).call(*args), _jroundtrip(j).call(*args))
    _trees_close(didax.jit(d.call)(*args), jax.jit(j.call)(*args))


# ----------------------------------------------------------------------------------------
# Calling: eager, jit, jaxprs, dtypes, pytrees
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
                                   np.complex64, np.int8, np.uint32, np.int64, np.bool_])
def test_call_dtypes(dtype):
    with didax.enable_x64(True), jax.enable_x64(True):
        def build(np_):
            if dtype == np.bool_:
                return lambda x: (~x, x & x[::-1])
            return lambda x: (x * x + x[::-1], np_.sum(x))

        d, j = _both(build, ((4,), dtype))
        x = np.array([1, 0, 3, 2], dtype) if dtype != np.bool_ else np.array(
            [True, False, True, True])
        want = j.call(x)
        for got in (d.call(x), _roundtrip(d).call(x), didax.jit(_roundtrip(d).call)(x)):
            _trees_close(got, want, rtol=1e-2 if dtype in (np.float16,
                                                          ml_dtypes.bfloat16) else 2e-5)


def test_pytrees_kwargs_and_registered_namedtuple():
    P = collections.namedtuple("P", "a b")
    dexport.register_namedtuple_serialization(P, serialized_name="test_export.P")

    def build(np_):
        return lambda d, p, *, k: {"s": d["u"] + p.a * k, "t": [p.b, d["v"]],
                                   "o": collections.OrderedDict(z=k, a=p.b)}

    def specs(mod):
        return ({"u": _spec(mod, (2,), F32), "v": _spec(mod, (), np.int32)},
                P(_spec(mod, (2,), F32), _spec(mod, (), F32)))

    d = dexport.export(didax.jit(build(dnp)))(*specs(didax), k=_spec(didax, (), F32))
    j = jexport.export(jax.jit(build(jnp)))(*specs(jax), k=_spec(jax, (), F32))
    assert str(d.in_tree).replace("test_export.", "") == str(j.in_tree).replace(
        "test_export.", "")
    args = ({"u": np.ones(2, F32), "v": np.int32(3)}, P(np.ones(2, F32), F32(2)))
    want = j.call(*args, k=F32(3))
    r = _roundtrip(d)
    assert r.in_tree == d.in_tree and r.out_tree == d.out_tree
    _trees_close(r.call(*args, k=F32(3)), want)
    _trees_close(didax.jit(r.call)(*args, k=F32(3)), want)


def test_jaxprs_print_as_jax():
    d, j = _both(_fn_sin_mul, ((3,), F32), ((3,), F32))
    x = np.ones(3, F32)
    assert str(didax.make_jaxpr(d.call)(x, x)) == str(jax.make_jaxpr(j.call)(x, x))
    assert (str(didax.make_jaxpr(didax.jit(d.call))(x, x))
            == str(jax.make_jaxpr(jax.jit(j.call))(x, x)))
    g_d = didax.make_jaxpr(didax.grad(lambda v: d.call(v, v).sum()))(x)
    g_j = jax.make_jaxpr(jax.grad(lambda v: j.call(v, v).sum()))(x)
    assert str(g_d) == str(g_j)


def test_jit_lowering_splices_module_once():
    d, _ = _both(_fn_sin_mul, ((3,), F32), ((3,), F32))

    def twice(x):
        return d.call(x, x) + d.call(x * 2, x)

    text = didax.jit(twice).lower(np.ones(3, F32)).as_text()
    assert text.count("stablehlo.sine") == 1  # one spliced copy, called twice
    assert text.count("call @call_exported__lambda") == 2
    _close(didax.jit(twice)(np.ones(3, F32)), jax.jit(
        lambda x: jnp.sin(x) * x + jnp.sin(2 * x) * x)(np.ones(3, F32)))


def test_nested_export_of_exported_call():
    d7, j7 = _both(lambda np_: lambda x: 7 * x * x * x, 1.0)

    def outer(e, np_):
        return lambda x: np_.sum(e.call(x[0]) * 2.0)

    d8 = dexport.export(didax.jit(outer(d7, dnp)))(didax.ShapeDtypeStruct((3,), F32))
    j8 = jexport.export(jax.jit(outer(j7, jnp)))(jax.ShapeDtypeStruct((3,), F32))
    x = np.array([1.0, 2.0, 3.0], F32)
    r8 = _roundtrip(d8, 1)
    _trees_close(r8.call(x), j8.call(x))
    _trees_close(didax.grad(r8.call)(x), jax.grad(j8.call)(x))


# ----------------------------------------------------------------------------------------
# Differentiation and the VJP chain
# ----------------------------------------------------------------------------------------


def test_vjp_exported_matches_jax():
    d, j = _both(lambda np_: lambda x, n: (x * n, n + 1), ((3,), F32), ((3,), np.int32))
    dv, jv = d.vjp(), j.vjp()
    assert dv.fun_name == jv.fun_name == "fun_vjp_jax"
    assert str(dv.in_tree) == str(jv.in_tree) and str(dv.out_tree) == str(jv.out_tree)
    assert _avals_str(dv.in_avals) == _avals_str(jv.in_avals)
    assert _avals_str(dv.out_avals) == _avals_str(jv.out_avals)
    assert dv.module_kept_var_idx == jv.module_kept_var_idx
    x, n = np.array([1.0, 2.0, 3.0], F32), np.array([4, 5, 6], np.int32)
    g_d = didax.grad(lambda x, n: d.call(x, n)[0].sum())(x, n)
    _close(g_d, jax.grad(lambda x, n: j.call(x, n)[0].sum())(x, n))
    g_r = didax.grad(lambda x, n: _roundtrip(d, 1).call(x, n)[0].sum())(x, n)
    _close(g_r, g_d)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_grad_up_to_serialized_order(order):
    d, j = _both(lambda np_: lambda x: np_.sin(x) * x ** 3 + np_.exp(x), 0.7)
    r = _roundtrip(d, order)
    fd, fj = r.call, j.call
    for k in range(order + 1):
        _close(fd(F32(0.7)), fj(F32(0.7)), rtol=1e-5, atol=1e-5)
        _close(didax.jit(fd)(F32(0.7)), fj(F32(0.7)), rtol=1e-5, atol=1e-5)
        if k < order:
            fd, fj = didax.grad(fd), jax.grad(fj)
    with pytest.raises(ValueError, match="No VJP is available"):
        didax.grad(fd)(F32(0.7))
    assert r.has_vjp() == (order > 0)


def test_live_exported_differentiates_to_any_order():
    d, j = _both(lambda np_: lambda x: 7 * x * x * x, 1.0)
    fd, fj = d.call, j.call
    for _ in range(4):
        fd, fj = didax.grad(fd), jax.grad(fj)
    _close(fd(0.1), fj(0.1))
    _close(didax.jit(didax.grad(didax.grad(d.call)))(0.1),
           jax.jit(jax.grad(jax.grad(j.call)))(0.1))


def test_grad_pytree_and_vjp_function():
    def build(np_):
        return lambda p, x: {"y": p["w"] * x + p["b"], "aux": (np_.max(x),)}

    specs = lambda m: ({"w": _spec(m, (2,), F32), "b": _spec(m, (), F32)},  # noqa: E731
                       _spec(m, (2,), F32))
    d = dexport.export(didax.jit(build(dnp)))(*specs(didax))
    j = jexport.export(jax.jit(build(jnp)))(*specs(jax))
    r = _roundtrip(d, 1)
    p = {"w": np.array([2.0, 3.0], F32), "b": F32(1.0)}
    x = np.array([1.0, -1.0], F32)

    def loss(call):
        return lambda p, x: (call(p, x)["y"] ** 2).sum() + call(p, x)["aux"][0]

    _trees_close(didax.grad(loss(r.call), argnums=(0, 1))(p, x),
                 jax.grad(loss(j.call), argnums=(0, 1))(p, x))
    out_d, pull_d = didax.vjp(r.call, p, x)
    out_j, pull_j = jax.vjp(j.call, p, x)
    _trees_close(pull_d(out_d), pull_j(out_j))


# ----------------------------------------------------------------------------------------
# Errors (JAX's classes and messages)
# ----------------------------------------------------------------------------------------


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize("case", ["shape", "dtype", "rank", "tree", "tree_kw"])
def test_call_errors_match_jax(case):
    d, j = _both(lambda np_: lambda x, y: x * y, ((3,), F32), ((3,), F32))
    bad = {"shape": ((np.ones(4, F32), np.ones(3, F32)), {}),
           "dtype": ((np.ones(3, np.int32), np.ones(3, F32)), {}),
           "rank": ((np.ones((3, 1), F32), np.ones(3, F32)), {}),
           "tree": ((np.ones(3, F32),), {}),
           "tree_kw": ((np.ones(3, F32),), {"y": np.ones(3, F32)})}[case]
    args, kw = bad
    want = _error(lambda: j.call(*args, **kw))
    assert _error(lambda: d.call(*args, **kw)) == want
    assert _error(lambda: didax.jit(d.call)(*args, **kw)) == want


def test_transformation_errors_match_jax():
    d, j = _both(lambda np_: lambda x: x * 2, ((3,), F32))
    xs = np.ones((2, 3), F32)
    assert _error(lambda: didax.vmap(d.call)(xs)) == _error(lambda: jax.vmap(j.call)(xs))
    x = np.ones(3, F32)
    assert (_error(lambda: didax.jvp(d.call, (x,), (x,)))
            == _error(lambda: jax.jvp(j.call, (x,), (x,))))
    name, msg = _error(lambda: dexport.export(lambda x: x)(x))
    assert name == "ValueError" and "must be the result of `jit`" in msg


def test_platforms():
    d, j = _both(lambda np_: lambda x: np_.cos(x), 1.0, platforms=["cpu", "tpu"])
    assert d.platforms == j.platforms == ("cpu", "tpu")
    assert d.uses_global_constants
    assert 'jax.global_constant = "_platform_index"' in d.mlir_module()
    _trees_close(_roundtrip(d).call(2.0), _jroundtrip(j).call(2.0))
    _trees_close(didax.jit(_roundtrip(d).call)(2.0), _jroundtrip(j).call(2.0))
    d, j = _both(lambda np_: lambda x: np_.cos(x), 1.0, platforms=["tpu"])
    assert _error(lambda: d.call(1.0)) == _error(lambda: j.call(1.0))
    assert _error(lambda: _roundtrip(d).call(1.0)) == _error(lambda: j.call(1.0))
    checks_d = [dexport.DisabledSafetyCheck.platform()]
    checks_j = [jexport.DisabledSafetyCheck.platform()]
    d = dexport.export(didax.jit(dnp.cos), platforms=["tpu"], disabled_checks=checks_d)(1.0)
    j = jexport.export(jax.jit(jnp.cos), platforms=["tpu"], disabled_checks=checks_j)(1.0)
    r = _roundtrip(d)
    assert r.disabled_safety_checks == d.disabled_safety_checks
    assert str(r.disabled_safety_checks) == str(j.disabled_safety_checks)
    _trees_close(r.call(1.0), _jroundtrip(j).call(1.0))


def _custom_call_primitive(target, monkeypatch):
    """A throwaway primitive lowering to a custom call; its lowering is registered only for
    the test (monkeypatch), so the rule-coverage test never meets it."""
    prim = dcore.Primitive(f"test_{target}")
    prim.abstract_eval = lambda x: x
    monkeypatch.setitem(dlowering.lowerings, prim, lambda ctx, x: ctx.fn.op1(
        "stablehlo.custom_call", [x], ctx.avals_out[0],
        f'call_target_name = "{target}", api_version = 2 : i32'))
    return prim


def test_custom_call_targets_checked(monkeypatch):
    prim = _custom_call_primitive("my_target", monkeypatch)
    f = didax.jit(lambda x: prim.bind(x))
    with pytest.raises(ValueError, match="custom calls whose targets have no compatibility"):
        dexport.export(f)(1.0)
    ok = dexport.export(f, disabled_checks=[
        dexport.DisabledSafetyCheck.custom_call("my_target")])(1.0)
    assert "my_target" in ok.mlir_module()
    assert dexport.DisabledSafetyCheck.custom_call("my_target").is_custom_call() == "my_target"
    lapack = _custom_call_primitive("lapack_spotrf_ffi", monkeypatch)
    dexport.export(didax.jit(lambda x: lapack.bind(x)))(1.0)  # allow-listed target


# ----------------------------------------------------------------------------------------
# The serialization format
# ----------------------------------------------------------------------------------------


def _blob(order=1):
    d, _ = _both(lambda np_: lambda x: np_.tanh(x) * 3, ((2,), F32))
    return d, bytes(d.serialize(vjp_order=order))


def test_format_layout():
    d, blob = _blob(2)
    magic, version, flags, head_len = struct.unpack_from("<8sHHI", blob)
    assert (magic, version, flags) == (b"DIDAXEXP", 1, 0)
    header = json.loads(blob[16:16 + head_len])
    assert header["format"] == "didax.export" and header["vjp_order"] == 2
    assert len(header["functions"]) == 3
    f0 = header["functions"][0]
    assert f0["in_avals"] == [{"shape": [2], "dtype": "float32", "weak_type": False}]
    assert f0["in_tree"] == {"kind": "tuple", "children": [
        {"kind": "tuple", "children": [{"kind": "leaf"}]}, {"kind": "dict", "keys": [],
                                                             "children": []}]}
    payload = blob[16 + head_len:]
    m = f0["module"]
    assert payload[m["offset"]:m["offset"] + m["length"]] == d.mlir_module_serialized
    assert [f["fun_name"] for f in header["functions"]] == ["<lambda>", "fun_vjp_jax",
                                                            "fun_vjp_jax"]


def test_format_rejects_bad_blobs():
    _, blob = _blob()
    with pytest.raises(ValueError, match="bad magic"):
        dexport.deserialize(b"NOTDIDAX" + blob[8:])
    with pytest.raises(ValueError, match="format version 7"):
        dexport.deserialize(blob[:8] + struct.pack("<H", 7) + blob[10:])
    corrupt = bytearray(blob)
    corrupt[-5] ^= 0xFF
    with pytest.raises(ValueError, match="checksum"):
        dexport.deserialize(bytes(corrupt))


def test_unregistered_tree_node_refused():
    class Box:
        def __init__(self, v):
            self.v = v

    didax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None),
                                         lambda _, c: Box(c[0]))
    d = dexport.export(didax.jit(lambda b: b.v * 2))(Box(didax.ShapeDtypeStruct((), F32)))
    assert float(d.call(Box(F32(2.0)))) == 4.0
    with pytest.raises(ValueError, match="unregistered type"):
        d.serialize()
    dexport.register_pytree_node_serialization(
        Box, serialized_name="test_export.Box", serialize_auxdata=lambda _: b"",
        deserialize_auxdata=lambda _: None)
    assert float(_roundtrip(d).call(Box(F32(3.0)))) == 6.0


def test_deserialize_in_fresh_process(tmp_path):
    d, _ = _both(lambda np_: lambda x: np_.sin(x) * x, ((3,), F32))
    path = tmp_path / "f.didax"
    path.write_bytes(d.serialize(vjp_order=1))
    script = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        import didax, didax.numpy as jnp
        from didax import export
        r = export.deserialize(open({str(path)!r}, "rb").read())
        x = jnp.array([0.5, 1.0, 2.0])
        g = didax.grad(lambda v: r.call(v).sum())(x)
        print(json.dumps([np.asarray(r.call(x)).tolist(), np.asarray(g).tolist()]))
        assert "jax" not in sys.modules
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    vals, grads = (np.array(v, F32) for v in json.loads(out))
    x = np.array([0.5, 1.0, 2.0], F32)
    _close(vals, np.sin(x) * x)
    _close(grads, np.cos(x) * x + np.sin(x))
