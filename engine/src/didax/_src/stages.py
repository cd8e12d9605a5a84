"""Ahead-of-time stages of `jit`: `jit(f).trace(*args)` -> Traced (the jaxpr), `.lower()`
-> Lowered (the StableHLO module; `.as_text()`), `.compile()` -> Compiled (the XLA
executable; `.as_text()` is the optimized HLO, `.cost_analysis()`, `.memory_analysis()`).
A Compiled checks its arguments' types as JAX does and refuses to be transformed.

Arguments may be arrays or ShapeDtypeStructs. May import core, pjit, xla_backend, lowering.
"""

from __future__ import annotations

import typing
from typing import Any

from didax._src import pjit, xla_backend
from didax._src.api_util import ShapeDtypeStruct, shaped_abstractify
from didax._src.core import ClosedJaxpr, Tracer
from didax._src.interpreters import lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.state import types as state_types
from didax._src.tree_util import (
    flatten_one_level_with_keys,
    keystr,
    tree_flatten,
    tree_unflatten,
)


class ArgInfo:
    """What a stage knows about one flat argument: its type and whether it is donated."""

    def __init__(self, aval, donated: bool):
        self._aval = aval
        self.donated = donated

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)

    def __repr__(self):
        return f"ArgInfo(_aval={self._aval!r}, donated={self.donated})"

    def __eq__(self, other):
        return (isinstance(other, ArgInfo) and self._aval == other._aval
                and self.donated == other.donated)

    def __hash__(self):
        return hash((self._aval, self.donated))


class Traced:
    """A traced jit: the ClosedJaxpr and the input/output trees."""

    def __init__(self, wrapped, entry, args, kwargs):
        self._wrapped = wrapped
        self._entry = entry
        self.jaxpr: ClosedJaxpr = entry.closed
        self.in_tree = entry.in_tree
        self.out_tree = entry.out_tree
        self.fun_name = wrapped.name
        self._arg_names = pjit.arg_names(wrapped, args, kwargs)

    @property
    def out_info(self):
        return tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
            for a in self.jaxpr.out_avals])

    @property
    def in_avals(self):
        return tree_unflatten(self.in_tree, self.jaxpr.in_avals)

    @property
    def out_avals(self):
        return tree_unflatten(self.out_tree, self.jaxpr.out_avals)

    @property
    def args_info(self):
        donated = self._entry.donated
        return tree_unflatten(self.in_tree, [ArgInfo(a, d) for a, d in
                                             zip(self.jaxpr.in_avals, donated)])

    def lower(self, *, lowering_platforms=None) -> Lowered:
        return Lowered(self)


def trace(wrapped, args, kwargs) -> Traced:
    entry, _, _ = wrapped._trace(args, kwargs)
    return Traced(wrapped, entry, args, kwargs)


def _strong_out_info(traced: Traced):
    """Output types once lowered: executables return strongly typed arrays (as JAX's
    Lowered/Compiled out_info say)."""
    return tree_unflatten(traced.out_tree, [ShapeDtypeStruct(a.shape, a.dtype)
                                            for a in traced.jaxpr.out_avals])


class Lowered:
    """The StableHLO module of a traced jit: unused inputs pruned (unless keep_unused),
    constants embedded, every output returned. compile() compiles exactly this text."""

    def __init__(self, traced: Traced):
        self._traced = traced
        closed = traced.jaxpr
        if state_types.touches_refs(closed.jaxpr):
            raise NotImplementedError(
                "jit(f).lower() of a function touching mutable array references "
                "(jax.new_ref) is not implemented in didax; call the jitted function, or "
                "jit(f).trace(...).jaxpr to see its program")
        _, lifted = pe.close_over_consts(closed)
        if lifted:
            raise TypeError("jit(...).lower() of a function closing over traced values")
        keep_unused = traced._wrapped.keep_unused
        jaxpr, used = pe.dce_jaxpr(closed.jaxpr, None, instantiate=keep_unused)
        self._kept = [i for i, u in enumerate(used) if u]
        live = set(jaxpr.constvars)
        consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts) if v in live]
        self._ordered = any(getattr(e, "ordered", False) for e in jaxpr.effects)
        arg_names = [n for i, n in enumerate(traced._arg_names) if used[i]] \
            if len(traced._arg_names) == len(used) else None
        module = lowering.lower_jaxpr_to_module(ClosedJaxpr(jaxpr, consts),
                                                name=f"jit_{_sym(traced.fun_name)}",
                                                ordered_effects=self._ordered,
                                                result_infos=pjit.result_infos(traced.out_tree),
                                                arg_names=arg_names,
                                                fun_name=traced.fun_name)
        self._module = module
        self._text = module.text()
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    @property
    def out_info(self):
        return _strong_out_info(self._traced)

    @property
    def in_avals(self):
        return self._traced.in_avals

    @property
    def args_info(self):
        return self._traced.args_info

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module in StableHLO's readable form (`dialect='hlo'`: unoptimized HLO);
        debug_info: with every op's location (name stack and Python call stack)."""
        if dialect == "hlo":
            return _unoptimized_hlo(self._text, debug_info)
        try:
            return xla_backend.pretty_text(self._text, debug_info=debug_info)
        except Exception:
            return self._text

    def compiler_ir(self, dialect: str | None = None):
        return xla_backend.parse_module(self._text)

    def cost_analysis(self) -> dict[str, float]:
        return self.compile().cost_analysis()

    def compile(self, compiler_options: dict[str, Any] | None = None) -> Compiled:
        traced = self._traced
        callbacks = self._module.host_callbacks
        exe = (xla_backend.compile(self._text, callbacks) if callbacks
               else pjit._compile_cached(self._text, ()))
        closed = traced.jaxpr
        literals = [None] * len(closed.out_avals)
        xla_exe = pjit.XlaExecutable(exe, self._text, self._kept, [], closed.in_avals,
                                     closed.out_avals, literals, self._ordered)
        return Compiled(traced, xla_exe)


def _sharding():
    from didax._src.array import SingleDeviceSharding  # noqa: PLC0415

    return SingleDeviceSharding(xla_backend.default_device())


def _sym(name: str) -> str:
    """A function name as an MLIR symbol, spelled as JAX spells it (`<lambda>` -> `_lambda`)."""
    name = name.replace("<", "_").replace(">", "")
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"


def _unoptimized_hlo(text: str, debug_info: bool = False) -> str:
    """The module as unoptimized HLO text, with op metadata (names, source locations)
    only when debug_info, as JAX prints it."""
    from jaxlib import _hlo, _jax  # noqa: PLC0415

    comp = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                     return_tuple=False)
    if not debug_info:
        return comp.as_hlo_text()
    opts = _hlo.HloPrintOptions.short_parsable()
    opts.print_metadata = True
    return comp.as_hlo_module().to_string(opts)


class Compiled:
    """An executable for one input signature."""

    def __init__(self, traced: Traced, exe):
        self._traced = traced
        self._exe = exe
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    @property
    def args_info(self):
        return self._traced.args_info

    @property
    def in_avals(self):
        return self._traced.in_avals

    @property
    def input_shardings(self):
        return tree_unflatten(self.in_tree, [_sharding()] * self.in_tree.num_leaves)

    @property
    def output_shardings(self):
        return tree_unflatten(self.out_tree, [_sharding()] * self.out_tree.num_leaves)

    def as_text(self) -> str:
        return self._exe.exe.hlo_modules()[0].to_string()

    def cost_analysis(self) -> dict[str, float]:
        ca = self._exe.exe.cost_analysis()
        return dict(ca) if not isinstance(ca, list) else dict(ca[0])

    def memory_analysis(self):
        return self._exe.exe.get_compiled_memory_stats()

    def runtime_executable(self):
        return self._exe.exe

    @property
    def out_info(self):
        return _strong_out_info(self._traced)

    def __call__(self, *args, **kwargs):
        # Static arguments were fixed at lowering: the executable takes the others only.
        flat, in_tree = tree_flatten((args, kwargs))
        for x in flat:
            if isinstance(x, Tracer):
                raise TypeError("Cannot apply JAX transformations to a function lowered and "
                                "compiled for a particular signature. Detected argument of "
                                f"Tracer type {type(x)}.")
        if in_tree != self.in_tree:
            raise TypeError(_tree_mismatch_msg(self.in_tree, in_tree))
        self._check_types(flat)
        outs = self._exe.call(flat)
        return tree_unflatten(self.out_tree, outs)

    def _check_types(self, flat) -> None:
        expected = self._traced.jaxpr.in_avals
        names = self._traced._arg_names
        bad = []
        for i, (x, a) in enumerate(zip(flat, expected)):
            try:
                got = shaped_abstractify(x)
            except TypeError:
                raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX "
                                "type") from None
            if got.shape != a.shape or got.dtype != a.dtype:
                name = names[i] if i < len(names) else f"args[{i}]"
                bad.append(f"Argument '{name}' compiled with {_long(a)} and called with "
                           f"{_long(got)}")
        if bad:
            head = (f"The first 5 of {len(bad)} mismatches are:" if len(bad) > 5
                    else "The mismatches are:")
            raise TypeError(
                "Argument types differ from the types for which this computation was compiled. "
                "Perhaps you are calling the compiled executable with a different enable_x64 "
                f"mode than when it was AOT compiled? {head}\n" + "\n".join(bad[:5]))


def _long(a) -> str:
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _tree_mismatch_msg(expected, got) -> str:
    seen = tree_unflatten(expected, [_LEAF] * expected.num_leaves)
    given = tree_unflatten(got, [_LEAF] * got.num_leaves)
    errs = list(_differences((), seen, given))
    lines = ["Function compiled with input pytree does not match the input pytree it was "
             f"called with. There are {len(errs)} mismatches, including:"]
    for path, was, now, why in errs:
        base = ("args", "kwargs")[path[0].idx] if path else "args"
        lines.append(f"    * at {base}{keystr(tuple(path[1:]))}, seen {was} but now given "
                     f"{now}, so {why}")
    return "\n".join(lines)


class _LeafType(type):
    def __repr__(cls):
        return "pytree leaf"


class _Leaf(metaclass=_LeafType):
    """Stands for every leaf while comparing structures (its type prints 'pytree leaf')."""


_LEAF = _Leaf()


def _children(node):
    try:
        pairs, meta = flatten_one_level_with_keys(node)
    except ValueError:
        return None, None, None
    pairs = list(pairs)
    return [k for k, _ in pairs], [c for _, c in pairs], meta


def _differences(path, seen, given):
    """(path, what was seen, what is given, why) for each structural difference."""
    if seen is _LEAF and given is _LEAF:
        return
    if type(seen) is not type(given):
        yield path, str(type(seen)), str(type(given)), "their Python types differ"
        return
    if isinstance(seen, (list, tuple)) and len(seen) != len(given):
        name = type(seen).__name__
        yield (path, f"{name} of length {len(seen)}", f"{name} of length {len(given)}",
               "the lengths do not match")
        return
    s_keys, s_kids, s_meta = _children(seen)
    g_keys, g_kids, g_meta = _children(given)
    if s_keys is None or g_keys is None:
        return
    if len(s_kids) != len(g_kids):
        diff = " ".join(repr(getattr(k, "key", k)) for k in set(s_keys) ^ set(g_keys))

        def count(n):
            return f"{type(seen)} with {n} child{'ren' if n > 1 else ''}"
        why = "the numbers of children do not match"
        if diff:
            why += f", with the symmetric difference of key sets: {{{diff}}}"
        yield path, count(len(s_kids)), count(len(g_kids)), why
        return
    if s_meta != g_meta:
        yield (path, f"{type(seen)} with pytree metadata {s_meta}",
               f"{type(given)} with pytree metadata {g_meta}",
               "the pytree node metadata does not match")
        return
    for k, a, b in zip(s_keys, s_kids, g_kids):
        yield from _differences((*path, k), a, b)


# jax.stages' names for type annotations: a jit-wrapped function, and compiler options.
CompilerOptions = dict[str, "str | bool | int | float"]


@typing.runtime_checkable
class Wrapped(typing.Protocol):
    """What `jax.jit` returns: callable, and able to `trace` and `lower` itself."""

    def __call__(self, *args, **kwargs): ...

    def trace(self, *args, **kwargs) -> Traced: ...

    def lower(self, *args, **kwargs) -> Lowered: ...
