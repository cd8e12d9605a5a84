"""`jax.extend`: the APIs for building on JAX's internals (`jax.extend.core`: primitives
and jaxprs); submodules are loaded on first use."""

import importlib as _importlib

_SUBMODULES = ("core", "linear_util", "source_info_util", "backend", "mlir", "random")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"didax.extend.{name}")
    raise AttributeError(f"module 'didax.extend' has no attribute '{name}'")
