"""`jax.interpreters`: the rule tables user code extends when it defines primitives (ad,
batching, mlir, partial_eval, xla); each submodule is loaded on first use."""

import importlib as _importlib

_SUBMODULES = ("ad", "batching", "mlir", "partial_eval", "xla")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"didax.interpreters.{name}")
    raise AttributeError(f"module 'didax.interpreters' has no attribute '{name}'")
