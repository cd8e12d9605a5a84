"""The types JAX prints around a staged shard_map: inside the body, each value's varying
manual axes (`d:f32[3]{V:i}`), with the `pvary` JAX inserts where an operation mixes
values varying over different axes; outside, over Explicit mesh axes, the layouts of the
arguments and results (`a:f32[6@i]`).

didax's avals carry neither, so the body jaxpr is annotated after tracing: the varying axes
are propagated through its equations (collectives remove or add axes as JAX's rules do),
the pvary equations are inserted (they are identities on values, so the emulation computes
the same), and the printer is told each variable's type text.

May import core, jaxpr_printer, sharding, lax.collectives, shard_map_trace.
"""

from __future__ import annotations

from didax._src import core
from didax._src.core import ClosedJaxpr, Literal, Var
from didax._src.jaxpr_printer import var_type_text
from didax._src.lax.collectives import psum_invariant_p, pvary_p
from didax._src.shard_map_trace import spec_axes
from didax._src.sharding import NamedSharding, PartitionSpec, ShardedType

# Collectives: how each changes the set of axes a value varies over.
_REDUCE = {"psum", "pmax", "pmin"}


def _out_vma(eqn, in_vma: frozenset, order) -> frozenset:
    name, params = eqn.primitive.name, eqn.params
    if name in _REDUCE:
        return in_vma - {a for a in params["axes"] if not isinstance(a, int)}
    if name == "all_gather":
        return in_vma - set(params["axis_name"])
    if name in ("pvary", "axis_index"):
        return in_vma | set(params["axes"] if name == "pvary" else (params["axis_name"],))
    return in_vma


def _pvary_inputs(eqn, ins, order, union, vma, eqns) -> list:
    """The equation's inputs, each varying over union (pvary inserted where it is not);
    for a psum, over the axes it sums too."""
    invars = list(eqn.invars)
    for i, (x, m) in enumerate(zip(invars, ins)):
        want = union
        if eqn.primitive.name == "psum":
            want = union | {a for a in eqn.params["axes"] if not isinstance(a, int)}
        missing = tuple(n for n in order if n in want - m)
        if type(x) is Literal or not missing:
            continue
        y = Var(x.aval)
        eqns.append(core.new_eqn([x], [y], pvary_p, {"axes": missing}))
        vma[y] = m | set(missing)
        invars[i] = y
    return invars


def _as_invariant_psum(eqn, invars, vma):
    """JAX stages a psum in a checked body as psum_invariant (one per operand)."""
    axes = tuple(a for a in eqn.params["axes"] if not isinstance(a, int))
    if len(axes) != len(eqn.params["axes"]):
        return [eqn.replace(invars=invars)]
    return [core.new_eqn([x], [o], psum_invariant_p, {"axes": axes})
            for x, o in zip(invars, eqn.outvars)]


def _suffix(vma, order) -> str:
    names = [n for n in order if n in vma]
    if not names:
        return ""
    text = ",".join(map(str, names))
    return f"{{V:{text if len(names) == 1 else f'({text})'}}}"


def annotate_body(closed: ClosedJaxpr, in_specs, axes, check_vma=True) -> ClosedJaxpr:
    """The body with JAX's pvary equations, its variables' printed types recorded."""
    order = [n for n, _ in axes]
    manual = set(order)
    jaxpr = closed.jaxpr
    vma: dict = {}
    for v, s in zip(jaxpr.invars, in_specs):
        vma[v] = frozenset(a for part in spec_axes(s, len(v.aval.shape)) for a in part
                           if a in manual)
    eqns = []
    for eqn in jaxpr.eqns:
        ins = [vma.get(x, frozenset()) if type(x) is not Literal else frozenset()
               for x in eqn.invars]
        union = frozenset().union(*ins)
        invars = list(eqn.invars)
        name = eqn.primitive.name
        if (not getattr(eqn.primitive, "is_higher_order", False) and len(invars) > 1 and
                name not in _REDUCE) or (name == "psum" and check_vma):
            invars = _pvary_inputs(eqn, ins, order, union, vma, eqns)
        if name == "psum" and check_vma:
            union = frozenset().union(*(vma.get(x, frozenset()) for x in invars
                                        if type(x) is not Literal))
        out = _out_vma(eqn, union, order)
        for o in eqn.outvars:
            vma[o] = out
        if name == "psum" and check_vma:
            eqns.extend(_as_invariant_psum(eqn, invars, vma))
        else:
            eqns.append(eqn if invars == list(eqn.invars) else eqn.replace(invars=invars))
    for v, m in vma.items():
        if m:
            var_type_text[v] = v.aval.str_short(short_dtypes=True) + _suffix(m, order)
    if len(eqns) == len(jaxpr.eqns) and all(a is b for a, b in zip(eqns, jaxpr.eqns)):
        return closed
    return ClosedJaxpr(jaxpr.replace(eqns=eqns), closed.consts)


def annotate_layouts(tracers, specs, mesh) -> None:
    """Over Explicit mesh axes, traced values print with their layouts (`f32[6@i]`)."""
    from didax._src.sharding import AxisType  # noqa: PLC0415

    if AxisType.Explicit not in mesh.axis_types:
        return
    for x, s in zip(tracers, specs):
        var = getattr(x, "_var", None)
        if type(var) is not Var or s is None:
            continue
        spec = PartitionSpec(*s) if not isinstance(s, PartitionSpec) else s
        if not any(spec):
            continue
        typed = ShardedType(var.aval, NamedSharding(mesh, spec))
        var_type_text[var] = typed.str_short(short_dtypes=True)
