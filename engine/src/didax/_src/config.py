"""Didax configuration flags, mirroring ``jax.config`` of JAX 0.10.2.

Holds the ``config`` singleton, one ``State`` per context-manager option (``enable_x64``,
``numpy_dtype_promotion``, ``disable_jit``, ...) and plain ``Flag`` options. Values live in
a ``threading.local`` so context managers are thread-local as in JAX, yet every read is one
attribute lookup: ``config.x64_enabled``, ``config.strict_promotion``, ``config.jax_*``.
``config.add_observer(cb)`` is called after every change of a visible value.
Imports only the standard library.
"""

from __future__ import annotations

import enum
import functools
import inspect
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NoReturn


class NumpyDtypePromotion(enum.StrEnum):
    STANDARD = "standard"
    STRICT = "strict"


class ExplicitX64Mode(enum.IntEnum):
    WARN = enum.auto()
    ERROR = enum.auto()
    ALLOW = enum.auto()

    @classmethod
    def _missing_(cls, value: object) -> ExplicitX64Mode | None:
        return {"warn": cls.WARN, "error": cls.ERROR, "allow": cls.ALLOW}.get(value)  # type: ignore[call-overload]


class LegacyPrngKeyState(enum.StrEnum):
    ALLOW = "allow"
    WARN = "warn"
    ERROR = "error"


def bool_env(varname: str, default: bool) -> bool:
    """Read a boolean environment variable the way JAX does (y/yes/t/true/on/1 ...)."""
    val = os.getenv(varname, str(default)).lower()
    if val in ("y", "yes", "t", "true", "on", "1"):
        return True
    if val in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {val!r} for environment {varname!r}")


class _NoDefault:
    def __repr__(self) -> str:
        return "<no default>"


no_default: Any = _NoDefault()

# ---------------------------------------------------------------------------------------
# Global (process-wide) state. Per-thread views live in each thread's ``config`` dict.
_LOCK = threading.RLock()
_OPTIONS: dict[str, _Option] = {}
_THREAD_DICTS: weakref.WeakKeyDictionary[threading.Thread, dict] = weakref.WeakKeyDictionary()
_OBSERVERS: list[tuple[Callable[..., Any], bool]] = []
_OVERRIDDEN = "_overridden"  # key of the per-thread set of names set by a context manager
_FAST_ATTRS = ("x64_enabled", "strict_promotion")


def _store(d: dict, name: str, value: Any) -> None:
    """Write an option value into one thread's dict, keeping the fast mirrors in sync."""
    d[name] = value
    if name == "jax_enable_x64":
        d["x64_enabled"] = value
    elif name == "jax_numpy_dtype_promotion":
        d["strict_promotion"] = value == NumpyDtypePromotion.STRICT


def _notify(name: str, value: Any) -> None:
    for callback, with_args in list(_OBSERVERS):
        if with_args:
            callback(name, value)
        else:
            callback()


def _accepts_two_args(callback: Callable[..., Any]) -> bool:
    try:
        inspect.signature(callback).bind("name", "value")
    except TypeError:
        return False
    except ValueError:  # builtins without a signature: assume (name, value)
        return True
    return True


class Config(threading.local):
    """The ``config`` singleton: ``config.update(name, value)``, ``config.jax_<name>``."""

    def __init__(self) -> None:
        # Runs once per thread (threading.local): seed this thread's view from globals.
        d = self.__dict__
        with _LOCK:
            d[_OVERRIDDEN] = set()
            for opt in _OPTIONS.values():
                _store(d, opt.name, opt._global)
            _THREAD_DICTS[threading.current_thread()] = d

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OPTIONS or name in _FAST_ATTRS:
            raise AttributeError(
                f"can't set config option {name!r} directly; use config.update({name!r}, ...)")
        super().__setattr__(name, value)

    def update(self, name: str, val: Any) -> None:
        """Set the global value of option ``name`` (thread-local overrides still win)."""
        opt = _OPTIONS.get(name)
        if opt is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        opt._set(val)

    def read(self, name: str) -> Any:
        opt = _OPTIONS.get(name)
        if isinstance(opt, State) and name != "jax_enable_x64":
            raise AttributeError(
                "For flags with a corresponding contextmanager, read their value "
                f"via e.g. `config.{name}` rather than `config.FLAGS.{name}`.")
        return self._read(name)

    def _read(self, name: str) -> Any:
        if name not in _OPTIONS:
            raise AttributeError(f"Unrecognized config option: {name}")
        return self.__dict__[name]

    @property
    def values(self) -> dict[str, Any]:
        return {name: self.__dict__[name] for name in _OPTIONS}

    def add_observer(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        """Call ``callback(name, value)`` (or ``callback()``) after every flag change."""
        with _LOCK:
            _OBSERVERS.append((callback, _accepts_two_args(callback)))
        return callback

    def remove_observer(self, callback: Callable[..., Any]) -> None:
        with _LOCK:
            _OBSERVERS[:] = [o for o in _OBSERVERS if o[0] is not callback]

    def trace_context(self) -> tuple:
        """Current values of the options that affect tracing (for jit cache keys)."""
        d = self.__dict__
        return tuple(d[n] for n in _TRACE_CONTEXT_NAMES)


config = Config()
_TRACE_CONTEXT_NAMES: list[str] = []


class _Option:
    """A registered option: name, parser and process-wide value."""

    def __init__(self, name: str, default: Any, help: str,
                 parser: Callable[[Any], Any] | None = None,
                 include_in_trace_context: bool = False) -> None:
        if name in _OPTIONS:
            raise Exception(f"Config option {name} already defined")
        self._name = name
        self.__name__ = name[4:] if name.startswith("jax_") else name
        self.__doc__ = help
        self._parser = parser
        self._global = parser(default) if parser else default
        with _LOCK:
            _OPTIONS[name] = self
            if include_in_trace_context:
                _TRACE_CONTEXT_NAMES.append(name)
            for d in list(_THREAD_DICTS.values()):
                _store(d, name, self._global)

    @property
    def name(self) -> str:
        return self._name

    @property
    def value(self) -> Any:
        return config.__dict__[self._name]

    def __bool__(self) -> NoReturn:
        raise TypeError(
            f"bool() not supported for instances of type '{type(self).__name__}' "
            f"(did you mean to use '{type(self).__name__}.value' instead?)")

    def _set(self, value: Any) -> None:
        if self._parser:
            value = self._parser(value)
        with _LOCK:
            self._global = value
            for d in list(_THREAD_DICTS.values()):
                if self._name not in d[_OVERRIDDEN]:
                    _store(d, self._name, value)
        _notify(self._name, value)

    def get_global(self) -> Any:
        return self._global


class Flag(_Option):
    """An option without a context manager (JAX's ``config.*_flag``)."""


class State(_Option):
    """An option with a thread-local context manager: ``with state(value): ...``."""

    def __init__(self, name: str, default: Any, help: str,
                 parser: Callable[[Any], Any] | None = None,
                 include_in_trace_context: bool = False,
                 default_context_manager_value: Any = no_default) -> None:
        super().__init__(name, default, help, parser, include_in_trace_context)
        self._default_context_manager_value = default_context_manager_value

    def __call__(self, new_val: Any = no_default) -> StateContextManager:
        return StateContextManager(self, new_val)


class StateContextManager:
    """Sets a ``State`` for the current thread; also usable as a decorator."""

    __slots__ = ("state", "new_val", "prev")

    def __init__(self, state: State, new_val: Any) -> None:
        self.state = state
        if new_val is no_default:
            new_val = state._default_context_manager_value
            if new_val is no_default:
                raise TypeError(f"Context manager for {state.__name__} config option "
                                "requires an argument representing the new value for "
                                "the config option.")
        self.new_val = state._parser(new_val) if state._parser else new_val

    def __enter__(self) -> None:
        d, name = config.__dict__, self.state.name
        overridden = d[_OVERRIDDEN]
        self.prev = (name in overridden, d[name])
        overridden.add(name)
        _store(d, name, self.new_val)
        if self.prev[1] != self.new_val:
            _notify(name, self.new_val)

    def __exit__(self, *exc: Any) -> None:
        d, name = config.__dict__, self.state.name
        was_overridden, old = self.prev
        current = d[name]
        if was_overridden:
            _store(d, name, old)
        else:
            with _LOCK:
                d[_OVERRIDDEN].discard(name)
                _store(d, name, self.state._global)
        if d[name] != current:
            _notify(name, d[name])

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with StateContextManager(self.state, self.new_val):
                return func(*args, **kwargs)
        return wrapper


# ---------------------------------------------------------------------------------------
# Option factories (parsers and environment-variable defaults as in JAX).

def bool_state(name: str, default: bool, help: str, *,
               include_in_trace_context: bool = False) -> State:
    default = bool_env(name.upper(), default)
    return State(name, default, help, bool, include_in_trace_context,
                 default_context_manager_value=True)


def enum_state(name: str, enum_values: Sequence[str], default: str, help: str, *,
               include_in_trace_context: bool = False) -> State:
    default = os.getenv(name.upper(), default)
    if default not in enum_values:
        raise ValueError(f'Invalid value "{default}" for JAX flag {name}')

    def parser(new_val: Any) -> str:
        if type(new_val) is not str or new_val not in enum_values:
            raise ValueError(f"new enum value must be in {list(enum_values)}, "
                             f"got {new_val} of type {type(new_val)}.")
        return new_val
    return State(name, default, help, parser, include_in_trace_context)


def optional_enum_state(name: str, enum_values: Sequence[str], default: str | None,
                        help: str, *, include_in_trace_context: bool = False) -> State:
    default = os.getenv(name.upper(), default)
    if default is not None and default not in enum_values:
        raise ValueError(f'Invalid value "{default}" for JAX flag {name}')

    def parser(new_val: Any) -> str | None:
        if new_val is not None and (type(new_val) is not str or new_val not in enum_values):
            raise ValueError(f"new enum value must be None or in {list(enum_values)}, "
                             f"got {new_val} of type {type(new_val)}.")
        return new_val
    return State(name, default, help, parser, include_in_trace_context)


def enum_class_state(name: str, enum_class: type[enum.Enum], default: enum.Enum, help: str,
                     *, include_in_trace_context: bool = False) -> State:
    env = os.getenv(name.upper())
    if env is not None:
        try:
            default = enum_class(env)
        except ValueError as e:
            raise ValueError(f'Invalid value "{env}" for JAX flag {name}') from e

    def parser(new_val: Any) -> enum.Enum:
        if isinstance(new_val, str):
            return enum_class(new_val)
        if not isinstance(new_val, enum_class):
            raise TypeError(f"new enum value must be an instance of {enum_class}, got "
                            f"{new_val} of type {type(new_val)}.")
        return new_val
    return State(name, default, help, parser, include_in_trace_context)


def string_or_object_state(name: str, default: Any, help: str, *,
                           validator: Callable[[Any], None] | None = None,
                           include_in_trace_context: bool = False) -> State:
    default = os.getenv(name.upper(), default)

    def parser(new_val: Any) -> Any:
        if validator is not None:
            validator(new_val)
        return new_val
    return State(name, default, help, parser, include_in_trace_context)


def _validate_optional_str(new_val: Any) -> None:
    if new_val is not None and not isinstance(new_val, str):
        raise ValueError("new string config value must be None or of type str,"
                         f" got {new_val} of type {type(new_val)}.")


def optional_string_state(name: str, default: str | None, help: str) -> State:
    return string_or_object_state(name, default, help, validator=_validate_optional_str)


def _validate_default_device(val: Any) -> None:
    if val is None or val in ("cpu", "gpu", "tpu") or "Device" in str(type(val)):
        return
    raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                     "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or "
                     f"'gpu', got: {val!r}")


def _validate_dynamic_shapes(val: Any) -> bool:
    if val:
        raise ValueError("didax does not support dynamic shapes: jax_dynamic_shapes is "
                         "fixed to False.")
    return False


# ---------------------------------------------------------------------------------------
# The options. Names, defaults, env variables and accepted values follow JAX 0.10.2.

enable_x64 = bool_state(
    "jax_enable_x64", False, "Enable 64-bit types to be used",
    include_in_trace_context=True)

numpy_dtype_promotion = enum_class_state(
    "jax_numpy_dtype_promotion", NumpyDtypePromotion, NumpyDtypePromotion.STANDARD,
    'Rules for implicit type promotion between arrays: "standard" or "strict".',
    include_in_trace_context=True)

numpy_rank_promotion = enum_state(
    "jax_numpy_rank_promotion", ["allow", "warn", "raise"], "allow",
    'Control NumPy-style automatic rank promotion broadcasting ("allow", "warn", or "raise").',
    include_in_trace_context=True)

explicit_x64_dtypes = enum_class_state(
    "jax_explicit_x64_dtypes", ExplicitX64Mode, ExplicitX64Mode.WARN,
    "What to do when a 64-bit dtype is explicitly requested while x64 is disabled: "
    "WARN (and truncate), ERROR, or ALLOW.",
    include_in_trace_context=True)

default_matmul_precision = optional_enum_state(
    "jax_default_matmul_precision",
    ["default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
     "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
     "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
     "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
     "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"],
    None, "Default precision (or dot algorithm preset) for matmul and conv on 32-bit inputs.",
    include_in_trace_context=True)

disable_jit = bool_state(
    "jax_disable_jit", False, "Disable JIT compilation and just call original Python.",
    include_in_trace_context=True)
debug_nans = bool_state("jax_debug_nans", False, "Add nan checks to every operation.")
debug_infs = bool_state("jax_debug_infs", False, "Add inf checks to every operation.")
enable_checks = bool_state(
    "jax_enable_checks", False, "Turn on invariant checking for didax internals.")
# JAX 0.10's switch from its remat2 implementation of jax.checkpoint to remat3 (a
# higher-order primitive called at trace time). didax has the one implementation (remat2):
# the flag is accepted and read as in JAX; checkpointed values and gradients are the same
# either way, while staged jaxprs keep remat2's form.
remat3 = bool_state(
    "jax_remat3", False, "If True, embrace the future of remat.",
    include_in_trace_context=True)
explain_cache_misses = bool_state(
    "jax_explain_cache_misses", False,
    "Log (at WARNING) why each `jit` call missed the tracing cache.")
log_compiles = bool_state(
    "jax_log_compiles", False, "Log a message each time `jit` compiles a computation.")
check_tracer_leaks = bool_state(
    "jax_check_tracer_leaks", False, "Check for leaked tracers at the end of each trace.")
debug_key_reuse = bool_state(
    "jax_debug_key_reuse", False, "Check for reuse of PRNG keys in jax.random calls.")
enable_custom_prng = bool_state(
    "jax_enable_custom_prng", False, "Enables custom pseudo-random number generators.")

default_prng_impl = enum_state(
    "jax_default_prng_impl",
    ["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32"],
    "threefry2x32", "Default PRNG implementation, used when none is given at seeding time.")
threefry_partitionable = bool_state(
    "jax_threefry_partitionable", True,
    "Use the partitionable variant of the threefry PRNG (the JAX 0.10 default).",
    include_in_trace_context=True)
legacy_prng_key = enum_class_state(
    "jax_legacy_prng_key", LegacyPrngKeyState, LegacyPrngKeyState.ALLOW,
    "Behaviour when raw PRNG keys are passed to jax.random APIs.")

traceback_filtering = enum_state(
    "jax_traceback_filtering",
    ["off", "tracebackhide", "remove_frames", "quiet_remove_frames", "auto"], "auto",
    "Controls how internal frames are filtered out of tracebacks.")

jax_platforms = optional_string_state(
    "jax_platforms", None, "Comma-separated list of platform names to initialize.")
default_device = string_or_object_state(
    "jax_default_device", None, "Default device for computations (Device or 'cpu').",
    validator=_validate_default_device, include_in_trace_context=True)
compilation_cache_dir = optional_string_state(
    "jax_compilation_cache_dir", None, "Path for the persistent compilation cache.")

# Plain flags (no context manager), as in JAX's xla_bridge.
platform_name = Flag(
    "jax_platform_name", os.getenv("JAX_PLATFORM_NAME", "").lower(),
    "Deprecated, please use --jax_platforms instead.")
cpu_enable_async_dispatch = Flag(
    "jax_cpu_enable_async_dispatch", True,
    "Only applies to non-parallel computations. If False, run computations inline "
    "without async dispatch.")
num_cpu_devices = Flag(
    "jax_num_cpu_devices", -1,
    "Number of CPU devices to use. If not provided, the value of the XLA flag "
    "--xla_force_host_platform_device_count is used. Must be set before JAX is initialized.",
    parser=int)
# Not a JAX 0.10 option (removed upstream); kept so code may read it. Always False.
dynamic_shapes = Flag(
    "jax_dynamic_shapes", False, "Dynamic shapes are not supported (always False).",
    parser=_validate_dynamic_shapes)


def disable_x64() -> StateContextManager:
    """Context manager that disables x64 in this thread (``jax.experimental`` style)."""
    return enable_x64(False)


def update(name: str, val: Any) -> None:
    config.update(name, val)
