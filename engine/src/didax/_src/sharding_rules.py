"""JAX's sharding propagation rules for Explicit mesh axes ("sharding in types"): the
layout of an operation's result as a function of its operands' layouts, for the operations
whose rule JAX states simply — elementwise and broadcasting operations, broadcast_in_dim,
transpose, reductions, dot_general, reshapes that keep the sharded dimensions, squeeze —
raising JAX's errors where JAX refuses to choose (contracting dimensions sharded on both
sides, a mesh axis used twice, operands sharded differently). Other operations have no rule
here: XLA's sharding propagation chooses their layout.

A spec is a tuple with one entry per dimension: None, a mesh axis name, or a tuple of them.

May import dtypes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from didax._src import dtypes


class ShardingTypeError(Exception):
    """An operation whose result layout JAX refuses to choose (JAX's ShardingTypeError)."""


# Operations that transform their operand's type without moving elements across dimensions
# (so every dimension keeps its layout), beside n-ary elementwise ones.
_REDUCTIONS = frozenset({"reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
                         "reduce_and", "reduce_or", "reduce_xor", "argmax", "argmin"})
_SAME_SHAPE_STRUCTURAL = frozenset({"cumsum", "cumprod", "cummax", "cummin",
                                    "cumlogsumexp", "rev", "sort"})


def out_spec(name: str, shapes: Sequence[tuple], specs: Sequence[tuple], out_shape: tuple,
             params: dict) -> tuple | None:
    """The result's spec, or None when JAX's rule is not modelled here."""
    rule = _RULES.get(name)
    if rule is not None:
        spec = rule(shapes, specs, out_shape, params)
    elif name in _REDUCTIONS:
        spec = _reduce(specs[0], params)
    elif name not in _SAME_SHAPE_STRUCTURAL and _elementwise(shapes, out_shape):
        spec = _broadcasting(name, shapes, specs)
    else:
        return None
    if spec is not None:
        _check_duplicates(name, shapes, specs, out_shape, spec, params)
    return spec


def _elementwise(shapes, out_shape) -> bool:
    arrays = [s for s in shapes if s]
    return bool(arrays) and all(s == tuple(out_shape) for s in arrays)


def _broadcasting(name, shapes, specs) -> tuple:
    """JAX's broadcasting rule: equal entries agree; else the entries of dimensions not of
    size 1; else an error."""
    arrays = [(sh, sp) for sh, sp in zip(shapes, specs) if sh]
    out = []
    for d in range(len(arrays[0][0])):
        entries = [sp[d] for _, sp in arrays]
        nontrivial = [sp[d] for sh, sp in arrays if not (sh[d] == 1 and sp[d] is None)]
        if all(e == entries[0] for e in entries):
            out.append(entries[0])
        elif not nontrivial:
            out.append(None)
        elif all(e == nontrivial[0] for e in nontrivial):
            out.append(nontrivial[0])
        else:  # (unsharded entries yield to the sharded one; two different ones clash)
            sharded = {e for e in entries if e is not None}
            if len(sharded) > 1:
                raise ShardingTypeError(
                    f"{name} got incompatible shardings for broadcasting: "
                    f"{', '.join(str(tuple(sp)) for _, sp in arrays)}.")
            out.append(sharded.pop())
    return tuple(out)


def _reduce(spec, params) -> tuple:
    axes = set(params.get("axes", (params.get("axis"),)))
    return tuple(s for i, s in enumerate(spec) if i not in axes)


def _broadcast_in_dim(shapes, specs, out_shape, params) -> tuple:
    dims = list(params["broadcast_dimensions"])
    spec = iter(specs[0])
    return tuple(next(spec) if i in dims else None for i in range(len(out_shape)))


def _transpose(shapes, specs, out_shape, params) -> tuple:
    return tuple(specs[0][i] for i in params["permutation"])


def _squeeze(shapes, specs, out_shape, params) -> tuple:
    drop = {d % len(shapes[0]) for d in params["dimensions"]}
    return tuple(s for i, s in enumerate(specs[0]) if i not in drop)


def _convert(shapes, specs, out_shape, params) -> tuple:
    return tuple(specs[0])


def _dot_general(shapes, specs, out_shape, params) -> tuple | None:
    if params.get("out_sharding") is not None:
        return None
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lhs, rhs = specs
    lcs, rcs = tuple(lhs[i] for i in lc), tuple(rhs[i] for i in rc)
    lbs, rbs = tuple(lhs[i] for i in lb), tuple(rhs[i] for i in rb)
    _specs_match(lbs, rbs, "dot_general requires lhs batch dimensions and rhs batch "
                 f"dimensions to have the consistent sharding, got {lbs} and {rbs}.")
    _specs_match(lcs, rcs, "dot_general requires contracting dimensions to have consistent "
                 f"sharding, got {lcs} and {rcs}.")
    for left, right in zip(lcs, rcs):
        if left is not None and right is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output "
                "should be sharded. Please specify the output sharding via the "
                f"`out_sharding` parameter. Got lhs_contracting_spec={lcs} and "
                f"rhs_contracting_spec={rcs}")
    lfree = tuple(s for i, s in enumerate(lhs) if i not in set(lc) | set(lb))
    rfree = tuple(s for i, s in enumerate(rhs) if i not in set(rc) | set(rb))
    return lbs + lfree + rfree


def _specs_match(a, b, msg) -> None:
    for left, right in zip(a, b):
        if left is not None and right is not None and left != right:
            raise ShardingTypeError(msg)


def _reshape(shapes, specs, out_shape, params) -> tuple | None:
    """Sharded dimensions kept whole (the same size after the same product of leading
    dimensions) keep their layout; any other reshape of a sharded array has no rule here."""
    shape, spec = shapes[0], specs[0]
    out = [None] * len(out_shape)
    for d, s in enumerate(spec):
        if s is None:
            continue
        before = math.prod(shape[:d])
        for k in range(len(out_shape)):
            if math.prod(out_shape[:k]) == before and out_shape[k] == shape[d]:
                out[k] = s
                break
        else:
            return None
    return tuple(out)


_RULES = {
    "broadcast_in_dim": _broadcast_in_dim, "transpose": _transpose, "squeeze": _squeeze,
    "dot_general": _dot_general, "reshape": _reshape, "convert_element_type": _convert,
    "reduce_precision": _convert, "copy": _convert, "copy_p": _convert,
}


def _check_duplicates(name, shapes, specs, out_shape, spec, params) -> None:
    used = [a for p in spec if p is not None for a in (p if isinstance(p, tuple) else (p,))]
    if len(used) != len(set(used)):
        dtypes = params.get("_dtypes")
        ins = ", ".join(_short(sh, sp, dt) for sh, sp, dt in zip(shapes, specs, dtypes))
        raise ShardingTypeError(f"{name} operation with inputs: {ins} produces an illegally "
                                f"sharded result: {_short(out_shape, spec, dtypes[-1])}")


def _short(shape, spec, dtype) -> str:
    return f"{dtypes.short_dtype_name(dtype)}[{','.join(dim_str(n, p) for n, p in zip(shape, spec))}]"


def dim_str(n: int, p) -> str:
    """One dimension of a sharded type: `8`, `8@X` or `8@(X,Y)`."""
    if p is None or p == ():
        return str(n)
    if isinstance(p, tuple):
        return f"{n}@({','.join(p)})" if len(p) > 1 else f"{n}@{p[0]}"
    return f"{n}@{p}"
