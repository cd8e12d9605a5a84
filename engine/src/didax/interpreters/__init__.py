"""`jax.interpreters`: the rule tables user code extends when it defines primitives (ad,
batching, mlir, partial_eval, xla); each submodule is loaded on first use."""

import importlib as _importlib

_SUBMODULES = ("ad", "batching", "mlir", "partial_eval", "xla")


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"didax.interpreters.{name}")
    return _missing(name)


from didax._src.missing import module_getattr as _module_getattr  # noqa: E402

_missing = _module_getattr("jax.interpreters", __name__)
