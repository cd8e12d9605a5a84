"""Ahead-of-time stages of `jit`: `jit(f).trace(*args)` -> Traced (the jaxpr), `.lower()`
-> Lowered (the StableHLO module; `.as_text()`), `.compile()` -> Compiled (the XLA
executable; `.as_text()` is the optimized HLO, `.cost_analysis()`, `.memory_analysis()`).
A Compiled checks its arguments' types as JAX does and refuses to be transformed.

Arguments may be arrays or ShapeDtypeStructs. May import core, pjit, xla_backend, lowering.
"""

from __future__ import annotations

from typing import Any

from didax._src import xla_backend
from didax._src.api_util import ShapeDtypeStruct, shaped_abstractify
from didax._src.core import ClosedJaxpr, Tracer
from didax._src.interpreters import lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.tree_util import tree_flatten, tree_unflatten


class Traced:
    """A traced jit: the ClosedJaxpr and the input/output trees."""

    def __init__(self, wrapped, entry, args, kwargs):
        self._wrapped = wrapped
        self._entry = entry
        self.jaxpr: ClosedJaxpr = entry.closed
        self.in_tree = entry.in_tree
        self.out_tree = entry.out_tree
        self.fun_name = wrapped.name
        self._arg_names = _arg_names(wrapped, args, kwargs)

    @property
    def out_info(self):
        return tree_unflatten(self.out_tree, [
            ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
            for a in self.jaxpr.out_avals])

    @property
    def in_avals(self):
        return tree_unflatten(self.in_tree, self.jaxpr.in_avals)

    def lower(self, *, lowering_platforms=None) -> Lowered:
        return Lowered(self)


def trace(wrapped, args, kwargs) -> Traced:
    entry, _, _ = wrapped._trace(args, kwargs)
    return Traced(wrapped, entry, args, kwargs)


def _arg_names(wrapped, args, kwargs) -> list[str]:
    import inspect  # noqa: PLC0415

    static = set(wrapped.static_argnums)
    try:
        params = list(inspect.signature(wrapped.fun).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        if i in static:
            continue
        base = params[i] if i < len(params) else f"args[{i}]"
        n = len(tree_flatten(a)[0])
        names.extend([base] * n if n == 1 else [f"{base}{_path(j)}" for j in range(n)])
    for k, v in kwargs.items():
        if k in wrapped.static_argnames:
            continue
        names.extend([k] * len(tree_flatten(v)[0]))
    return names


def _path(j: int) -> str:
    return f"[{j}]"


class Lowered:
    """The StableHLO module of a traced jit."""

    def __init__(self, traced: Traced):
        self._traced = traced
        closed = traced.jaxpr
        closed, lifted = pe.close_over_consts(closed)
        if lifted:
            raise TypeError("jit(...).lower() of a function closing over traced values")
        flat = pe.convert_constvars_jaxpr(closed.jaxpr)
        self._consts = list(closed.consts)
        ordered = any(getattr(e, "ordered", False) for e in flat.effects)
        module = lowering.lower_jaxpr_to_module(ClosedJaxpr(flat, ()),
                                                name=f"jit_{_sym(traced.fun_name)}",
                                                ordered_effects=ordered)
        self._module = module
        self._text = module.text()
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree

    @property
    def out_info(self):
        return self._traced.out_info

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The module in StableHLO's readable form (`dialect='hlo'`: unoptimized HLO)."""
        if dialect == "hlo":
            return _unoptimized_hlo(self._text)
        try:
            return xla_backend.pretty_text(self._text)
        except Exception:
            return self._text

    def compiler_ir(self, dialect: str | None = None):
        return xla_backend.parse_module(self._text)

    def cost_analysis(self) -> dict[str, float]:
        return self.compile().cost_analysis()

    def compile(self, compiler_options: dict[str, Any] | None = None) -> Compiled:
        from didax._src import pjit  # noqa: PLC0415

        traced = self._traced
        exe = pjit.compile_closed_jaxpr(traced.jaxpr, traced.fun_name,
                                        keep_unused=True)
        return Compiled(traced, exe)


def _sym(name: str) -> str:
    """A function name as an MLIR symbol, spelled as JAX spells it (`<lambda>` -> `_lambda`)."""
    name = name.replace("<", "_").replace(">", "")
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "f"


def _unoptimized_hlo(text: str) -> str:
    from jaxlib import _jax  # noqa: PLC0415

    comp = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False,
                                                     return_tuple=False)
    return comp.as_hlo_text()


class Compiled:
    """An executable for one input signature."""

    def __init__(self, traced: Traced, exe):
        self._traced = traced
        self._exe = exe
        self.in_tree = traced.in_tree
        self.out_tree = traced.out_tree
        self.args_info = traced.in_avals

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
        return self._traced.out_info

    def __call__(self, *args, **kwargs):
        wrapped = self._traced._wrapped
        dyn_args = tuple(a for i, a in enumerate(args) if i not in wrapped.static_argnums)
        dyn_kw = {k: v for k, v in kwargs.items() if k not in wrapped.static_argnames}
        flat, in_tree = tree_flatten((dyn_args, dyn_kw))
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
            got = shaped_abstractify(x)
            if got.shape != a.shape or got.dtype != a.dtype:
                name = names[i] if i < len(names) else f"args[{i}]"
                bad.append(f"Argument '{name}' compiled with {_long(a)} and called with "
                           f"{_long(got)}")
        if bad:
            raise TypeError(
                "Argument types differ from the types for which this computation was compiled. "
                "Perhaps you are calling the compiled executable with a different enable_x64 "
                "mode than when it was AOT compiled? The mismatches are:\n" + "\n".join(bad))


def _long(a) -> str:
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _tree_mismatch_msg(expected, got) -> str:
    detail = _first_difference(expected, got)
    return ("Function compiled with input pytree does not match the input pytree it was "
            f"called with. There are 1 mismatches, including:\n    * {detail}")


def _first_difference(expected, got) -> str:
    exp_args = expected.children()[0]
    got_args = got.children()[0]
    e_kids, g_kids = exp_args.children(), got_args.children()
    if len(e_kids) != len(g_kids):
        return (f"at args, seen tuple of length {len(e_kids)} but now given tuple of length "
                f"{len(g_kids)}, so the lengths do not match")
    for i, (e, g) in enumerate(zip(e_kids, g_kids)):
        if e != g:
            if e.num_nodes == 1 and e.num_leaves == 1:
                node = g.node_data()
                kind = node[0] if node else type(None)
                return (f"at args[{i}], seen pytree leaf but now given {kind}, so their "
                        "Python types differ")
            return f"at args[{i}], seen {e} but now given {g}"
    return f"expected {expected}, got {got}"

