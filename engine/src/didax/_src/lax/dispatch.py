"""Eager evaluation of a primitive by compiling it alone (JAX's `dispatch.apply_primitive`).

Primitives with no NumPy implementation worth having (convolutions, windowed reductions)
run eagerly as a one-equation XLA program, so eager and jitted code execute the same XLA
kernel and agree bit for bit. Executables are cached twice: by (primitive, input avals,
parameters) — the hot path, one dict lookup — and by the lowered module text, so a
parameter that is rebuilt on every call (a freshly traced jaxpr) still reuses the compiled
program.

May import core, dtypes, the interpreters, xla_backend and array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import core, xla_backend
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, Primitive, Tracer, Var, get_aval
from didax._src.interpreters import lowering

_CACHE_LIMIT = 4096
_by_key: dict[tuple, Executable] = {}
_by_text: dict[str, Any] = {}


class Executable:
    """One compiled equation: runs on concrete arguments, returns Arrays."""

    __slots__ = ("exe", "out_avals", "handlers", "multiple_results")

    def __init__(self, exe, out_avals: Sequence[Any], multiple_results: bool):
        self.exe = exe
        self.out_avals = list(out_avals)
        self.handlers = [xla_backend.result_handler(a) for a in self.out_avals]
        self.multiple_results = multiple_results

    def __call__(self, args: Sequence[Any], in_avals: Sequence[Any]):
        bufs = []
        for x, a in zip(args, in_avals):
            if type(x) is Array:
                b = x._buf
                bufs.append(b if b is not None else x._device_buffer())
            else:
                bufs.append(xla_backend.device_put(np.asarray(x, a.dtype)))
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        arrays = [Array.from_buffer(b, a) for b, a in zip(outs, self.out_avals)]
        return arrays if self.multiple_results else arrays[0]


def compile_equation(prim: Primitive, in_avals: Sequence[Any], params: dict) -> Executable:
    """prim applied to arguments of in_avals, as its own XLA executable."""
    out = prim.abstract_eval(*in_avals, **params)
    out_avals = list(out) if prim.multiple_results else [out]
    invars = [Var(a) for a in in_avals]
    outvars = [Var(a) for a in out_avals]
    eqn = core.new_eqn(invars, outvars, prim, params)
    jaxpr = core.Jaxpr([], invars, outvars, [eqn])
    module = lowering.lower_jaxpr_to_module(ClosedJaxpr(jaxpr, ()), name=f"jit_{prim.name}")
    if module.host_callbacks:
        raise NotImplementedError(f"{prim.name}: eager evaluation of a computation with host "
                                  "callbacks; call it under jax.jit instead")
    text = module.text()
    exe = _by_text.get(text)
    if exe is None:
        if len(_by_text) >= _CACHE_LIMIT:
            _by_text.clear()
        exe = _by_text[text] = xla_backend.compile(text)
    return Executable(exe, out_avals, prim.multiple_results)


def _params_key(params: dict):
    try:
        key = tuple(params.items())
        hash(key)
        return key
    except TypeError:  # an unhashable parameter: no per-key cache (the text cache remains)
        return None


def apply_primitive(prim: Primitive, *args, **params):
    """prim.bind(*args, **params) on concrete arguments, through XLA."""
    avals = []
    for x in args:
        if isinstance(x, Tracer):
            raise core.escaped_tracer_error(x)
        avals.append(x.aval if type(x) is Array else get_aval(x))
    avals = tuple(avals)
    pkey = _params_key(params)
    if pkey is None:
        return compile_equation(prim, avals, params)(args, avals)
    key = (prim, avals, pkey)
    exe = _by_key.get(key)
    if exe is None:
        if len(_by_key) >= _CACHE_LIMIT:
            _by_key.clear()
        exe = _by_key[key] = compile_equation(prim, avals, params)
    return exe(args, avals)


def cache_size() -> int:
    return len(_by_text)
