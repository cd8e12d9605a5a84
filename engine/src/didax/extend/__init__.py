"""`jax.extend`: the APIs for building on JAX's internals (`jax.extend.core`: primitives
and jaxprs); submodules are loaded on first use."""

import importlib as _importlib

_SUBMODULES = ("core", "linear_util", "source_info_util", "backend", "mlir", "random")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"didax.extend.{name}")
    return _missing(name)


from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

_missing = _module_getattr("jax.extend", __name__)
