"""The XLA runtime through jaxlib alone (never `jax`): a synchronous PJRT CPU client,
compiling StableHLO text, moving arrays to and from devices, and running executables on the
fast path described in ../shared/notes/xla-backend.md (execute_sharded +
consume_with_handlers; GSPMDSharding puts; buffer-protocol reads; a raw-pointer copy for
dtypes the buffer protocol refuses, such as bfloat16).

The client is created lazily on first use. May import core, dtypes, config.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

_lock = threading.RLock()
_state: dict[str, Any] = {}


def xc():
    """The jaxlib.xla_client module (imported on first use: ~0.2 s)."""
    mod = _state.get("xc")
    if mod is None:
        import jaxlib.xla_client as mod  # noqa: PLC0415

        _state["xc"] = mod
    return mod


def _device_count_from_flags() -> int | None:
    flags = os.environ.get("XLA_FLAGS", "")
    for part in flags.split():
        if part.startswith("--xla_force_host_platform_device_count="):
            return int(part.split("=", 1)[1])
    return None


def client():
    c = _state.get("client")
    if c is None:
        with _lock:
            c = _state.get("client")
            if c is None:
                x = xc()
                n = _device_count_from_flags()
                from didax._src.config import config  # noqa: PLC0415 - read when created

                if config.jax_num_cpu_devices > 0:
                    n = config.jax_num_cpu_devices
                kwargs = {"asynchronous": False}
                if n:
                    kwargs["num_devices"] = n
                c = x.make_cpu_client(**kwargs)
                _state["client"] = c
                _register_lapack(c)
    return c


def _register_lapack(c) -> None:
    try:
        from jaxlib import lapack  # noqa: PLC0415

        x = xc()
        for name, capsule, api_version in lapack.registrations()["cpu"]:
            x.register_custom_call_target(name, capsule, platform="cpu",
                                          api_version=api_version)
        lapack._lapack.initialize()
    except Exception:  # pragma: no cover - linear algebra is optional
        pass


class _DeviceType(type):
    """isinstance/issubclass against jaxlib's Device class, loaded on first use."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, xc().Device)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, xc().Device)


class Device(metaclass=_DeviceType):
    """`jax.Device`: the type of the objects `devices()` returns (jaxlib's Device)."""


def devices(backend=None) -> list:
    """The CPU devices (`backend` may be None, "cpu" or the CPU client itself)."""
    if backend is not None and not (isinstance(backend, str) and backend.lower() == "cpu") \
            and backend is not _state.get("client"):
        raise RuntimeError(f"Unknown backend: '{backend}' requested, but no platforms that "
                           f"are instances of {backend} are present. Platforms present are: "
                           "cpu" if isinstance(backend, str) else
                           f"Unknown backend {backend!r}")
    return list(client().devices())


def device_buffers(buf) -> list:
    """The per-device buffers of a (possibly multi-device) array, in its device order.
    (jaxlib would import jax, when installed, to make them: the import is kept out so the
    engine never imports jax.)"""
    if "jax" in sys.modules:
        return list(buf._arrays)
    sys.modules["jax"] = None  # (an import of jax fails; jaxlib then does without it)
    try:
        return list(buf._arrays)
    finally:
        del sys.modules["jax"]


def backend_initialized() -> bool:
    return "client" in _state


def default_device():
    dev = _state.get("default_device")
    if dev is None:
        dev = _state["default_device"] = client().devices()[0]
    return dev


class _Aval:
    """The duck-typed aval jaxlib's put/result handlers read."""

    __slots__ = ("shape", "dtype", "weak_type", "ndim")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = False
        self.ndim = len(self.shape)


_put_shardings: dict = {}


def _put_sharding(dev):
    s = _put_shardings.get(dev)
    if s is None:
        x = xc()
        s = _put_shardings[dev] = x.GSPMDSharding(x.DeviceList((dev,)),
                                                  x.HloSharding.replicate())
    return s


_put_avals: dict = {}


def device_put(x: np.ndarray, device=None):
    """A device buffer (jaxlib ArrayImpl) holding a copy of host array x."""
    x = np.asarray(x)
    if not x.flags.c_contiguous:  # (jaxlib copies strided views element by element: a
        x = np.ascontiguousarray(x)  # broadcast 800 KB view takes 0.5 ms, NumPy 20 us)
    dev = device or default_device()
    key = (x.shape, x.dtype)
    aval = _put_avals.get(key)
    if aval is None:  # (eager evaluation puts the same few types over and over)
        aval = _put_avals[key] = _Aval(x.shape, x.dtype)
    m = xc()
    return m.batched_device_put(aval, _put_sharding(dev), [x], [dev], True, False,
                                m.HostBufferSemantics.ZERO_COPY, True)


_BUFFER_PROTOCOL_REFUSED = {"bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4",
                            "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz"}
_refused_dtypes: dict = {}


def to_host(buf, dtype, shape=None) -> np.ndarray:
    """The host value of a single-device buffer."""
    refused = _refused_dtypes.get(dtype)
    if refused is None:
        refused = _refused_dtypes[dtype] = np.dtype(dtype).name in _BUFFER_PROTOCOL_REFUSED
    if refused:
        dtype = np.dtype(dtype)
        buf.block_until_ready()
        shape = tuple(shape if shape is not None else buf.shape)
        n = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if n == 0:
            return np.zeros(shape, dtype)
        raw = (ctypes.c_char * n).from_address(buf.unsafe_buffer_pointer())
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    return np.asarray(buf)


def result_handler(aval, device=None):
    x = xc()
    dev = device or default_device()
    return x.array_result_handler(_Aval(aval.shape, aval.dtype), x.SingleDeviceSharding(dev),
                                  True, _skip_checks=True)


def compile(module_text: str | Any, host_callbacks: Sequence[Callable] = (),
            devices_: Sequence[Any] | None = None, options=None):
    """Compiles StableHLO (text, or an ir.Module when there are host callbacks)."""
    x = xc()
    c = client()
    devs = tuple(devices_ or (default_device(),))
    opts = options or x.CompileOptions()
    if host_callbacks:
        module = parse_module(module_text) if isinstance(module_text, str) else module_text
        return c.compile_and_load(module, x.DeviceList(devs), opts,
                                  host_callbacks=list(host_callbacks))
    return c.compile_and_load(module_text, x.DeviceList(devs), opts)


def mlir_context():
    """A reused MLIR context with the upstream (func, ...) plus StableHLO and CHLO dialects
    (creating one costs ~2 ms)."""
    ctx = _state.get("mlir_ctx")
    if ctx is None:
        from didax._src.interpreters.mlir import make_ir_context  # noqa: PLC0415

        ctx = _state["mlir_ctx"] = make_ir_context()
    return ctx


def parse_module(text: str):
    from jaxlib.mlir import ir  # noqa: PLC0415

    ctx = mlir_context()
    with ctx:
        return ir.Module.parse(text)


def pretty_text(text: str, debug_info: bool = False) -> str:
    """The module re-printed by MLIR in its readable (pretty) form, with locations when
    debug_info (as JAX's `Lowered.as_text(debug_info=True)`)."""
    with _lock:
        module = parse_module(text)
        if not debug_info:
            return str(module)
        return module.operation.get_asm(enable_debug_info=True)
