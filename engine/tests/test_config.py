"""didax._src.config compared with jax.config (JAX 0.10.2): names, defaults, parsing,
error messages, context managers, environment variables, thread-locality, observers."""

import os
import subprocess
import sys
import threading

import didax
import jax
import numpy as np
import pytest
from didax._src import config as C
from didax._src.config import config as dconfig

SHARED = [
    "jax_enable_x64", "jax_numpy_dtype_promotion", "jax_numpy_rank_promotion",
    "jax_default_matmul_precision", "jax_disable_jit", "jax_debug_nans", "jax_debug_infs",
    "jax_enable_checks", "jax_platforms", "jax_platform_name", "jax_default_device",
    "jax_cpu_enable_async_dispatch", "jax_traceback_filtering", "jax_default_prng_impl",
    "jax_threefry_partitionable", "jax_log_compiles", "jax_compilation_cache_dir",
    "jax_explicit_x64_dtypes", "jax_legacy_prng_key", "jax_enable_custom_prng",
    "jax_debug_key_reuse", "jax_check_tracer_leaks", "jax_remat3",
]
MUTATED = [n for n in SHARED if n not in ("jax_platforms", "jax_platform_name",
                                          "jax_default_device")]


def outcome(fn, *args):
    try:
        return ("ok", repr(fn(*args)))
    except Exception as e:  # noqa: BLE001 - comparing failures is the point
        return ("err", type(e).__name__, str(e))


@pytest.fixture(autouse=True)
def _restore():
    saved_jax = {n: jax.config._read(n) for n in MUTATED}
    saved_didax = {n: dconfig._read(n) for n in MUTATED}
    yield
    for n in MUTATED:
        jax.config.update(n, saved_jax[n])
        dconfig.update(n, saved_didax[n])


def test_defaults_match_jax():
    for name in SHARED:
        assert repr(dconfig._read(name)) == repr(jax.config._read(name)), name
    assert dconfig.jax_threefry_partitionable is True
    assert dconfig.jax_default_prng_impl == "threefry2x32"
    assert dconfig.x64_enabled is dconfig.jax_enable_x64
    assert dconfig.strict_promotion is False


def test_attribute_reads_and_unknown_names():
    for name in SHARED:
        assert repr(getattr(dconfig, name)) == repr(jax.config._read(name))
    assert outcome(dconfig.update, "jax_foo", 1) == outcome(jax.config.update, "jax_foo", 1)
    assert outcome(getattr, dconfig, "jax_foo") == outcome(getattr, jax.config, "jax_foo")
    assert outcome(dconfig.read, "jax_debug_nans") == outcome(jax.config.read, "jax_debug_nans")
    assert outcome(dconfig.read, "jax_enable_x64") == outcome(jax.config.read, "jax_enable_x64")
    assert outcome(dconfig.read, "jax_nope") == outcome(jax.config.read, "jax_nope")
    with pytest.raises(AttributeError):
        dconfig.jax_enable_x64 = True
    with pytest.raises(AttributeError):
        dconfig.x64_enabled = True
    assert set(SHARED) <= set(dconfig.values)


INVALID = [
    ("jax_numpy_dtype_promotion", "bogus"), ("jax_numpy_dtype_promotion", 3),
    ("jax_numpy_rank_promotion", "bogus"), ("jax_numpy_rank_promotion", None),
    ("jax_default_matmul_precision", "bogus"), ("jax_default_matmul_precision", 3),
    ("jax_default_prng_impl", "bogus"), ("jax_traceback_filtering", "on"),
    ("jax_platforms", 3), ("jax_compilation_cache_dir", 5), ("jax_default_device", "foo"),
    ("jax_default_device", 3), ("jax_explicit_x64_dtypes", "bogus"),
    ("jax_legacy_prng_key", "nope"), ("jax_legacy_prng_key", 1.5),
]


def test_invalid_updates_raise_like_jax():
    for name, value in INVALID:
        expected = outcome(jax.config.update, name, value)
        assert expected[0] == "err", (name, value)
        assert outcome(dconfig.update, name, value) == expected, (name, value)
        assert repr(dconfig._read(name)) == repr(jax.config._read(name))


VALID = [
    ("jax_enable_x64", 1), ("jax_enable_x64", ""), ("jax_numpy_dtype_promotion", "strict"),
    ("jax_numpy_dtype_promotion", C.NumpyDtypePromotion.STANDARD),
    ("jax_numpy_rank_promotion", "raise"), ("jax_default_matmul_precision", "highest"),
    ("jax_default_matmul_precision", "BF16_BF16_F32"), ("jax_default_matmul_precision", None),
    ("jax_debug_nans", "yes"), ("jax_debug_infs", 1), ("jax_disable_jit", True),
    ("jax_log_compiles", 0), ("jax_explicit_x64_dtypes", "allow"),
    ("jax_explicit_x64_dtypes", "error"), ("jax_traceback_filtering", "off"),
    ("jax_threefry_partitionable", False), ("jax_legacy_prng_key", "warn"),
    ("jax_compilation_cache_dir", "/tmp/x"), ("jax_cpu_enable_async_dispatch", False),
    ("jax_remat3", True),
]


def test_valid_updates_parse_like_jax():
    for name, value in VALID:
        jax.config.update(name, value)
        dconfig.update(name, value)
        assert repr(getattr(dconfig, name)) == repr(jax.config._read(name)), (name, value)
        assert type(dconfig._read(name)).__name__ == type(jax.config._read(name)).__name__


def test_fast_attributes_follow_updates():
    dconfig.update("jax_enable_x64", True)
    assert dconfig.x64_enabled is True and dconfig.jax_enable_x64 is True
    dconfig.update("jax_enable_x64", False)
    assert dconfig.x64_enabled is False
    dconfig.update("jax_numpy_dtype_promotion", "strict")
    assert dconfig.strict_promotion is True
    assert dconfig.jax_numpy_dtype_promotion == "strict"
    dconfig.update("jax_numpy_dtype_promotion", "standard")
    assert dconfig.strict_promotion is False


def test_context_managers_nest_and_restore():
    dconfig.update("jax_enable_x64", False)
    with C.enable_x64():
        assert dconfig.x64_enabled and C.enable_x64.value
        with C.disable_x64():
            assert not dconfig.x64_enabled and not dconfig.jax_enable_x64
        assert dconfig.x64_enabled
    assert not dconfig.x64_enabled
    with C.numpy_dtype_promotion("strict"):
        assert dconfig.strict_promotion
        with C.numpy_dtype_promotion("standard"):
            assert not dconfig.strict_promotion
        assert dconfig.strict_promotion
    assert not dconfig.strict_promotion
    for cm, name, value in [(C.numpy_rank_promotion("warn"), "jax_numpy_rank_promotion", "warn"),
                            (C.default_matmul_precision("float32"),
                             "jax_default_matmul_precision", "float32"),
                            (C.disable_jit(), "jax_disable_jit", True),
                            (C.debug_nans(), "jax_debug_nans", True),
                            (C.debug_infs(), "jax_debug_infs", True)]:
        before = dconfig._read(name)
        with cm:
            assert dconfig._read(name) == value
        assert dconfig._read(name) == before


def test_context_manager_errors_and_bool_match_jax():
    assert outcome(C.numpy_dtype_promotion) == outcome(jax.numpy_dtype_promotion)
    assert outcome(C.numpy_rank_promotion, "x") == outcome(jax.numpy_rank_promotion, "x")
    assert outcome(C.numpy_dtype_promotion, "x") == outcome(jax.numpy_dtype_promotion, "x")
    assert outcome(bool, C.enable_x64) == outcome(bool, jax.enable_x64)
    assert C.enable_x64.name == jax.enable_x64.name == "jax_enable_x64"
    with jax.enable_x64(), C.enable_x64():  # the no-argument form means True in both
        assert jax.config.jax_enable_x64 is dconfig.jax_enable_x64 is True


def test_context_manager_as_decorator():
    @C.numpy_dtype_promotion("strict")
    def f():
        return dconfig.strict_promotion

    assert f() is True and dconfig.strict_promotion is False


def test_update_inside_context_applies_after_exit():
    dconfig.update("jax_enable_x64", False)
    with C.enable_x64(True):
        dconfig.update("jax_enable_x64", False)  # global change; local override wins
        assert dconfig.x64_enabled is True
        dconfig.update("jax_enable_x64", True)
    assert dconfig.x64_enabled is True  # the new global value is visible after exit


def _in_thread(fn):
    out = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


def test_context_managers_are_thread_local():
    dconfig.update("jax_enable_x64", False)
    with C.enable_x64(True):
        assert dconfig.x64_enabled
        assert _in_thread(lambda: dconfig.x64_enabled) is False
    started, release, seen = threading.Event(), threading.Event(), []

    def worker():
        with C.numpy_dtype_promotion("strict"):
            started.set()
            release.wait()
            seen.append((dconfig.strict_promotion, dconfig.x64_enabled))
        seen.append((dconfig.strict_promotion, dconfig.x64_enabled))

    t = threading.Thread(target=worker)
    t.start()
    started.wait()
    assert dconfig.strict_promotion is False
    dconfig.update("jax_enable_x64", True)               # visible to the worker at once
    dconfig.update("jax_numpy_dtype_promotion", "standard")  # but its override wins
    release.set()
    t.join()
    assert seen == [(True, True), (False, True)]


def test_observers():
    calls, bare = [], []

    def with_args(name, value):
        calls.append((name, value))

    def no_args():
        bare.append(1)

    dconfig.update("jax_enable_x64", False)
    dconfig.add_observer(with_args)
    dconfig.add_observer(no_args)
    try:
        dconfig.update("jax_enable_x64", True)
        with C.disable_x64():
            pass
        dconfig.update("jax_debug_nans", True)
    finally:
        dconfig.remove_observer(with_args)
        dconfig.remove_observer(no_args)
    assert calls == [("jax_enable_x64", True), ("jax_enable_x64", False),
                     ("jax_enable_x64", True), ("jax_debug_nans", True)]
    assert len(bare) == 4
    dconfig.update("jax_enable_x64", False)
    assert len(calls) == 4  # removed


def test_dynamic_shapes_is_fixed_false():
    assert dconfig.jax_dynamic_shapes is False
    dconfig.update("jax_dynamic_shapes", False)
    with pytest.raises(ValueError, match="dynamic shapes"):
        dconfig.update("jax_dynamic_shapes", True)
    assert dconfig.jax_dynamic_shapes is False


def test_trace_context_changes_with_flags():
    dconfig.update("jax_enable_x64", False)
    before = dconfig.trace_context()
    with C.enable_x64():
        assert dconfig.trace_context() != before
    assert dconfig.trace_context() == before
    hash(before)


SNIPPET = """
import jax
from didax._src.config import config
names = ["jax_enable_x64", "jax_numpy_dtype_promotion", "jax_debug_nans",
         "jax_default_matmul_precision", "jax_platform_name", "jax_numpy_rank_promotion"]
print([repr(jax.config._read(n)) for n in names] == [repr(config._read(n)) for n in names])
print(config.x64_enabled, config.strict_promotion)
"""


def _run(env_extra, code):
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120)


def test_environment_variables_like_jax():
    proc = _run({"JAX_ENABLE_X64": "1", "JAX_NUMPY_DTYPE_PROMOTION": "strict",
                 "JAX_DEBUG_NANS": "true", "JAX_DEFAULT_MATMUL_PRECISION": "highest",
                 "JAX_PLATFORM_NAME": "CPU", "JAX_NUMPY_RANK_PROMOTION": "warn"}, SNIPPET)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "True"]


def test_invalid_environment_variables_fail_like_jax():
    for var, value in [("JAX_ENABLE_X64", "maybe"), ("JAX_NUMPY_RANK_PROMOTION", "bogus")]:
        errors = []
        for module in ("jax", "didax._src.config"):
            proc = _run({var: value}, f"import {module}")
            assert proc.returncode != 0
            errors.append(proc.stderr.strip().splitlines()[-1])
        assert errors[0] == errors[1], errors


def test_explain_cache_misses_logs_each_retrace_as_jax(caplog):
    """One WARNING per retrace, opening as JAX's does (never seen / keys differ)."""
    import logging

    import didax
    import jax

    def heads(lib):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            lib.config.update("jax_explain_cache_misses", True)
            try:
                f = lib.jit(lambda x: x * 2)
                f(1.0), f(2.0), f(lib.numpy.ones(3))
            finally:
                lib.config.update("jax_explain_cache_misses", False)
        msgs = [r.getMessage() for r in caplog.records if "CACHE MISS" in r.getMessage()]
        return [m.splitlines()[1].strip() for m in msgs]
    assert heads(didax) == heads(jax) == ["never seen function:", "for <lambda> defined at "
                                          f"{__file__}:{heads.__code__.co_firstlineno + 5}"]


def test_top_level_config_states_and_device_type_as_jax():
    """jax.default_device, jax.log_compiles, ... are context-manager states at the top level
    (as in JAX), and jax.Device is the type of what jax.devices() returns."""
    names = ("check_tracer_leaks debug_key_reuse default_device default_prng_impl enable_checks "
             "enable_custom_prng explain_cache_misses legacy_prng_key log_compiles "
             "threefry_partitionable").split()
    for name in names:
        assert getattr(didax, name).value == getattr(jax, name).value, name
    dev = didax.devices()[0]
    assert isinstance(dev, didax.Device) and not isinstance(dev.id, didax.Device)
    with didax.default_device(dev), didax.log_compiles(True):
        assert didax.default_device.value is dev
        np.testing.assert_array_equal(didax.numpy.ones(2) + 1, [2.0, 2.0])
    assert didax.default_device.value is None
