"""Eager evaluation through XLA, for the primitives whose floating-point results NumPy
would round differently from XLA: transcendental functions (XLA's own approximations),
reductions and matrix products (XLA's summation order). JAX evaluates every operation
with XLA, eagerly or jitted; evaluating these the same way makes eager results equal to
jitted ones bit for bit (exact operations — add, multiply, comparisons, reshapes — give
the same bits either way and stay on the faster NumPy path). This applies to float32 and
complex64 results, where a 1-ulp difference is visible to `allclose(atol=1e-6)`; float64
results stay on NumPy (differences ~1e-16, and NumPy is several times faster eagerly).

Each (primitive, input types, parameters, scalar constants) compiles once into a
one-equation program; Python and NumPy scalars are baked in as constants, as `jit` inlines
them as literals (so XLA simplifies `x ** 2.0` exactly as it does in a jitted function).
Results stay on the device until something reads them (a zero-copy view when NumPy does).

May import core, dtypes, the interpreters, xla_backend and array.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from didax._src import core, xla_backend
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, Jaxpr, Literal, Var
from didax._src.interpreters import lowering

_CACHE_LIMIT = 4096
_cache: dict = {}
_new_array = Array.__new__


class _Program:
    __slots__ = ("exe", "handlers", "out_avals", "dynamic")

    def __init__(self, exe, out_avals, dynamic: tuple[int, ...]):
        self.exe = exe
        self.out_avals = out_avals
        self.dynamic = dynamic  # which arguments are passed (the others are constants)
        self.handlers = [xla_backend.result_handler(a) for a in out_avals]


def _is_constant(x) -> bool:
    """A scalar the program bakes in (a literal under jit)."""
    t = type(x)
    if t in (int, float, complex, bool, core.TypedScalar):
        return True
    return (t is np.ndarray or isinstance(x, np.generic)) and np.shape(x) == ()


_UNAVAILABLE = object()  # a signature XLA could not compile


def run(prim: core.Primitive, args: Sequence, avals: tuple, out_aval, params: dict):
    """prim(*args, **params) evaluated by XLA; avals are the arguments' types. None when
    XLA cannot compile it (the caller then evaluates it on the host)."""
    program = program_for(prim, args, avals, out_aval, params)
    return None if program is None else execute(program, args, avals, prim.multiple_results)


def program_for(prim: core.Primitive, args: Sequence, avals: tuple, out_aval,
                params: dict) -> _Program | None:
    """The compiled one-equation program of this signature (None: XLA cannot compile it)."""
    consts = None
    for a in args:
        if type(a) is not Array:  # (scalars are part of the program)
            consts = tuple([_const_key(a) if _is_constant(a) else None for a in args])
            break
    try:
        key = (prim, avals, tuple(params.items()), consts)
        program = _cache.get(key)
    except TypeError:  # an unhashable parameter
        key, program = None, None
    if program is None:
        try:
            program = _compile(prim, args, avals, out_aval, params)
        except Exception:  # noqa: BLE001 - e.g. a lowering XLA cannot compile
            program = None
        if key is not None:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            _cache[key] = program if program is not None else _UNAVAILABLE
    return None if program is _UNAVAILABLE else program


def execute(program: _Program, args: Sequence, avals: tuple, multiple: bool = False):
    """The program's results (Arrays whose values stay on the device) on args."""
    bufs = []
    for i in program.dynamic:
        x = args[i]
        if type(x) is Array:
            b = x._buf
            bufs.append(b if b is not None else x._device_buffer())
        else:
            bufs.append(xla_backend.device_put(np.asarray(x, avals[i].dtype)))
    outs = program.exe.execute_sharded(bufs).consume_with_handlers(program.handlers)
    results = []
    for buf, aval in zip(outs, program.out_avals):
        a = _new_array(Array)
        a._npy = None
        a._buf = buf
        a._device = None
        a.aval = aval
        results.append(a)
    return results if multiple else results[0]


def _const_key(x):
    v = x.val if type(x) is core.TypedScalar else x
    v = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
    return (type(v), v)


def _compile(prim, args, avals, out_aval, params) -> _Program:
    invars, atoms, dynamic = [], [], []
    for i, (x, a) in enumerate(zip(args, avals)):
        if _is_constant(x):
            atoms.append(Literal(core.literal_value(x), a))
        else:
            v = Var(a)
            invars.append(v)
            atoms.append(v)
            dynamic.append(i)
    out_avals = list(out_aval) if prim.multiple_results else [out_aval]
    outvars = [Var(a) for a in out_avals]
    eqn = core.new_eqn(atoms, outvars, prim, params)
    jaxpr = Jaxpr((), invars, outvars, [eqn])
    text = lowering.lower_jaxpr_to_module(ClosedJaxpr(jaxpr, ()), name=f"jit_{prim.name}").text()
    return _Program(xla_backend.compile(text), out_avals, tuple(dynamic))
