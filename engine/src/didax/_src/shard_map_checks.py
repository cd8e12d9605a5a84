"""shard_map's checks of its specs against the mesh, the arguments and the results, with
JAX 0.10's exception types and messages.

May import core, sharding, tree_util.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from didax._src import core
from didax._src.sharding import PartitionSpec, layout_of
from didax._src.tree_util import keystr, tree_flatten_with_path, tree_leaves


def _names(part) -> tuple:
    return () if part is None else (tuple(part) if isinstance(part, tuple) else (part,))


def check_specs(prefix: str, specs, manual_axes) -> None:
    """Every spec is a PartitionSpec naming only manual mesh axes."""
    if prefix == "in" and specs is None:
        raise TypeError("shard_map in_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but it was None.\n"
                        "Instead of `in_specs=None`, did you mean `in_specs=P()`, where "
                        "`P = jax.sharding.PartitionSpec`?")
    leaves = tree_leaves(specs)
    bad_type = [x for x in leaves if not isinstance(x, PartitionSpec)]
    if bad_type:
        msgs = [f"  {prefix}_specs is {x} of type {type(x).__name__}, " for x in bad_type]
        raise TypeError(f"shard_map {prefix}_specs argument must be a pytree of "
                        "`jax.sharding.PartitionSpec` instances, but:\n\n"
                        + "\n\n".join(msgs) + "\n\n"
                        f"Check the {prefix}_specs values passed to shard_map.")
    msgs = [f"  {prefix}_specs refers to {name!r}" for p in leaves for part in p
            for name in _names(part) if name not in manual_axes]
    if msgs:
        raise ValueError(f"shard_map {prefix}_specs argument must refer to an axis marked "
                         f"as manual ({frozenset(manual_axes)}), but:\n\n"
                         + "\n\n".join(msgs) + "\n\n"
                         f"Check the {prefix}_specs values passed to shard_map.")


def _fun_name(f) -> str:
    return getattr(f, "__name__", str(f))


def _where(f, all_args, i) -> tuple[str, str]:
    """args[k]... of flat argument i, and JAX's note on the parameter it is bound to."""
    path = tree_flatten_with_path(all_args)[0][i][0]
    key = f"args{keystr(path)}"
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return key, ""
    idx = path[0].idx
    first = f"args{keystr(path[:1])}"
    if idx >= len(params) or params[idx].kind == params[idx].VAR_POSITIONAL:
        return key, (f", where {first} is the index {idx - len(params) + 1} component of "
                     f"{_fun_name(f)}'s varargs parameter '{params[-1].name}',"
                     if params else "")
    return key, f", where {first} is bound to {_fun_name(f)}'s parameter '{params[idx].name}',"


def check_specs_vs_args(f, mesh, all_args, dyn_argnums, specs, args) -> None:
    """in_specs no longer than their arguments' ranks and dividing their sizes."""
    name = _fun_name(f)
    avals = [core.get_aval(x) for x in args]
    for s, a in zip(specs, avals):
        if len(s) > len(a.shape):
            raise ValueError(
                f"shard_map applied to the function '{name}' was given an in_specs entry "
                "which is too long to be compatible with the corresponding input value "
                f"from the function:\n\nin_specs is {s} which has length {len(s)}, but the "
                f"passed args has shape {a.str_short()}, which has rank {len(a.shape)} (and "
                f"{len(a.shape)} < {len(s)})\n\nEntries in in_specs must be of length no "
                "greater than the number of axes in the corresponding input value.\n\n"
                f"Either revise the spec to be shorter, or modify '{name}' so that its "
                "inputs have sufficient rank.")
    msgs = []
    for i, s, a in zip(dyn_argnums, specs, avals):
        for d, part in enumerate(s):
            ns = _names(part)
            sz = math.prod(mesh.shape[n] for n in ns)
            if ns and a.shape[d] % sz:
                axis = f"axes {ns}" if len(ns) > 1 else f"axis '{ns[0]}'"
                total = "total " if len(ns) > 1 else ""
                key, extra = _where(f, all_args, i)
                msgs.append(f"* the passed {key} of shape {a.str_short()}{extra} corresponds to "
                            f"in_specs of value {s}, which maps array axis {d} (of size "
                            f"{a.shape[d]}) to mesh {axis} (of {total}size {sz}), but {sz} "
                            f"does not evenly divide {a.shape[d]}")
    if msgs:
        if len(msgs) == 1:
            msgs = [msgs[0][2:]]
        raise ValueError(
            f"shard_map applied to the function '{name}' was given argument arrays with "
            "axis sizes that are not evenly divisible by the corresponding mesh axis "
            f"sizes:\n\nThe mesh given has shape {tuple(mesh.shape.values())} with "
            f"corresponding axis names {mesh.axis_names}.\n\n" + "\n\n".join(msgs) +
            "\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or "
            "axes indicated by the corresponding elements of the argument's in_specs "
            "entry. Consider checking that in_specs are correct, and if so consider "
            "changing the mesh axis sizes or else padding the input and adapting "
            f"'{name}' appropriately.")


def check_in_layouts(args, specs) -> None:
    """Over an all-Explicit mesh, in_specs must be the arguments' own layouts."""
    for x, s in zip(args, specs):
        layout = layout_of(x)
        if layout is None and isinstance(x, core.Tracer):
            continue  # (a traced value whose layout didax does not know)
        ndim = np.ndim(x)
        want = PartitionSpec(*s, *(None,) * (ndim - len(s)))
        got = PartitionSpec(*(layout.spec if layout is not None else ()),
                            *(None,) * ndim)
        got = PartitionSpec(*tuple(got)[:ndim])
        if tuple(want) != tuple(got):
            raise ValueError(
                f"in_specs passed to shard_map: {want} does not match the specs of the "
                f"input: {got} for arg: {core.typeof(x)}. `in_specs` is an optional "
                "argument so you can omit specifying it and shard_map will infer the "
                "in_specs from the arguments. If you want to reshard your inputs, you can "
                "use `jax.reshard` on the arguments and then pass those args to shard_map.")


def out_rank_error(f, tree, specs, outs, trace) -> str:
    name = _fun_name(f)
    for s, o in zip(specs, outs):
        aval = o.aval if hasattr(o, "aval") else core.get_aval(o)
        if len(s) > len(aval.shape):
            msg = (f"shard_map applied to the function '{name}' was given an out_specs "
                   "entry which is too long to be compatible with the corresponding output "
                   f"value from the function:\n\nout_specs is {s} which has length {len(s)}, "
                   f"but {name}(*args) has shape {aval.str_short()}, which has rank "
                   f"{len(aval.shape)} (and {len(aval.shape)} < {len(s)})\n\nEntries in "
                   "out_specs must be of length no greater than the number of axes in the "
                   f"corresponding output value.\n\nEither revise the spec to be shorter, "
                   f"or modify '{name}' so that its outputs have sufficient rank.")
            if not aval.shape:
                msg += ("\n\nFor scalar values (rank 0), consider using an out_specs entry "
                        "of `P()`, where `P = jax.sharding.PartitionSpec`.")
            return msg
    return f"shard_map applied to the function '{name}': out_specs too long"


def vma_error(fun_name, mesh, fails) -> str:
    """JAX's error for results the out_specs say are replicated but that vary."""
    msgs = []
    for spec, vma in fails:
        named = {n for part in spec for n in _names(part)}
        unmentioned = [n for n in mesh.axis_names if n not in named]
        if len(unmentioned) > 1:
            need = ",".join(n for n in mesh.axis_names if n in named)
            got = ",".join(n for n in mesh.axis_names if n in vma)
            diff = ",".join(n for n in unmentioned if n in vma)
            msgs.append(f"* out_specs is {spec} which implies that the corresponding output "
                        f"value is only varying across mesh axes {{{need}}} and not "
                        f"{{{diff}}}, but it was inferred to be possibly varying over "
                        f"{{{got}}}")
        else:
            msgs.append(f"* out_specs is {spec} which implies that the corresponding output "
                        f"value is replicated across mesh axis '{unmentioned[0]}', but could "
                        "not infer replication over any axes")
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    return (f"shard_map applied to the function '{fun_name}' was given out_specs which "
            "require replication which can't be statically inferred given the mesh:\n\n"
            f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis "
            f"names {tuple(mesh.axis_names)}.\n\n" + "\n\n".join(msgs) + "\n\n"
            "Check if these output values are meant to be replicated over those mesh axes. "
            "If not, consider revising the corresponding out_specs entries. If so, consider "
            "disabling the check by passing the check_vma=False argument to "
            "`jax.shard_map`.")

