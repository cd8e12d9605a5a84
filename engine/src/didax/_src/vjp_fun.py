"""The pullback `vjp` returns: a callable taking the output cotangent, and a pytree whose
leaves are its residuals (as JAX's `VJP` object), so it can be returned from `jit`, passed
into one, mapped over with tree_map, or split by `fwd_and_bwd`.

Until something flattens it, the pullback is whatever computed it (the eager tape, or a
transposed linearization). Flattening stages that pullback once into a jaxpr from output
to input cotangents: the jaxpr is the static part of the tree, its constants (the values
the backward pass reads) are the leaves; unflattening with other leaves (tracers inside a
jit) evaluates that jaxpr on them.

May import core, dtypes, the interpreters, array, tree_util, util and state.types.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from didax._src import core, dtypes
from didax._src.interpreters import ad
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.state import types as state_types
from didax._src.tree_util import register_pytree_node, tree_flatten, tree_unflatten
from didax._src.util import fun_name


class NotNeeded:
    """In `VJP.args_res`: an input of the differentiated function its pullback never reads
    (a pytree node without leaves, as in JAX)."""

    __slots__ = ()

    def __repr__(self):
        return "NotNeeded()"

    def __eq__(self, other):
        return type(other) is NotNeeded

    def __hash__(self):
        return hash(NotNeeded)


register_pytree_node(NotNeeded, lambda x: ((), None), lambda aux, children: NotNeeded())


class VJP:
    """The function returned by `jax.vjp`: `f_vjp(cotangent)` -> input cotangents.

    As JAX's, its residuals are `args_res` (per positional input, the input's values the
    pullback reads, NotNeeded() for the others; replaceable, e.g. to drop a large input
    from saved state and restore it before the backward pass) and `opaque_residuals`."""

    def __init__(self, pullback: Callable, in_tree, out_tree, out_avals, name="<lambda>",
                 to_output: Callable | None = None, primals=()):
        self._f = pullback  # flat output cotangents -> flat input cotangents
        self.in_tree, self.out_tree, self.out_avals = in_tree, out_tree, out_avals
        self.__name__ = name
        self._to_output = to_output or (lambda x: x)
        self._staged: core.ClosedJaxpr | None = None
        self._primals = list(primals)  # the flat inputs (residuals that are inputs)
        # once split: [spec (per constant of the staged pullback: the flat input it is,
        # or None), args_res, opaque residuals]; calls then read the residuals from here
        self._res: list | None = None

    def __repr__(self):
        return f"VJP(fun={self.__name__}, in_tree={self.in_tree}, out_tree={self.out_tree})"

    def __call__(self, *cts):
        if len(cts) != 1:
            raise TypeError(f"The function returned by `jax.vjp` applied to {fun_name(self)} "
                            f"takes exactly one argument (the cotangent), got {len(cts)}.")
        flat_ct, ct_tree = tree_flatten(cts[0])
        if ct_tree != self.out_tree:
            raise ValueError(f"unexpected tree structure of argument to vjp function: got "
                             f"{ct_tree}, but expected to match {self.out_tree}")
        for ct, a in zip(flat_ct, self.out_avals):
            _check_ct_type(ct, a)
        flat_ct = [Zero(a) if _is_float0(c) else c for c, a in zip(flat_ct, self.out_avals)]
        cts_in = self._f(flat_ct) if self._res is None else self._from_residuals(flat_ct)
        return tree_unflatten(self.in_tree, [self._to_output(c) for c in cts_in])

    # --- residuals
    @property
    def args_res(self) -> list:
        return self._residuals()[1]

    @args_res.setter
    def args_res(self, value) -> None:
        self._residuals()[1] = value

    @property
    def opaque_residuals(self) -> list:
        return self._residuals()[2]

    def _residuals(self) -> list:
        if self._res is None:
            consts = self._stage().consts
            last = {id(p): i for i, p in enumerate(self._primals)}
            spec = tuple(last.get(id(c)) for c in consts)
            used = {id(c) for c, i in zip(consts, spec) if i is not None}
            leaves = [p if id(p) in used else NotNeeded() for p in self._primals]
            args_res = [_tuple_tree(t, leaves) for t in self.in_tree.children()]
            opaque = [c for c, i in zip(consts, spec) if i is None]
            self._res = [spec, args_res, opaque]
        return self._res

    def _consts(self) -> list:
        spec, args_res, opaque = self._residuals()
        arg_leaves = tree_flatten(args_res, is_leaf=lambda x: isinstance(x, NotNeeded))[0]
        it = iter(opaque)
        return [next(it) if i is None else arg_leaves[i] for i in spec]

    def _from_residuals(self, cts) -> list:
        cts = [core_zeros(c) if type(c) is Zero else c for c in cts]
        return core.eval_jaxpr(self._stage().jaxpr, self._consts(), *cts)

    def with_refs(self, *specs) -> Callable:
        """The VJP with, per argument of the differentiated function, a `Ref` its gradient
        is added into (the result then holds `GradRef()` there), `GradValue()` (the
        gradient returned, the default) or `DontWant()` (`DidntWant()` returned)."""
        def apply(ct):
            if len(specs) != len(self.in_tree.children()):
                raise Exception  # (as JAX 0.10: one entry per argument is required)
            cts = (self._wanted(ct, specs) if any(type(s) is DontWant for s in specs)
                   else self(ct))
            return tuple(_apply_spec(s, c) for s, c in zip(specs, cts))
        return apply

    def _wanted(self, ct, specs) -> tuple:
        """The cotangents of the arguments not marked DontWant, computed by the pullback
        with the others' work removed (dead code), as JAX's transpose rules skip it."""
        flat_ct, ct_tree = tree_flatten(ct)
        if ct_tree != self.out_tree:
            raise ValueError(f"unexpected tree structure of argument to vjp function: got "
                             f"{ct_tree}, but expected to match {self.out_tree}")
        closed = self._stage()
        consts = self._consts() if self._res is not None else closed.consts
        counts = [c.num_leaves for c in self.in_tree.children()]
        used = [type(s) is not DontWant for s, n in zip(specs, counts) for _ in range(n)]
        jaxpr, _ = pe.dce_jaxpr(closed.jaxpr, used, instantiate=True)
        live = set(jaxpr.constvars)
        consts = [c for v, c in zip(closed.jaxpr.constvars, consts) if v in live]
        cts = [core_zeros(Zero(a)) if _is_float0(c) else c
               for c, a in zip(flat_ct, self.out_avals)]
        outs = iter(core.eval_jaxpr(jaxpr, consts, *cts))
        return tree_unflatten(self.in_tree, [self._to_output(next(outs)) if u else None
                                             for u in used])

    # --- as a pytree
    def _stage(self) -> core.ClosedJaxpr:
        """The pullback as a jaxpr from output to input cotangents (traced once)."""
        if self._staged is None:
            avals = list(self.out_avals)

            def fun(*cts):
                return list(self._f([Zero(a) if a.dtype == dtypes.float0 else c
                                     for c, a in zip(cts, avals)]))

            closed = pe.trace_to_closed_jaxpr(fun, avals, "vjp")
            self._staged = _ordered(closed, getattr(self._f, "residual_order", ()))
        return self._staged

    def tree_flatten(self):
        spec, args_res, opaque = self._residuals()
        arg_leaves, arg_tree = tree_flatten(args_res)
        aux = (self._stage().jaxpr, spec, arg_tree, self.in_tree, self.out_tree,
               tuple(self.out_avals), self.__name__, self._to_output)
        return [*arg_leaves, *opaque], aux

    @classmethod
    def tree_unflatten(cls, aux, leaves) -> VJP:
        jaxpr, spec, arg_tree, in_tree, out_tree, out_avals, name, to_output = aux
        leaves = list(leaves)
        out = cls(_unstaged, in_tree, out_tree, list(out_avals), name, to_output)
        n = arg_tree.num_leaves
        out._res = [spec, tree_unflatten(arg_tree, leaves[:n]), leaves[n:]]
        out._staged = core.ClosedJaxpr(jaxpr, out._consts())
        return out


def _unstaged(cts):
    raise AssertionError("a VJP rebuilt from its leaves reads its residuals")


def _tuple_tree(treedef, leaves: list):
    """Consumes treedef's leaves from the front of `leaves`: the input's values as a tuple
    tree (JAX's `args_res` entries: a leaf as is, containers as nested tuples)."""
    children = treedef.children()
    if not children and treedef.num_leaves == 1:
        return leaves.pop(0)
    return tuple(_tuple_tree(c, leaves) for c in children)


def _ordered(closed: core.ClosedJaxpr, order) -> core.ClosedJaxpr:
    """closed with its constants sorted by their first position in `order` (by identity;
    those absent keep their order, after the others)."""
    rank = {}
    for i, x in enumerate(order):
        rank.setdefault(id(x), i)
    pairs = list(zip(closed.jaxpr.constvars, closed.consts))
    pairs.sort(key=lambda vc: rank.get(id(vc[1]), len(rank)))
    jaxpr = closed.jaxpr.replace(constvars=[v for v, _ in pairs])
    return core.ClosedJaxpr(jaxpr, [c for _, c in pairs])


def core_zeros(z: Zero):
    if z.aval.dtype == dtypes.float0:
        return np.zeros(z.aval.shape, dtypes.float0)
    return ad.zeros_like_aval(z.aval)


def _is_float0(c) -> bool:
    return isinstance(c, np.ndarray) and c.dtype == dtypes.float0


def _check_ct_type(ct, aval) -> None:
    if _is_float0(ct):
        return
    ca = core.get_aval(ct)
    if (ca.shape, ca.dtype) != (aval.shape, aval.dtype):
        got, want = (f"{v.dtype.name}[{','.join(map(str, v.shape))}]" for v in (ca, aval))
        raise ValueError(f"unexpected JAX type (e.g. shape/dtype) for argument to VJP "
                         f"function: got {got}, but expected {want} because the "
                         f"corresponding output of the differentiated function had "
                         f"JAX type {want}")


register_pytree_node(VJP, VJP.tree_flatten, VJP.tree_unflatten)


class _Marker:
    __slots__ = ()

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self).__name__)


class GradValue(_Marker):
    """with_refs: return this argument's gradient as a value."""


class DontWant(_Marker):
    """with_refs: do not compute this argument's gradient."""


class GradRef(_Marker):
    """Returned in place of a gradient added into a ref."""


class DidntWant(_Marker):
    """Returned in place of a gradient not wanted."""


for _cls in (GradValue, DontWant, GradRef, DidntWant):  # pytrees without leaves, as JAX's
    register_pytree_node(_cls, lambda x: ((), None), lambda aux, ch, c=_cls: c())


def _apply_spec(spec, ct):
    if type(spec) is GradValue:
        return ct
    if type(spec) is DontWant:
        return DidntWant()
    if type(spec) is state_types.Ref:
        state_types.ops["addupdate"](spec, None, ct)  # accumulated, as JAX's gradient refs
        return GradRef()
    raise TypeError(f"with_refs takes a Ref, jax.ad.GradValue() or jax.ad.DontWant() per "
                    f"argument, got {spec!r}")
