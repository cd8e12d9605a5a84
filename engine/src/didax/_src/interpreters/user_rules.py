"""Registering rules for user-defined primitives with JAX's public signatures
(`jax.interpreters.ad` / `batching`), where they differ from didax's own tables:

- `ad.deflinear(prim, rule)`: JAX's transpose rule there takes only the cotangent and the
  parameters (`deflinear2` also takes the undefined operands);
- `batching.primitive_batchers[prim] = rule(vals, dims, **params)`: JAX's classic rules
  take no axis data; didax's table (JAX's `fancy_primitive_batchers`) does, so this
  mapping adapts a rule as it is stored and gives the original back.

May import core and the other interpreters.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping

from didax._src import core
from didax._src.interpreters import ad, batching
from didax._src.interpreters.ad import Zero


def deflinear(primitive: core.Primitive, transpose_rule: Callable) -> None:
    """JAX's `ad.deflinear`: primitive is linear; transpose_rule(ct, **params) returns one
    cotangent per operand."""
    ad.primitive_jvps[primitive] = _linear_jvp(primitive)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [Zero(a.aval) if ad.is_undefined_primal(a) else None for a in args]
        return transpose_rule(ct, **params)

    ad.primitive_transposes[primitive] = transpose


def deflinear2(primitive: core.Primitive, transpose_rule: Callable) -> None:
    """JAX's `ad.deflinear2`: transpose_rule(ct, *operands, **params)."""
    ad.primitive_jvps[primitive] = _linear_jvp(primitive)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [Zero(a.aval) if ad.is_undefined_primal(a) else None for a in args]
        return transpose_rule(ct, *args, **params)

    ad.primitive_transposes[primitive] = transpose


def _linear_jvp(primitive: core.Primitive) -> Callable:
    def jvp(primals, tangents, **params):
        out = primitive.bind(*primals, **params)
        return out, primitive.bind(*[ad.instantiate_zeros(t) for t in tangents], **params)
    return jvp


def get_primitive_transpose(primitive: core.Primitive) -> Callable:
    try:
        return ad.primitive_transposes[primitive]
    except KeyError:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{primitive}' not "
            "implemented") from None


def add_jaxvals(x, y):
    return ad.add_jaxvals_p.bind(x, y)


class ClassicBatchers(MutableMapping):
    """`batching.primitive_batchers`: rules rule(vals, dims, **params) -> (out, out_dim),
    stored in didax's table wrapped to accept (and ignore) the axis data first."""

    def __init__(self):
        self._rules: dict[core.Primitive, Callable] = {}

    def __setitem__(self, prim, rule: Callable) -> None:
        def fancy(axis_data, vals, dims, **params):
            del axis_data
            return rule(tuple(vals), tuple(dims), **params)
        fancy.classic_rule = rule
        self._rules[prim] = rule
        batching.primitive_batchers[prim] = fancy

    def __getitem__(self, prim) -> Callable:
        if prim in self._rules:
            return self._rules[prim]
        rule = batching.primitive_batchers[prim]
        classic = getattr(rule, "classic_rule", None)
        return classic if classic is not None else _as_classic(rule)

    def __delitem__(self, prim) -> None:
        self._rules.pop(prim, None)
        del batching.primitive_batchers[prim]

    def __iter__(self):
        return iter(batching.primitive_batchers)

    def __len__(self) -> int:
        return len(batching.primitive_batchers)

    def __contains__(self, prim) -> bool:
        return prim in batching.primitive_batchers


def _as_classic(rule: Callable) -> Callable:
    """One of didax's rules called JAX's classic way (the axis size read off the operands)."""
    def classic(vals, dims, **params):
        size = next(core.get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
        return rule(batching.AxisData(None, size), list(vals), list(dims), **params)
    return classic


primitive_batchers = ClassicBatchers()
