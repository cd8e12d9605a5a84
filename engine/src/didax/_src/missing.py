"""Known JAX APIs didax does not implement: asking for one raises NotImplementedError naming
it and what to use instead, rather than an AttributeError (or ModuleNotFoundError) from
somewhere inside the engine.

- `module_getattr(jax_name, module_name)` is a module `__getattr__` for a public module:
  names JAX 0.10.2 has there (jax_api_names.py) raise NotImplementedError, others the
  AttributeError Python would raise;
- `install_module_finder()` makes importing a JAX submodule didax lacks (`import
  jax.experimental.pallas`) raise NotImplementedError too;
- `array_getattr` does the same for attributes of arrays.

May import only the standard library and jax_api_names.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable

from didax._src.jax_api_names import JAX_NAMES, JAX_SUBMODULES

_ALTERNATIVES: dict[str, str] = {
    "jax.smap": "use jax.vmap",
    "jax.experimental.pallas": "write the computation with jax.numpy / jax.lax under jax.jit",
    "jax.experimental.jax2tf": "export with jax.export (StableHLO)",
    "jax.ffi": "call host code with jax.pure_callback",
    "jax.dlpack": "convert through NumPy: np.asarray(x) and jnp.asarray(a)",
    "jax.profiler": "time calls with time.perf_counter() after jax.block_until_ready",
    "jax.distributed": "run on the local CPU devices (jax.devices())",
    "jax.scipy.sparse.linalg.gmres": "use jax.scipy.sparse.linalg.bicgstab (or cg)",
    "jax.custom_batching": "write the batching with jax.vmap of a plain function",
}

_MODULE_DEFAULTS: dict[str, str] = {
    "jax.numpy": "compose it from the jax.numpy functions didax has",
    "jax.lax": "compose it from the jax.lax / jax.numpy operations didax has",
    "jax.scipy.special": "compose it from jax.numpy and jax.scipy.special functions didax has",
    "jax.scipy.stats": "write the density with jax.numpy and jax.scipy.special",
    "jax.scipy.linalg": "use jax.numpy.linalg / jax.scipy.linalg functions didax has",
    "jax.random": "derive it from jax.random.uniform / normal with jax.numpy",
    "jax.nn": "write it with jax.numpy",
}


def unimplemented_message(api: str) -> str:
    alt = _ALTERNATIVES.get(api)
    if alt is None:
        for prefix in sorted(_ALTERNATIVES, key=len, reverse=True):
            if api.startswith(prefix + "."):
                alt = _ALTERNATIVES[prefix]
                break
    if alt is None:
        alt = _MODULE_DEFAULTS.get(api.rsplit(".", 1)[0],
                                   "use the parts of the JAX API didax provides "
                                   "(listed in engine/README.md)")
    return (f"{api} is not implemented in didax (the playground's from-scratch JAX); "
            f"{alt} instead.")


@functools.cache
def _names(jax_name: str) -> frozenset:
    return frozenset(JAX_NAMES.get(jax_name, "").split())


def module_getattr(jax_name: str, module_name: str) -> Callable[[str], object]:
    """A module `__getattr__`: JAX's names raise NotImplementedError, others AttributeError."""
    known = _names(jax_name)

    def __getattr__(name: str):
        if name in known:
            if f"{jax_name}.{name}" in JAX_SUBMODULES:  # a submodule: imported on first use
                return importlib.import_module(f"{module_name}.{name}")
            raise NotImplementedError(unimplemented_message(f"{jax_name}.{name}"))
        # (named as the user's program imports it: `jax` is didax in the playground)
        raise AttributeError(f"module '{jax_name}' has no attribute '{name}'")
    return __getattr__


def array_getattr(obj, name: str):
    """For an array type's `__getattr__`: JAX's Array attributes raise NotImplementedError."""
    attr = getattr(type(obj), name, None)
    if attr is not None and hasattr(attr, "__get__"):
        return attr.__get__(obj, type(obj))  # a property that raised: its own error again
    if name[:1] != "_" and name in _names("jax.Array"):
        raise NotImplementedError(unimplemented_message(f"jax.Array.{name}"))
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")


class _Loader(importlib.abc.Loader):
    def __init__(self, jax_name: str):
        self.jax_name = jax_name

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        raise NotImplementedError(unimplemented_message(self.jax_name))


class _Finder(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: only names nothing else found reach it."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("didax."):
            return None
        jax_name = "jax" + fullname[len("didax"):]
        if jax_name not in JAX_SUBMODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Loader(jax_name))


def install_module_finder() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
