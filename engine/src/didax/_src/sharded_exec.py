"""Running computations on arrays laid out over a mesh, as JAX does: the jaxpr is compiled
once per input layout as one SPMD program over the mesh's devices (XLA partitions it and
propagates the layouts, and the output layouts are read back from the executable as
NamedShardings). A jitted function called with sharded arrays, and any eager operation on
one, run this way, so results are sharded as JAX's are.

May import core, the interpreters, xla_backend, array, sharding.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Sequence

import numpy as np

from didax._src import core, sharding_rules, xla_backend
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, Jaxpr, Literal, Var
from didax._src.interpreters import lowering
from didax._src.sharding import (
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    ShardedArray,
    gspmd_sharding,
    named_from_hlo,
    put_sharded,
    wrap_sharded,
)

_programs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _SpmdProgram:
    def __init__(self, exe, mesh: Mesh, in_shardings, out_avals):
        self.exe, self.mesh, self.in_shardings = exe, mesh, in_shardings
        self.out_avals = out_avals
        xc = xla_backend.xc()
        protos = exe.get_output_shardings()  # (None over a one-device mesh: replicated)
        hlos = ([xc.HloSharding.from_proto(o) for o in protos] if protos is not None
                else [xc.HloSharding.replicate()] * len(out_avals))
        self.set_out_shardings([_full_spec(named_from_hlo(h, mesh, len(a.shape)), a)
                                for h, a in zip(hlos, out_avals)])

    def set_out_shardings(self, shardings: list) -> None:
        xc = xla_backend.xc()
        self.out_shardings = shardings
        self.handlers = [xc.array_result_handler(xla_backend._Aval(a.shape, a.dtype),
                                                 gspmd_sharding(s, len(a.shape)), True,
                                                 _skip_checks=True)
                         for a, s in zip(self.out_avals, shardings)]

    def __call__(self, args) -> list:
        bufs = []
        for x, s in zip(args, self.in_shardings):
            if type(x) is ShardedArray and x._named == s:
                bufs.append(x._buf)
            else:
                x = getattr(x, "_base_array", x)  # (typed PRNG keys: their key data)
                aval = core.get_aval(x)
                host = x._value if isinstance(x, Array) else np.asarray(x, aval.dtype)
                bufs.append(put_sharded(host, aval, s)._buf)
        outs = self.exe.execute_sharded(bufs).consume_with_handlers(self.handlers)
        return [wrap_sharded(b, a, s) for b, a, s in zip(outs, self.out_avals,
                                                         self.out_shardings)]


def _full_spec(s: NamedSharding, aval) -> NamedSharding:
    """Over Explicit mesh axes a layout is part of the type: one entry per dimension."""
    if AxisType.Explicit not in s.mesh.axis_types or len(s.spec) >= len(aval.shape):
        return s
    return s.with_spec(PartitionSpec(*s.spec, *(None,) * (len(aval.shape) - len(s.spec))))


def mesh_of(args: Sequence) -> Mesh | None:
    mesh = None
    for x in args:
        if type(x) is ShardedArray:
            m = x._named.mesh
            if mesh is None:
                mesh = m
            elif m != mesh:
                raise ValueError(f"Received incompatible devices for jitted computation: "
                                 f"arguments are laid out over {mesh} and {m}")
    return mesh


def call_sharded(closed: ClosedJaxpr, args: Sequence, name: str,
                 mesh: Mesh | None = None, out_shardings: tuple | None = None) -> list:
    """Runs closed on args as an SPMD program over their mesh (or `mesh`: that of a
    sharding constraint inside, when no argument is sharded); out_shardings, when given,
    fix the results' layouts (else XLA's propagation chooses them)."""
    mesh = mesh_of(args) or mesh
    shardings = tuple(x._named if type(x) is ShardedArray else NamedSharding(mesh, PartitionSpec())
                      for x in args)
    table = _programs.setdefault(closed, {})
    program = table.get((shardings, out_shardings))
    if program is None:
        try:
            program = _compile(closed, mesh, shardings, name, out_shardings)
        except _HostCallbacks:
            program = _on_host
        table[(shardings, out_shardings)] = program
    if program is _on_host:
        return _on_host(closed, args)
    return program(args)


class _HostCallbacks(Exception):
    """The program calls back into Python: XLA's SPMD partitioner cannot place that."""


def _on_host(closed: ClosedJaxpr, args) -> list:
    """A computation with callbacks, over sharded arrays: run on the gathered values (as
    JAX gathers a callback's operands: one call with the whole array)."""
    host = [Array(x._value, x.aval) if type(x) is ShardedArray else x for x in args]
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *host)


def _compile(closed: ClosedJaxpr, mesh: Mesh, shardings, name: str,
             out_shardings=None) -> _SpmdProgram:
    sym = "".join(c if c.isalnum() or c == "_" else "_"
                  for c in name.replace("<", "_").replace(">", "")) or "f"  # (`<lambda>`)
    module = lowering.ModuleBuilder(f"jit_{sym}", num_partitions=mesh.size,
                                     locations=False)  # (the signature is edited as text)
    lowering.lower_function(module, "main", closed, public=True)
    text = module.text()
    for i, (s, v) in enumerate(zip(shardings, closed.jaxpr.invars)):
        attr = f' {{mhlo.sharding = "{s.hlo_string(len(v.aval.shape))}"}}'
        text = re.sub(rf"(func\.func public @main\(.*?%arg{i}: [^,)]+)", rf"\g<1>{attr}",
                      text, count=1)
    if out_shardings is not None:
        text = _annotate_results(text, [s.hlo_string(len(a.shape)) for s, a in
                                        zip(out_shardings, closed.out_avals)])
    if module.host_callbacks:
        raise _HostCallbacks()
    xc = xla_backend.xc()
    opts = xc.CompileOptions()
    opts.num_partitions, opts.num_replicas = mesh.size, 1
    build = opts.executable_build_options
    build.use_spmd_partitioning = True
    build.allow_spmd_sharding_propagation_to_output = [out_shardings is None]
    ids = np.array([[d.id for d in mesh.devices.flat]], np.int32)
    opts.device_assignment = xc.DeviceAssignment.create(ids)
    exe = xla_backend.compile(text, (), list(mesh.devices.flat), opts)
    program = _SpmdProgram(exe, mesh, shardings, list(closed.out_avals))
    if out_shardings is not None:  # (the specs as the rules wrote them, e.g. P('X', None))
        program.set_out_shardings(list(out_shardings))
    return program


def _annotate_results(text: str, hlo_strings: list[str]) -> str:
    """main's results carry the given XLA shardings."""
    head, sep, rest = text.partition("func.func public @main(")
    sig, nl, body = rest.partition("\n")
    args, arrow, results = sig.rpartition(") -> (")
    items, depth, start = [], 0, 0
    for i, ch in enumerate(results):  # (the results, split at top-level commas)
        depth += ch in "<{(" and 1 or ch in ">})" and -1 or 0
        if depth < 0 or (ch == "," and depth == 0):
            items.append(results[start:i].strip())
            start = i + 1
        if depth < 0:
            break
    tail = results[i:]
    out = []
    for item, h in zip(items, hlo_strings):
        attr = f'mhlo.sharding = "{h}"'
        out.append(item.replace("{", "{" + attr + ", ", 1) if "{" in item else
                   f"{item} {{{attr}}}")
    return head + sep + args + arrow + ", ".join(out) + tail + nl + body


# ----------------------------------------------------------------------------------------
# Eager operations on sharded arrays
# ----------------------------------------------------------------------------------------

_eqn_cache: dict = {}


def apply_sharded(prim: core.Primitive, args, params):
    """prim on args (at least one a ShardedArray), as a one-equation SPMD program; over
    Explicit mesh axes the results are laid out by JAX's sharding rules."""
    avals = tuple(core.get_aval(x) for x in args)
    consts = tuple(x if not isinstance(x, Array) and np.shape(x) == () else None
                   for x in args)
    try:
        key = (prim, avals, tuple(params.items()), tuple(map(_const_key, consts)))
        closed = _eqn_cache.get(key)
    except TypeError:
        key, closed = None, None
    if closed is None:
        closed = _one_equation(prim, avals, consts, params)
        if key is not None:
            _eqn_cache[key] = closed
    dyn = [x for x, c in zip(args, consts) if c is None]
    outs = call_sharded(closed, dyn, prim.name, out_shardings=_explicit_out(
        prim, args, avals, closed, params))
    return outs if prim.multiple_results else outs[0]


def _explicit_out(prim, args, avals, closed, params) -> tuple | None:
    """The results' layouts by JAX's rules, when the arguments' mesh axes are Explicit."""
    mesh = mesh_of(args)
    if mesh is None or AxisType.Explicit not in mesh.axis_types or \
            len(closed.out_avals) != 1:
        return None
    specs = [x._named.spec._normalized(len(a.shape)) if type(x) is ShardedArray else
             ((),) * len(a.shape) for x, a in zip(args, avals)]
    specs = [tuple(None if not p else p[0] if len(p) == 1 else p for p in sp) for sp in specs]
    out_aval = closed.out_avals[0]
    spec = sharding_rules.out_spec(prim.name, [a.shape for a in avals], specs,
                                   out_aval.shape, dict(params, _dtypes=[
                                       a.dtype for a in avals] + [out_aval.dtype]))
    if spec is None:
        return None
    return (NamedSharding(mesh, PartitionSpec(*spec)),)


def _const_key(c):
    return None if c is None else (type(c), np.asarray(c).item())


def _one_equation(prim, avals, consts, params) -> ClosedJaxpr:
    invars, atoms = [], []
    for a, c in zip(avals, consts):
        if c is not None:
            atoms.append(Literal(core.literal_value(c), a))
        else:
            v = Var(a)
            invars.append(v)
            atoms.append(v)
    out = prim.abstract_eval(*avals, **params)
    out_avals = list(out) if prim.multiple_results else [out]
    outvars = [Var(a) for a in out_avals]
    jaxpr = Jaxpr((), invars, outvars, [core.new_eqn(atoms, outvars, prim, params)])
    return ClosedJaxpr(jaxpr, ())


core.register_special_eval(ShardedArray, apply_sharded)
