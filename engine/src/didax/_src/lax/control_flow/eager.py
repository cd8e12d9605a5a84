"""Eager (top-level) evaluation of the control-flow primitives.

`cond` runs just the selected branch. `scan` and `while` either interpret their body jaxpr
step by step (short loops, effectful bodies, extended dtypes — nothing to compile) or run
one XLA executable. Executables are cached by the lowered module text, i.e. by program
*structure*: re-tracing a closure on every call (as eager code does) reuses the executable
compiled the first time, unlike JAX's eager scan, which recompiles on every call.

May import core, dtypes, array, xla_backend, the interpreters and lax.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from didax._src import core, xla_backend
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, ShapedArray, Tracer, Var
from didax._src.interpreters import lowering
from didax._src.lax import lax as lax_
from didax._src.lax import shapes
from didax._src.lax.control_flow.common import memoized

# A loop whose body would be evaluated at most this many equation-steps is interpreted.
INTERPRET_BUDGET = 256


def check_no_tracers(args) -> None:
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)


def as_array(x, aval):
    """x as a didax Array of exactly aval's type (Arrays' buffers are shared)."""
    if type(x) is Array:
        if x.aval == aval:
            return x
        return Array(x._npy, aval, x._buf, x._device)
    if not isinstance(aval.dtype, np.dtype) or isinstance(x, Tracer):
        return x
    return Array(np.asarray(x, aval.dtype), aval)


def is_plain(avals) -> bool:
    """True when every aval has an ordinary NumPy dtype (no PRNG key types)."""
    return all(isinstance(getattr(a, "dtype", None), np.dtype) for a in avals)


def interpretable_only(jaxprs: Sequence[ClosedJaxpr], avals) -> bool:
    """Effects run in Python, in order, only when the body is interpreted."""
    return any(j.effects for j in jaxprs) or not is_plain(avals)


def unordered_effects_only(jaxprs: Sequence[ClosedJaxpr], avals) -> bool:
    """Only unordered effects (jax.debug.print, unordered callbacks): JAX runs such a loop
    compiled even eagerly, so its callbacks fire in the order XLA schedules them (two
    prints in one scan body can swap), which interpreting would not reproduce."""
    effects = [e for j in jaxprs for e in j.effects]
    return bool(effects) and not any(getattr(e, "ordered", True) for e in effects) \
        and is_plain(avals)


def run_jitted(prim, args, params) -> list:
    """prim.bind(*args, **params) through `jit`, host callbacks included (JAX's
    apply_primitive)."""
    from didax._src import pjit  # noqa: PLC0415 - the jit layer, imported when needed

    return pjit.jit(lambda *xs: prim.bind(*xs, **params))(*args)


# ----------------------------------------------------------------------------------------
# Compiled execution (cache keyed by module text)
# ----------------------------------------------------------------------------------------

_by_text: dict[str, Any] = {}


class _Compiled:
    __slots__ = ("exe", "out_avals", "handlers")

    def __init__(self, exe, out_avals):
        self.exe = exe
        self.out_avals = out_avals
        self.handlers = [xla_backend.result_handler(a) for a in out_avals]

    def __call__(self, args, in_avals) -> list:
        bufs = []
        for x, a in zip(args, in_avals):
            if type(x) is Array:
                bufs.append(x._buf if x._buf is not None else x._device_buffer())
            else:
                bufs.append(xla_backend.device_put(np.asarray(x, a.dtype)))
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return [Array.from_buffer(b, a) for b, a in zip(outs, self.out_avals)]


def _compile_eqn(prim, in_avals, params, out_avals) -> _Compiled | None:
    """One equation as an XLA program; None when it cannot be compiled (no lowering, or
    host callbacks inside, which run interpreted instead)."""
    invars = [Var(a) for a in in_avals]
    outvars = [Var(a) for a in out_avals]
    jaxpr = core.Jaxpr([], invars, outvars, [core.new_eqn(invars, outvars, prim, params)])
    try:
        module = lowering.lower_jaxpr_to_module(ClosedJaxpr(jaxpr, ()), name=f"jit_{prim.name}",
                                                locations=False)
    except NotImplementedError:
        return None
    if module.host_callbacks:
        return None
    text = module.text()
    exe = _by_text.get(text)
    if exe is None:
        exe = _by_text[text] = xla_backend.compile(text)
    return _Compiled(exe, list(out_avals))


def run_compiled(prim, key_jaxpr: ClosedJaxpr, args, params, out_avals) -> list | None:
    """prim.bind(*args, **params) as one XLA executable, or None if it cannot be built."""
    in_avals = tuple(core.get_aval(a) for a in args)
    key = (in_avals, tuple(sorted(params.items())))
    compiled = memoized("eager_compiled", key_jaxpr, key,
                        lambda: _compile_eqn(prim, in_avals, params, out_avals))
    if compiled is None:
        return None
    return compiled(args, in_avals)


def compiled_cache_size() -> int:
    return len(_by_text)


# ----------------------------------------------------------------------------------------
# Interpretation helpers
# ----------------------------------------------------------------------------------------


def index_leading(x, i: int, aval):
    """x[i] along the leading axis."""
    if isinstance(aval.dtype, np.dtype):
        v = np.asarray(x)[i, ...]
        return Array(v, ShapedArray(v.shape, aval.dtype, aval.weak_type))
    return shapes.index_in_dim(x, i, 0, keepdims=False)


def stack_leading(vals: Sequence[Any], aval, length: int):
    """The values (each of aval's type) stacked along a new leading axis."""
    out_aval = ShapedArray((length, *aval.shape), aval.dtype, aval.weak_type)
    if isinstance(aval.dtype, np.dtype):
        if not vals:
            return Array(np.zeros(out_aval.shape, aval.dtype), out_aval)
        return Array(np.stack([np.asarray(v, aval.dtype) for v in vals]), out_aval)
    parts = [shapes.expand_dims(v, (0,)) for v in vals]
    return shapes.concatenate(parts, 0)


def select_lanes(pred, new, old):
    """Per lane (leading dims of pred): new where pred, else old."""
    p_aval = core.get_aval(pred)
    x_aval = core.get_aval(new)
    if p_aval.shape != x_aval.shape:
        pred = shapes.broadcast_in_dim(pred, x_aval.shape, tuple(range(len(p_aval.shape))))
    return lax_.select_n(pred, old, new)


def any_true(pred) -> bool:
    return bool(np.any(np.asarray(pred)))
