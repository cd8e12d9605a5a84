"""Eager reverse mode: a tape interpreter for `vjp`/`grad` of concrete values.

At top level (no enclosing trace) reverse mode needs no linear jaxpr. The forward pass runs
eagerly under a `TapeTrace`; each differentiable operation is recorded on a tape with its
primal inputs, and the pullback walks the tape backwards. A recorded operation's VJP is
derived from rules `ad` already owns, never written a second time:

- a primitive linear in its arguments (`ad.linearity`: jointly, or in each one separately as
  `mul` and `dot_general`) is pulled back by its transpose rule;
- a pointwise primitive whose JVP is one function per argument (`ad.defjvp`) is pulled back
  by the same functions applied to the cotangent, for real floating types: the derivative
  of a pointwise map is diagonal, hence its own transpose;
- a primitive with a rule in `pullbacks` (the transpose of its JVP's linear part, written
  once where the primitive is declared: max pooling's is `select_and_scatter_add`) is
  pulled back by that rule, and only if a cotangent reaches it;
- a custom_jvp function's rule (without symbolic zeros) runs once on the primals and on
  zero tangents recorded by a tape of its own, which pulls back its linear tangent map;
- anything else (control flow, custom_vjp, complex or broadcasting pointwise cases, ...)
  is linearized on the spot by `ad.linearize_flat`, the general path, and the pullback of
  that small linear jaxpr is kept on the tape.

Under an enclosing trace (jit, vmap, an outer grad, make_jaxpr) `vjp` keeps linearize +
transpose, so staged programs are unchanged. May import core, dtypes, ad.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Sequence
from typing import Any

from didax._src import core, dtypes
from didax._src.core import Trace, get_aval, set_current_trace
from didax._src.interpreters import ad
from didax._src.interpreters.ad import UndefinedPrimal, Zero

_POINTWISE = "pointwise"

# Nonzero while a tape records a forward pass or pulls back. Eager operations then evaluate
# on the host (NumPy) even where plain eager code would use XLA to round as `jit` does
# (lax._define): a training step differentiated eagerly stays as fast as NumPy allows, at
# the cost of ~1-ulp float32 differences from its jitted twin in transcendental functions
# and sums.
ACTIVE = [0]
_LINEARIZED = "linearized"
_RECORDED = "recorded"  # a custom JVP rule's tangent map, recorded on a tape of its own
_PULLBACK = "pullback"

# prim -> rule(ct, ans, *primals, **params) -> one cotangent per primal (None: none), for
# primitives whose JVP is nonlinear in the primal but whose pullback is known in closed form
# (the choosers: max pooling, reduce_max); it must equal linearize-then-transpose exactly.
pullbacks: dict = {}
# prim -> rule(i, ct, primals, params) -> the cotangent of operand i of a primitive linear in
# each operand ("each": convolution), computed directly on the host, or None (then its
# transpose rule runs): the same sums as the transpose, in a layout the host computes faster
each_pullbacks: dict = {}
# jointly linear primitives whose transpose rule returns no cotangent for an operand given
# as a value rather than undefined (select_n's cases): the tape passes constants as values
constants_defined: set = set()


class TapeTracer(ad.DifferentiatedTracer):
    """A value of the forward pass: its primal and its slot on the tape."""

    __slots__ = ("primal", "slot", "aval")
    display_name = "LinearizeTracer"  # what JAX's errors call a value under grad/vjp

    def __init__(self, trace, primal, slot: int, aval):
        self._trace = trace
        self.primal = primal
        self.slot = slot
        self.aval = aval

    def __repr__(self):  # as JAX shows a value being differentiated by grad/vjp
        return (f"GradTracer(primal={ad.short_repr(self.primal)}, "
                f"typeof(tangent)={self.aval.str_short(True)})")


class TapeTrace(Trace):
    """Runs primitives eagerly (in the parent trace) and records how to pull back."""

    __slots__ = ("nodes", "nslots", "finished")
    debug_desc = "LinearizeTrace"  # (JAX's name for the trace of grad/vjp, in messages)

    def __init__(self, parent_trace: Trace):
        self.parent_trace = parent_trace
        self.nodes: list[tuple] = []
        self.nslots = 0
        self.finished = False  # once the forward pass returns (later use is a leak)

    def new(self, primal, aval=None) -> TapeTracer:
        t = TapeTracer(self, primal, self.nslots, get_aval(primal) if aval is None else aval)
        self.nslots += 1
        return t

    def _unpack(self, args):
        primals, slots, tracked = [], [], False
        for x in args:
            if type(x) is TapeTracer and x._trace is self:
                primals.append(x.primal)
                slots.append(x.slot)
                tracked = True
            else:
                primals.append(x)
                slots.append(None)
        return primals, slots, tracked

    def process_primitive(self, primitive, args, params):
        primals, slots, tracked = self._unpack(args)
        kind = _kind_of(primitive) if tracked else _UNTRACKED
        if kind is _UNTRACKED:
            return self.parent_trace.process_primitive(primitive, primals, params)
        if kind is None:
            return self._linearized_primitive(primitive, primals, slots, params)
        ans = self.parent_trace.process_primitive(primitive, primals, params)
        out_aval = get_aval(ans)
        if not _inexact(out_aval.dtype):
            return ans
        if kind is _POINTWISE and not _pointwise_applies(out_aval, primals, slots):
            # pointwise primitives are pure: evaluating once more is harmless
            return self._linearized_primitive(primitive, primals, slots, params)
        out = self.new(ans, out_aval)
        self.nodes.append(_node(kind, primitive, params, primals, ans, slots, out.slot))
        return out

    def _linearized_primitive(self, primitive, primals, slots, params):
        def bind(*args):
            out = primitive.bind(*args, **params)
            return list(out) if primitive.multiple_results else [out]
        outs = self._linearize(bind, primals, slots)
        return outs if primitive.multiple_results else outs[0]

    def _linearize(self, fun: Callable, primals: list, slots: list) -> list:
        """Runs fun(*primals) once under linearize, keeping the linear map on the tape."""
        idx = [i for i, s in enumerate(slots) if s is not None]

        def tracked_fun(*ts):
            args = list(primals)
            for i, t in zip(idx, ts):
                args[i] = t
            return fun(*args)

        tracked = [primals[i] for i in idx]
        with set_current_trace(self.parent_trace):
            outs, lin, out_zeros, _ = ad.linearize_flat(tracked_fun, tracked)
        results, out_slots = [], []
        for o, zero in zip(outs, out_zeros):
            if zero:
                results.append(o)
                out_slots.append(None)
            else:
                t = self.new(o)
                results.append(t)
                out_slots.append(t.slot)
        if any(s is not None for s in out_slots):
            in_avals = [get_aval(p).to_tangent_aval() for p in tracked]
            self.nodes.append((_LINEARIZED, lin, out_zeros, in_avals, outs,
                               [slots[i] for i in idx], out_slots))
        return results

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        primals, slots, tracked = self._unpack(args)
        if not tracked:
            return self.parent_trace.process_custom_jvp_call(
                primitive, fun, jvp, primals, symbolic_zeros=symbolic_zeros)
        if not symbolic_zeros:
            outs = self._record_jvp_rule(jvp, primals, slots)
            if outs is not None:
                return outs

        def call(*xs):
            return core.trace_ctx.trace.process_custom_jvp_call(
                primitive, fun, jvp, list(xs), symbolic_zeros=symbolic_zeros)
        return self._linearize(call, primals, slots)

    def _record_jvp_rule(self, jvp: Callable, primals: list, slots: list) -> list | None:
        """A custom JVP rule run once on the primals, its tangent map recorded (not
        evaluated) by a _TangentTrace: pulling back through the recording is the map's
        transpose, what linearize-then-transpose gives, without tracing a jaxpr. None when
        the rule does more than linear primitives to the tangents (then: linearize)."""
        inner = _TangentTrace(self.parent_trace)
        tangents, in_pairs = [], []
        for p, s in zip(primals, slots):
            aval = get_aval(p).to_tangent_aval()
            if s is None:
                tangents.append(ad.zeros_like_aval(aval))
            else:
                t = inner.new(_Typed(aval), aval)
                tangents.append(t)
                in_pairs.append((t.slot, s))
        try:
            with set_current_trace(inner):
                outs = jvp.call_wrapped(*primals, *tangents)
        except _NotRecordable:
            return None
        finally:
            inner.finished = True
        k = len(outs) // 2
        results, out_pairs = [], []
        for p, t in zip(outs[:k], outs[k:]):
            if isinstance(p, core.Tracer):
                return None
            if type(t) is TapeTracer and t._trace is inner:
                o = self.new(p, get_aval(p))
                results.append(o)
                out_pairs.append((t.slot, o.slot))
            else:
                results.append(p)
        if out_pairs:
            self.nodes.append((_RECORDED, inner.nodes, inner.nslots, in_pairs, out_pairs))
        return results

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        primals, slots, tracked = self._unpack(args)
        if not tracked:
            return self.parent_trace.process_custom_vjp_call(
                primitive, fun, fwd, bwd, primals, out_trees=out_trees,
                symbolic_zeros=symbolic_zeros)

        def call(*xs):
            return core.trace_ctx.trace.process_custom_vjp_call(
                primitive, fun, fwd, bwd, list(xs), out_trees=out_trees,
                symbolic_zeros=symbolic_zeros)
        return self._linearize(call, primals, slots)


class _NotRecordable(Exception):
    """A custom JVP rule applied something other than a linear primitive to a tangent."""


class _TangentTrace(TapeTrace):
    """Records the linear primitives a custom JVP rule applies to its tangents without
    evaluating them (as JAX's linearize leaves tangents abstract): a tracked value carries
    its type only; untracked operations run as usual."""

    __slots__ = ()

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        primals, _, tracked = self._unpack(args)
        if tracked:
            raise _NotRecordable(primitive.name)
        return self.parent_trace.process_custom_jvp_call(
            primitive, fun, jvp, primals, symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, **params):
        primals, _, tracked = self._unpack(args)
        if tracked:
            raise _NotRecordable(primitive.name)
        return self.parent_trace.process_custom_vjp_call(primitive, fun, fwd, bwd, primals,
                                                         **params)

    def process_primitive(self, primitive, args, params):
        primals, slots, tracked = self._unpack(args)
        if not tracked:
            return self.parent_trace.process_primitive(primitive, primals, params)
        kind = _kind_of(primitive)
        if kind != "joint" and kind != "each":
            raise _NotRecordable(primitive.name)
        avals = [get_aval(p) for p in primals]
        out_aval = primitive.abstract_eval(*avals, **params)
        out = self.new(_Typed(out_aval), out_aval)
        self.nodes.append(_node(kind, primitive, params, primals, None, slots, out.slot))
        return out


class _Typed:
    """Stands for a tangent a _TangentTrace records: its type (weak type included), no
    value (never evaluated: the transposes read only the types of undefined operands)."""

    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval


def _node(kind, primitive, params, primals, ans, slots, out_slot) -> tuple:
    """A recorded operation, keeping only what its pullback reads (the forward's arrays
    that nothing reads are freed as the forward goes on, not at the end of the backward):
    a jointly linear primitive's transpose arguments (types for the tracked operands), a
    primitive linear in each operand its primals without its result."""
    if kind == "joint":
        return kind, primitive, params, _joint_args(primitive, primals, slots), None, slots, \
            out_slot
    if kind == "each":
        ans = None
    return kind, primitive, params, primals, ans, slots, out_slot


_UNTRACKED = "untracked"  # no derivative flows through: evaluate and record nothing
_KINDS: dict = {}


def _kind_of(primitive):
    """How the tape pulls back through primitive: "joint", "each", _POINTWISE (when the
    types allow it), _UNTRACKED, or None (linearize it)."""
    try:
        return _KINDS[primitive]
    except KeyError:
        pass
    if primitive in ad.zero_jvp:
        kind = _UNTRACKED
    elif primitive in pullbacks:
        kind = _PULLBACK
    elif primitive.multiple_results:
        kind = None
    elif primitive in ad.linearity:
        kind = ad.linearity[primitive]
    elif primitive in ad.pointwise and primitive in ad.jvp_fns:
        kind = _POINTWISE
    else:
        kind = None
    _KINDS[primitive] = kind
    return kind


def _pointwise_applies(out_aval, primals, slots) -> bool:
    """The JVP functions transpose to themselves: real floating, no broadcasting."""
    if not dtypes.is_float(out_aval.dtype):
        return False
    for p, s in zip(primals, slots):
        if s is not None:
            a = get_aval(p)
            if a.shape != out_aval.shape or a.dtype != out_aval.dtype:
                return False
    return True


# ----------------------------------------------------------------------------------------
# The backward pass
# ----------------------------------------------------------------------------------------


def vjp_flat(fun: Callable, primals: Sequence[Any]):
    """(primals_out, f_vjp): fun(*primals) run once under a tape; f_vjp(cts_out) -> the
    cotangent of each primal (a symbolic Zero where nothing flowed), callable many times
    and under any trace."""
    if not _ALLOCATOR_TUNED:
        _keep_freed_host_memory()
    trace = TapeTrace(core.trace_ctx.trace)
    args = [trace.new(p) if _differentiable(p) else p for p in primals]
    in_slots = [a.slot if type(a) is TapeTracer else None for a in args]
    ACTIVE[0] += 1
    try:
        with set_current_trace(trace):
            outs = fun(*args)
    finally:
        ACTIVE[0] -= 1
    trace.finished = True
    primals_out, out_slots = [], []
    for o in outs:
        if type(o) is TapeTracer and o._trace is trace:
            primals_out.append(o.primal)
            out_slots.append(o.slot)
        else:
            primals_out.append(o)
            out_slots.append(None)
    in_avals = [get_aval(p).to_tangent_aval() for p in primals]
    nodes, nslots = trace.nodes, trace.nslots

    def f_vjp(cts_out):
        ACTIVE[0] += 1
        try:
            ct = backward(nodes, nslots, out_slots, cts_out)
        finally:
            ACTIVE[0] -= 1
        return [Zero(a) if s is None or ct[s] is None else ct[s]
                for s, a in zip(in_slots, in_avals)]

    return primals_out, f_vjp


_ALLOCATOR_TUNED: list = []


def _keep_freed_host_memory() -> None:
    """Pins glibc malloc's thresholds at the maxima its own dynamic rule reaches (blocks up
    to 32 MB from the heap, the heap's free top kept up to 64 MB). An eager training step
    allocates and frees the same few-hundred-KB NumPy temporaries every operation; with the
    thresholds still low glibc returns them to the kernel at each free and faults them
    back in (thousands of page faults a step: measured 2,300, ~60% of a small CNN step's
    time on a VM). Done once, the first time a tape runs; elsewhere nothing changes."""
    _ALLOCATOR_TUNED.append(True)
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    mallopt(m_mmap_threshold, 32 << 20)
    mallopt(m_trim_threshold, 64 << 20)


def _differentiable(x) -> bool:
    return _inexact(get_aval(x).dtype)


_INEXACT: dict = {}


def _inexact(dtype) -> bool:
    try:
        return _INEXACT[dtype]
    except KeyError:
        out = _INEXACT[dtype] = dtypes.is_inexact(dtype)
        return out


def backward(nodes: list, nslots: int, out_slots: Sequence[int | None],
             cts_out: Sequence[Any]) -> list:
    """Walks the tape in reverse from the output cotangents; returns the cotangent of
    every slot (None where nothing flowed)."""
    ct: list = [None] * nslots
    for s, c in zip(out_slots, cts_out):
        if s is not None and c is not None and type(c) is not Zero:
            _accumulate(ct, s, c)
    for node in reversed(nodes):
        if node[0] is _LINEARIZED:
            _pull_linearized(node, ct)
            continue
        if node[0] is _RECORDED:
            _pull_recorded(node, ct)
            continue
        kind, prim, params, primals, ans, slots, out_slot = node
        c = ct[out_slot]
        if c is None:
            continue
        ct[out_slot] = None
        if kind is _POINTWISE:
            _pull_pointwise(prim, params, primals, ans, slots, c, ct)
        elif kind == "each":
            _pull_each(prim, params, primals, slots, c, ct)
        elif kind is _PULLBACK:
            _accumulate_all(ct, slots, pullbacks[prim](c, ans, *primals, **params))
        else:  # jointly linear: primals are its transpose's arguments (_node)
            _accumulate_all(ct, slots, ad.primitive_transposes[prim](c, *primals, **params))
    return ct


def _joint_args(prim, primals, slots) -> list:
    """A jointly linear primitive's operands for its transpose rule: every differentiable
    one undefined (constants too — linearize instantiates their zero tangents, so the
    rules assume it — unless prim's rule takes them as they are: constants_defined), the
    others (predicates, indices) as they are."""
    args = []
    keep = prim in constants_defined
    for p, s in zip(primals, slots):
        a = get_aval(p)
        if s is not None:  # tracked values are inexact: their tangent type is their type
            args.append(UndefinedPrimal(a))
        else:
            args.append(UndefinedPrimal(a) if _inexact(a.dtype) and not keep else p)
    return args


def _accumulate(ct: list, slot: int, c) -> None:
    prev = ct[slot]
    ct[slot] = c if prev is None else ad.add_jaxvals_p.bind(prev, c)


def _accumulate_all(ct: list, slots, cts_in) -> None:
    for s, c in zip(slots, cts_in):
        if s is not None and c is not None and type(c) is not Zero:
            _accumulate(ct, s, c)


def _pull_each(prim, params, primals, slots, c, ct) -> None:
    """Bilinear: the transpose in each tracked argument, the others held at their primals."""
    rule, direct = ad.primitive_transposes[prim], each_pullbacks.get(prim)
    for i, s in enumerate(slots):
        if s is None:
            continue
        if direct is not None:
            ci = direct(i, c, primals, params)
            if ci is not None:
                _accumulate(ct, s, ci)
                continue
        args = list(primals)
        args[i] = UndefinedPrimal(get_aval(primals[i]).to_tangent_aval())
        ci = rule(c, *args, **params)[i]
        if ci is not None and type(ci) is not Zero:
            _accumulate(ct, s, ci)


def _pull_pointwise(prim, params, primals, ans, slots, c, ct) -> None:
    fns, with_ans = ad.jvp_fns[prim]
    for fn, s in zip(fns, slots):
        if s is None or fn is None:
            continue
        ci = fn(c, ans, *primals, **params) if with_ans else fn(c, *primals, **params)
        _accumulate(ct, s, ci)


def _pull_linearized(node, ct) -> None:
    _, lin, out_zeros, in_avals, outs, in_slots, out_slots = node
    cts = [ct[s] if s is not None else None for s in out_slots]
    if all(c is None for c in cts):
        return
    for s in out_slots:
        if s is not None:
            ct[s] = None
    nonzero = [Zero(get_aval(o).to_tangent_aval()) if c is None else c
               for o, c, z in zip(outs, cts, out_zeros) if not z]
    args = [UndefinedPrimal(a) for a in in_avals]
    _accumulate_all(ct, in_slots, ad.backward_pass(lin.jaxpr, lin.consts, args, nonzero))


def _pull_recorded(node, ct) -> None:
    _, nodes, nslots, in_pairs, out_pairs = node
    cts = [ct[o] for _, o in out_pairs]
    if all(c is None for c in cts):
        return
    for _, o in out_pairs:
        ct[o] = None
    inner = backward(nodes, nslots, [i for i, _ in out_pairs], cts)
    for i, s in in_pairs:
        if inner[i] is not None:
            _accumulate(ct, s, inner[i])
