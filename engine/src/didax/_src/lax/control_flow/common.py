"""Helpers shared by the control-flow primitives (cond, while, scan).

- Tracing user functions into jaxprs whose constants become explicit leading operands
  (so a higher-order primitive sees every value it closes over as an argument).
- Jaxpr surgery: input->output forwarding, pruning outputs, moving binders, permuting
  binders, merging the constants of several branches.
- Whole-jaxpr transformations with the conventions the rules need: batching with forced
  output batch dims, transposition that reports which cotangents are symbolic zeros.
- JAX's error messages for mismatched branch outputs and loop carries.
- `empty2`: the placeholder JAX puts in the residual slots a cond branch does not fill.
- A per-jaxpr memo so repeated transformations of one jaxpr are traced once.

May import core, dtypes, util, tree_util, api_util, array, the interpreters and lax.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.api_util import flatten_fun_nokwargs
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, ShapedArray, Tracer, Var
from didax._src.interpreters import ad, batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax as lax_
from didax._src.lax import shapes
from didax._src.lax._define import NONLINEAR, def_primitive
from didax._src.tree_util import (
    equality_errors,
    equality_errors_pytreedef,
    keystr,
    tree_flatten_with_path,
    tree_unflatten,
)

# ----------------------------------------------------------------------------------------
# Which API made a loop
# ----------------------------------------------------------------------------------------

# fori_loop lowers to scan or while as JAX's does (same jaxpr text); the playground labels
# the loop as the user wrote it: body Jaxpr of the bound loop -> "fori_loop".
loop_origin: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_next_origin: list = [None]


def mark_next_loop(origin: str) -> None:
    """The next scan/while_loop call is made by `origin` (e.g. fori_loop)."""
    _next_origin[0] = origin


def take_loop_origin() -> str | None:
    """Called first thing by scan/while_loop (before tracing their bodies, so loops inside
    the body are not marked)."""
    origin, _next_origin[0] = _next_origin[0], None
    return origin


def note_loop_origin(body: ClosedJaxpr, origin: str | None) -> None:
    if origin is not None:
        loop_origin[body.jaxpr] = origin


# ----------------------------------------------------------------------------------------
# Tracing
# ----------------------------------------------------------------------------------------


def trace_jaxpr(fun: Callable, in_tree, in_avals: Sequence[Any], desc: str):
    """Traces fun(*unflatten(in_tree, args)) -> (ClosedJaxpr taking [consts, args], consts,
    out_tree). The constants it closed over become leading invars."""
    flat, store = flatten_fun_nokwargs(fun, in_tree)
    jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(flat, list(in_avals), desc)
    return ClosedJaxpr(pe.convert_constvars_jaxpr(jaxpr), ()), consts, store["out_tree"]


def trace_flat(fun: Callable, in_avals: Sequence[Any], desc: str) -> ClosedJaxpr:
    """A closed jaxpr of a flat function (list in, list out)."""
    return pe.trace_to_closed_jaxpr(fun, list(in_avals), desc)


def merge_common_consts(jaxprs: Sequence[ClosedJaxpr], all_consts: Sequence[Sequence[Any]]
                        ) -> tuple[list[ClosedJaxpr], list[Any]]:
    """Branches share one operand list: the union of their constants (deduplicated by
    identity); each jaxpr gets a binder for every shared constant."""
    index: dict[int, int] = {}
    consts: list[Any] = []
    for cs in all_consts:
        for c in cs:
            if id(c) not in index:
                index[id(c)] = len(consts)
                consts.append(c)
    out = []
    for closed, cs in zip(jaxprs, all_consts):
        jaxpr, n = closed.jaxpr, len(cs)
        own = {index[id(c)]: v for c, v in zip(cs, jaxpr.invars[:n])}
        binders = [own[i] if i in own else Var(core.get_aval(c)) for i, c in enumerate(consts)]
        out.append(ClosedJaxpr(jaxpr.replace(invars=[*binders, *jaxpr.invars[n:]]),
                               closed.consts))
    return out, consts


def as_value(x):
    """An operand forwarded straight to an output, as an array (lax.asarray)."""
    if isinstance(x, (Tracer, Array)):
        return x
    aval = core.get_aval(x)
    return Array(np.asarray(x, aval.dtype), aval)


def convert(x, dtype):
    """lax.convert_element_type, folded to a constant for a concrete scalar (JAX folds
    conversions of constants while staging)."""
    if isinstance(x, Tracer) or np.ndim(x) != 0:
        return lax_.convert_element_type(x, dtype)
    return np.asarray(x, dtypes.canonicalize_dtype(np.dtype(dtype)))


def promote_weak_input(x, in_aval, out_aval):
    """A weakly typed initial carry whose dtype the body changes is converted to the
    promoted dtype (JAX's second tracing pass). Returns (value, changed)."""
    if getattr(in_aval, "weak_type", False) and not core.typematch(in_aval, out_aval):
        new_dtype = dtypes.result_type(x, out_aval.dtype)
        if new_dtype != in_aval.dtype:
            return convert(x, new_dtype), True
    return x, False


# ----------------------------------------------------------------------------------------
# Jaxpr surgery
# ----------------------------------------------------------------------------------------


def jaxpr_forwarding(jaxpr: core.Jaxpr) -> list[int | None]:
    """Per output: the index of the input it merely forwards, or None."""
    pos = {v: i for i, v in enumerate(jaxpr.invars)}
    return [pos.get(v) if type(v) is Var else None for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    outvars = [v for v, k in zip(closed.jaxpr.outvars, keep) if k]
    return ClosedJaxpr(closed.jaxpr.replace(outvars=outvars), closed.consts)


def move_binders_to_front(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    invars = closed.jaxpr.invars
    new = ([v for v, m in zip(invars, to_move) if m]
           + [v for v, m in zip(invars, to_move) if not m])
    return ClosedJaxpr(closed.jaxpr.replace(invars=new), closed.consts)


def move_binders_to_back(closed: ClosedJaxpr, to_move: Sequence[bool]) -> ClosedJaxpr:
    return move_binders_to_front(closed, [not m for m in to_move])


def permute(xs: Sequence[Any], groups: Sequence[int], subgroups: Sequence[int]) -> list:
    """[g0, g1, ..., t0, t1, ...] (primals then tangents, group sizes `groups` and
    `subgroups`) -> [g0, t0, g1, t1, ...]."""
    xs = list(xs)
    n = sum(groups)
    prim, tang = xs[:n], xs[n:]
    out: list = []
    for g, t in zip(groups, subgroups):
        out += prim[:g] + tang[:t]
        prim, tang = prim[g:], tang[t:]
    return out


def rearrange_binders(closed: ClosedJaxpr, in_groups, in_sub, out_groups, out_sub
                      ) -> ClosedJaxpr:
    """A JVP jaxpr ([primals, tangents] -> [primals, tangents]) with each group of primals
    followed by its tangents, on both sides."""
    jaxpr = closed.jaxpr
    return ClosedJaxpr(jaxpr.replace(invars=permute(jaxpr.invars, in_groups, in_sub),
                                     outvars=permute(jaxpr.outvars, out_groups, out_sub)),
                       closed.consts)


def with_extra_binders(closed: ClosedJaxpr, avals: Sequence[Any], at_end: bool = True
                       ) -> ClosedJaxpr:
    """closed, ignoring extra (unused) inputs of the given avals."""
    extra = [Var(a) for a in avals]
    invars = [*closed.jaxpr.invars, *extra] if at_end else [*extra, *closed.jaxpr.invars]
    return ClosedJaxpr(closed.jaxpr.replace(invars=invars), closed.consts)


def retype_invars(closed: ClosedJaxpr, avals: Sequence[Any]) -> ClosedJaxpr:
    """closed with the type of each invar whose entry in avals is not None replaced (the
    weak type of a linear input follows its cotangent when transposing, as in JAX)."""
    jaxpr = closed.jaxpr
    sub = {v: Var(a) for v, a in zip(jaxpr.invars, avals)
           if a is not None and a != v.aval}
    if not sub:
        return closed

    def s(x):
        return sub.get(x, x) if type(x) is Var else x
    eqns = [e.replace(invars=[s(a) for a in e.invars]) for e in jaxpr.eqns]
    new = jaxpr.replace(invars=[s(v) for v in jaxpr.invars], eqns=eqns,
                        outvars=[s(v) for v in jaxpr.outvars])
    return ClosedJaxpr(new, closed.consts)


def zeros_like(aval):
    """Zeros of aval's type, weak type included (JAX's zeros_like_aval)."""
    if aval.dtype == dtypes.float0 or not isinstance(aval.dtype, np.dtype):
        return ad.zeros_like_aval(aval)
    z = core.typed_scalar(0, aval.dtype, aval.weak_type)
    return shapes.broadcast_in_dim(z, aval.shape, ()) if aval.shape else z


def or_lists(xs: Sequence[bool], ys: Sequence[bool]) -> list[bool]:
    return [bool(x or y) for x, y in zip(xs, ys)]


def prune_zeros(ts) -> list:
    return [t for t in ts if type(t) is not Zero]


def dce_closed(closed: ClosedJaxpr, used_outputs: Sequence[bool],
               instantiate: bool | Sequence[bool] = True) -> ClosedJaxpr:
    return pe.dce_closed_jaxpr(closed, used_outputs, instantiate)[0]


def closed_call(closed: ClosedJaxpr, *args) -> list:
    return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ----------------------------------------------------------------------------------------
# Memoizing per jaxpr (identity-keyed, held weakly)
# ----------------------------------------------------------------------------------------

_memo: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


_MISSING = object()


class _Self:
    """Stands for the memo's own (weakly held) jaxpr inside a key: a strong reference to
    it from its own table would keep it alive forever."""

    __slots__ = ()


_SELF = _Self()


def _strip(key, closed):
    if key is closed:
        return _SELF
    if type(key) is tuple:
        return tuple(_strip(k, closed) for k in key)
    return key


def memoized(kind: str, closed: ClosedJaxpr, key, make: Callable):
    """make(), cached on (closed, kind, key) while closed is alive."""
    key = _strip(key, closed)
    try:
        table = _memo.setdefault(closed, {})
        out = table.get((kind, key), _MISSING)
    except TypeError:  # not weakly referenceable, or an unhashable key
        return make()
    if out is _MISSING:
        out = table[(kind, key)] = make()
    return out


# ----------------------------------------------------------------------------------------
# Whole-jaxpr batching and transposition
# ----------------------------------------------------------------------------------------


def batched_aval(aval, dim: int | None, size: int):
    if dim is None:
        return aval
    shape = (*aval.shape[:dim], size, *aval.shape[dim:])
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def batch_jaxpr(closed: ClosedJaxpr, axis_data, in_batched: Sequence[bool],
                instantiate: bool | Sequence[bool]) -> tuple[ClosedJaxpr, list[bool]]:
    """closed vmapped with batched inputs (and outputs) at axis 0; outputs listed in
    `instantiate` are batched even when they do not depend on a batched input."""
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    in_dims = [0 if b else None for b in in_batched]
    return _batch(closed, axis_data, in_dims, lambda dims: [
        0 if (d is not None or i) else None for d, i in zip(dims, inst)])


def batch_jaxpr_axes(closed: ClosedJaxpr, axis_data, in_dims: Sequence[int | None],
                     out_dims: Sequence[int | None]) -> ClosedJaxpr:
    """closed vmapped with inputs batched at in_dims and outputs moved to out_dims."""
    return _batch(closed, axis_data, list(in_dims), lambda dims: list(out_dims))[0]


def _batch(closed, axis_data, in_dims, choose_out_dims):
    size = axis_data.size
    box: list = []

    def fun(*args):
        outs, dims = batching.batch_flat(lambda *xs: closed_call(closed, *xs), axis_data,
                                         args, in_dims)
        want = choose_out_dims(dims)
        box[:] = [d is not None for d in want]
        return [batching.matchaxis(size, d, w, o) for o, d, w in zip(outs, dims, want)]

    avals = [batched_aval(a, d, size) for a, d in zip(closed.in_avals, in_dims)]
    return trace_flat(fun, avals, "vmap"), list(box)


def batched_outputs(closed: ClosedJaxpr, axis_data, in_batched: Sequence[bool]) -> list[bool]:
    return batch_jaxpr(closed, axis_data, in_batched, False)[1]


def transpose_jaxpr(closed: ClosedJaxpr, linear: Sequence[bool],
                    keep: Sequence[bool] | None = None
                    ) -> tuple[ClosedJaxpr, list[bool]]:
    """The transpose of closed w.r.t. its linear inputs: (non-linear inputs, output cts) ->
    cts of the linear inputs listed in `keep` (default: those whose ct is not a symbolic
    zero). Returns (jaxpr, keep)."""
    in_avals = closed.in_avals
    n_nonlin = sum(1 for lin in linear if not lin)
    box: list = []

    def fun(*args):
        nonlin, cts = iter(args[:n_nonlin]), args[n_nonlin:]
        ins = [ad.UndefinedPrimal(a) if lin else next(nonlin)
               for a, lin in zip(in_avals, linear)]
        cts_in = ad.backward_pass(closed.jaxpr, closed.consts, ins, cts)
        lin_cts = [c for c, lin in zip(cts_in, linear) if lin]
        kept = [type(c) is not Zero for c in lin_cts] if keep is None else list(keep)
        box[:] = kept
        return [ad.instantiate_zeros(c) for c, k in zip(lin_cts, kept) if k]

    avals = [a for a, lin in zip(in_avals, linear) if not lin]
    avals += [a.to_tangent_aval() for a in closed.out_avals]
    return trace_flat(fun, avals, "transpose"), list(box)


# ----------------------------------------------------------------------------------------
# Error messages (JAX's wording)
# ----------------------------------------------------------------------------------------


def fun_sourceinfo(fun) -> str:
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)
    try:
        return f"{fun.__name__} at {fun.__code__.co_filename}:{fun.__code__.co_firstlineno}"
    except AttributeError:
        return "<unknown>"


def long_aval(aval) -> str:
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape))}]"


def mismatch_extra(a1, a2) -> str:
    what = []
    if a1.dtype != a2.dtype:
        what.append("the dtypes do not match")
    if a1.shape != a2.shape:
        what.append("the shapes do not match")
    if not what:
        return ""
    if len(what) == 1:
        return ", so " + what[0]
    return ", so " + ", ".join(what[:-1]) + ", and " + what[-1]


def _capitalize(s: str) -> str:
    return s[0].upper() + s[1:]


def _join_diffs(diffs: list[str], capitalize: bool = True, loose: bool = False) -> str:
    """One difference as a sentence, several as a bulleted list (`loose`: blank lines
    between bullets), in the layouts JAX's messages use."""
    if len(diffs) == 1:
        return f"{_capitalize(diffs[0]) if capitalize else diffs[0]}.\n"
    if loose:
        return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
    return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"


def check_branch_outputs(api: str, name1: str, name2: str, f1, f2, tree1, avals1, tree2,
                         avals2) -> None:
    """TypeError unless two branches return the same pytree of the same types."""
    head = f"{name1} is {fun_sourceinfo(f1)}\n{name2} is {fun_sourceinfo(f2)}\n\n"
    try:
        leaves, _ = tree_flatten_with_path(tree_unflatten(tree1, list(avals1)))
        paths = [p for p, _ in leaves]
    except Exception:
        paths = [()] * len(avals1)

    def at(p):
        return f" at path {keystr(p)}" if p else ""
    if tree1 != tree2:
        diffs = [f"{name1} output{at(p)} is a {t1} but {name2} output{at(p)} is a {t2}, "
                 f"so {why}" for p, t1, t2, why in equality_errors_pytreedef(tree1, tree2)]
        if not diffs:
            return
        raise TypeError(f"{api} branch outputs must have the same pytree structure, but "
                        f"they differ:\n\n{head}{_join_diffs(diffs, False, True)}\nRevise "
                        f"{name1} and/or {name2} so that they have the same pytree "
                        "structure.")
    diffs = [f"the output of {name1}{at(p)} has type {long_aval(a1)} but the corresponding "
             f"output of {name2} has type {long_aval(a2)}{mismatch_extra(a1, a2)}"
             for p, a1, a2 in zip(paths, avals1, avals2) if not core.typematch(a1, a2)]
    if diffs:
        raise TypeError(f"{api} branches must have equal output types but they differ.\n\n"
                        f"{head}{_join_diffs(diffs)}\nRevise {name1} and/or {name2} so "
                        "that all output types match.")


def check_carry_type(name: str, body_fun, in_tree, in_avals, out_tree, out_avals) -> None:
    """TypeError unless a loop body returns a carry of the input carry's pytree and types."""
    try:
        sig = inspect.signature(body_fun)
        carry_name = next(iter(sig.parameters), None)
    except (ValueError, TypeError):
        carry_name = None

    def component(p):
        if carry_name:
            return (f"the input carry component {carry_name}{keystr(p)}" if p
                    else f"the input carry {carry_name}")
        return f"the input carry at path {keystr(p)}" if p else "the input carry"
    if in_tree != out_tree:
        _raise_carry_tree(name, component, in_tree, in_avals, out_tree, out_avals)
    leaves, _ = tree_flatten_with_path(tree_unflatten(in_tree, list(in_avals)))
    diffs = [f"{component(p)} has type {long_aval(a1)} but the corresponding output carry "
             f"component has type {long_aval(a2)}{mismatch_extra(a1, a2)}"
             for (p, _), a1, a2 in zip(leaves, in_avals, out_avals)
             if not core.typematch(a1, a2)]
    if diffs:
        raise TypeError(f"{name} function carry input and carry output must have equal "
                        f"types, but they differ:\n\n{_join_diffs(diffs, loose=True)}\n"
                        "Revise the function so that all output types match the "
                        "corresponding input types.")


def _raise_carry_tree(name, component, in_tree, in_avals, out_tree, out_avals):
    try:
        diffs = [f"{component(p)} is a {t1} but the corresponding component of the carry "
                 f"output is a {t2}, so {why}"
                 for p, t1, t2, why in equality_errors(tree_unflatten(in_tree, list(in_avals)),
                                                       tree_unflatten(out_tree,
                                                                      list(out_avals)))]
        if not diffs:
            return
        differences = _join_diffs(diffs, loose=True)
    except Exception:
        differences = (f"the input tree structure is:\n{in_tree}\n"
                       f"the output tree structure is:\n{out_tree}\n")
    raise TypeError(f"{name} function carry input and carry output must have the same "
                    f"pytree structure, but they differ:\n\n{differences}\nRevise the "
                    "function so that the carry output has the same pytree structure as "
                    "the carry input.")


# ----------------------------------------------------------------------------------------
# empty2: an uninitialized scalar (JAX fills unused residual slots of cond branches with it)
# ----------------------------------------------------------------------------------------


class MemorySpace:
    """Printed as JAX prints its memory-space enum member."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"MemorySpace.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, MemorySpace) and other.name == self.name

    def __hash__(self):
        return hash(("MemorySpace", self.name))


DEVICE = MemorySpace("Device")


def _empty2_abstract_eval(*, dtype, memory_space):
    return ShapedArray((), dtype)


def _empty2_impl(*, dtype, memory_space):
    return Array(np.zeros((), dtype), ShapedArray((), dtype))


def _empty2_lower(ctx, *, dtype, memory_space):
    return lowering.full_like(ctx.fn, 0, ctx.avals_out[0])


def _empty2_batch(axis_data, vals, dims, **params):
    raise AssertionError("empty2 takes no operands, so it is never batched")


empty2_p = def_primitive(
    "empty2", abstract_eval=_empty2_abstract_eval, impl=None, eager_impl=_empty2_impl,
    jvp=lambda primals, tangents, **p: (empty2_p.bind(**p), Zero(_empty2_abstract_eval(**p))),
    transpose=NONLINEAR, batch=_empty2_batch, lower=_empty2_lower)


def empty_like_aval(aval):
    """A placeholder of aval's type: empty2, broadcast to the shape (as JAX builds it)."""
    out = empty2_p.bind(dtype=np.dtype(aval.dtype), memory_space=DEVICE)
    if aval.shape:
        out = shapes.broadcast_in_dim(out, aval.shape, ())
    return out
