"""`jax._src.lib.mlir.dialects`: jaxlib's MLIR dialect bindings; `hlo` is StableHLO, as in
JAX. Dialects other than StableHLO are loaded on first use."""

import importlib as _importlib

from jaxlib.mlir.dialects import stablehlo as hlo  # noqa: F401

_LAZY = ("arith", "builtin", "cf", "chlo", "func", "math", "memref", "mhlo", "scf",
         "sparse_tensor", "vector", "sdy")


def __getattr__(name: str):
    if name in _LAZY:
        return _importlib.import_module(f"jaxlib.mlir.dialects.{name}")
    raise AttributeError(f"module 'didax._src.lib.mlir.dialects' has no attribute '{name}'")
