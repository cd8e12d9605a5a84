"""The user's names for the values of a card's program.

While the recorder traces a card's function, a `NameObserver` watches the user's frames
(through `source_info.observers`, called whenever an equation takes its location from the
stack): each frame that moved on since last seen has its local names read, and every name
bound to a traced value (or to a pytree of them, `grads[0]`) becomes a candidate for that
value's variable. After tracing, a candidate counts only if the value was made by code
running in that very call of that frame (the frame is on the traceback of the equation that
made it: `h = relu(x @ W1 + b1)` names relu's result, `y = h` on a later line does not name
anything new), and the outermost such frame wins (`h = dense(x)` beats dense's own `out`).

Parameters are named by the function's signature with pytree key paths as
`jax.tree_util.keystr` prints them (`params['W1']`, `params[0]`, `batch.x`), closed-over
arrays by the argument or global they are, and unnamed outputs `result`, `result[1]`.

May import core, source_info, tree_util, array, interpreters, pjit.
"""

from __future__ import annotations

import inspect
import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, source_info
from didax._src.api_util import param_names
from didax._src.array import Array
from didax._src.core import ClosedJaxpr, Jaxpr, Var
from didax._src.interpreters.partial_eval import DynamicJaxprTracer
from didax._src.tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

_MAX_LEAVES = 256  # larger pytrees in locals are not read (cost)
_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # ClosedJaxpr -> names
_RESULTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # -> result paths


def results_of(closed: ClosedJaxpr) -> list[str] | None:
    """The output paths of a traced program (`result[0]['w']`), as JAX's result_info."""
    try:
        return _RESULTS.get(closed)
    except TypeError:
        return None


def names_of(closed: ClosedJaxpr | None) -> dict:
    """The user names recorded for a traced program ({Var: name}; empty if none)."""
    if closed is None:
        return {}
    try:
        return _NAMES.get(closed, {})
    except TypeError:
        return {}


# ----------------------------------------------------------------------------------------
# Watching the user's frames
# ----------------------------------------------------------------------------------------


def var_of(x) -> Var | None:
    """The jaxpr variable a traced value stands for (through JVP/tape/batch tracers)."""
    t = staged_tracer(x)
    return None if t is None else t._var


def staged_tracer(x) -> DynamicJaxprTracer | None:
    """The staging tracer under a traced value (through JVP/tape/batch tracers)."""
    for _ in range(8):
        if isinstance(x, DynamicJaxprTracer):
            return x
        if not isinstance(x, core.Tracer):
            return None
        inner = getattr(x, "primal", None)
        if inner is None:
            inner = getattr(x, "val", None)
        if inner is None:
            return None
        x = inner
    return None


def _named_leaves(name: str, val) -> list[tuple[str, Any]]:
    """[(name with key path, traced leaf)] of one local."""
    if isinstance(val, core.Tracer):
        return [(name, val)]
    if not isinstance(val, (list, tuple, dict)) and not _is_custom_node(val):
        return []
    try:
        pairs, treedef = tree_flatten_with_path(val)
    except Exception:  # noqa: BLE001 - a strange container is just not read
        return []
    if treedef.num_leaves > _MAX_LEAVES:
        return []
    return [(name + keystr(path), leaf) for path, leaf in pairs
            if isinstance(leaf, core.Tracer)]


def _is_array(val) -> bool:
    return isinstance(val, (np.ndarray, Array)) and val.ndim > 0


def _is_custom_node(val) -> bool:
    from didax._src.tree_util import is_tree_node  # noqa: PLC0415

    t = type(val)
    return t.__module__ != "numpy" and not isinstance(val, (str, bytes, int, float)) and \
        is_tree_node(t)


class NameObserver:
    """Collects (variable, call id, name) candidates from the user's frames while tracing."""

    def __init__(self):
        self.frames: dict[int, Any] = {}  # call id -> frame (kept for the final read)
        self.lasti: dict[int, int] = {}
        self.read: dict[tuple[int, str], tuple] = {}  # (call, name) -> (value, len) last read
        self.cands: dict[Var, dict[tuple[int, str], int]] = {}
        self.consts: dict[int, tuple[str, Any]] = {}  # id -> (name, array) of concrete arrays
        self.derived: list[tuple[Var, Var]] = []  # (original, re-bound copy), in order
        self.origin: dict[Var, Any] = {}  # where each candidate was made (its SourceInfo)
        self.seq = itertools.count()

    def __call__(self, calls: list) -> None:
        for frame, cid in calls:
            if cid == 0:
                continue
            lasti = frame.f_lasti
            last = self.lasti.get(cid)
            if last == lasti:
                continue
            if last is None:
                self.read_globals(frame)
            self.lasti[cid] = lasti
            self.frames[cid] = frame
            self.snapshot(frame, cid)

    def rebound(self, old_vars, values) -> None:
        """core.rebind_hook: a transformation re-bound old_vars as values."""
        for v, x in zip(old_vars, values):
            new = var_of(x)
            if new is not None and new is not v:
                self.derived.append((v, new))

    def read_globals(self, frame) -> None:
        """Arrays a frame's code reads from its module (they become constants)."""
        glob = frame.f_globals
        for name in frame.f_code.co_names:
            val = glob.get(name)
            if val is not None and _is_array(val):
                self.consts.setdefault(id(val), (name, val))

    def snapshot(self, frame, cid: int) -> None:
        for name, val in frame.f_locals.items():
            if name[:1] == "." or name == "__class__":
                continue
            if _is_array(val):  # a concrete array the program may capture
                self.consts.setdefault(id(val), (name, val))
                continue
            key = (cid, name)
            size = len(val) if isinstance(val, (list, dict)) else -1
            last = self.read.get(key)
            if last is not None and last[0] is val and last[1] == size:
                continue
            self.read[key] = (val, size)
            for full, leaf in _named_leaves(name, val):
                t = staged_tracer(leaf)
                if t is None:
                    continue
                if t._var not in self.origin:
                    self.origin[t._var] = t._origin
                self.cands.setdefault(t._var, {}).setdefault((cid, full), next(self.seq))

    def finish(self) -> None:
        """Reads every frame once more: calls that returned keep their final locals."""
        for cid, frame in self.frames.items():
            self.read.clear()
            self.snapshot(frame, cid)
        self.frames.clear()


def resolve(observer: NameObserver) -> dict[Var, str]:
    """{Var: name} for the candidates a frame made and named (the frame is on the
    traceback of where the value was made); the outermost frame wins, then the first name
    seen."""
    out: dict[Var, str] = {}
    for v, cands in observer.cands.items():
        info = observer.origin.get(v)
        if info is None or not info.traceback:
            continue
        depth = {cid: i for i, (_, _, cid) in enumerate(info.traceback) if cid}
        best = min(((depth[cid], seq, name) for (cid, name), seq in cands.items()
                    if cid in depth), default=None)
        if best is not None:
            out[v] = best[2]
    return out


# ----------------------------------------------------------------------------------------
# Parameters, closed-over values, results
# ----------------------------------------------------------------------------------------


class ArgNames:
    """How the traced function's arguments are called: `base[i]` names positional
    argument i (the parameter's name, or `args[k]` for the k-th extra one)."""

    def __init__(self, fun: Callable, nargs: int, kwargs: dict | None = None):
        self.fun = fun
        self.base = param_names(fun, nargs)
        self.kwargs = dict(kwargs or {})

    def flat(self, args: Sequence[Any], positions: Sequence[int]) -> list[str]:
        """Per flat leaf of `args` (the arguments at `positions`), its name."""
        out = []
        for a, i in zip(args, positions):
            out += [self.base[i] + keystr(p) for p, _ in tree_flatten_with_path(a)[0]]
        return out


def closed_over_names(fun: Callable, args: Sequence[Any], names: ArgNames,
                      skip: Sequence[int]) -> dict[int, str]:
    """{id(value): name} for values the traced program may capture as constants: the
    arguments not traced (positions outside `skip`), keyword arguments, and the arrays the
    function reads from its globals and closure."""
    out: dict[int, str] = {}
    for i, a in enumerate(args):
        if i not in skip:
            for p, leaf in tree_flatten_with_path(a)[0]:
                out.setdefault(id(leaf), names.base[i] + keystr(p))
    for k, v in names.kwargs.items():
        for p, leaf in tree_flatten_with_path(v)[0]:
            out.setdefault(id(leaf), k + keystr(p))
    f = inspect.unwrap(fun) if callable(fun) else fun
    code = getattr(f, "__code__", None)
    if code is not None:
        glob = getattr(f, "__globals__", {})
        for n in code.co_names:
            if n in glob and hasattr(glob[n], "shape"):
                out.setdefault(id(glob[n]), n)
        for n, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or ()):
            try:
                val = cell.cell_contents
            except ValueError:
                continue
            if hasattr(val, "shape"):
                out.setdefault(id(val), n)
    return out


def result_names(out_tree) -> list[str]:
    """`result` plus each output leaf's key path (JAX's `jax.result_info`)."""
    dummy = tree_unflatten(out_tree, list(range(out_tree.num_leaves)))
    return ["result" + keystr(p) for p, _ in tree_flatten_with_path(dummy)[0]]


def _const_name(c, by_id: dict[int, str]) -> str | None:
    name = by_id.get(id(c))
    if name is None:  # an argument converted to an Array on the way in
        name = by_id.get(id(getattr(c, "_npy", None)))
    return name


# ----------------------------------------------------------------------------------------
# Tracing with names
# ----------------------------------------------------------------------------------------


def trace_named(f: Callable, args: Sequence[Any], arg_names: list[str] | None = None,
                consts_by_id: dict[int, str] | None = None):
    """Traces f(*args) to (ClosedJaxpr, flat args, out tree), recording the user's names
    (read back with `names_of(closed)`)."""
    from didax._src import pjit  # noqa: PLC0415
    from didax._src.interpreters import partial_eval as pe  # noqa: PLC0415

    flat, in_tree = tree_flatten(args)
    store = {}

    def flat_f(*xs):
        out = f(*tree_unflatten(in_tree, list(xs)))
        leaves, store["out_tree"] = tree_flatten(out)
        return leaves

    observer = NameObserver()
    avals = [core.get_aval(x) for x in flat]
    source_info.observers.append(observer)
    prev_hook, core.rebind_hook.fn = core.rebind_hook.fn, observer.rebound
    try:
        with source_info.traceback_scope(), pjit.fresh_traces():
            jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(flat_f, avals, "viz")
            observer.finish()
    finally:
        source_info.observers.remove(observer)
        core.rebind_hook.fn = prev_hook
    closed = ClosedJaxpr(jaxpr, consts)
    by_id = {k: n for k, (n, _) in observer.consts.items()}
    by_id.update(consts_by_id or {})
    _NAMES[closed] = _all_names(observer, closed, arg_names, by_id, store["out_tree"])
    _RESULTS[closed] = result_names(store["out_tree"])
    return closed, flat, store["out_tree"]


def _all_names(observer, closed, arg_names, consts_by_id, out_tree) -> dict[Var, str]:
    jaxpr = closed.jaxpr
    names = resolve(observer)
    for v, n in zip(jaxpr.invars, arg_names or ()):
        names[v] = n
    for v, c in zip(jaxpr.constvars, closed.consts):
        n = _const_name(c, consts_by_id)
        if n is not None:
            names.setdefault(v, n)
    for old, new in observer.derived:  # copies made by transformations (jvp of a jit body)
        if old in names:
            names.setdefault(new, names[old])
    for v, n in zip(jaxpr.outvars, result_names(out_tree)):
        if type(v) is Var:
            names.setdefault(v, n)
    _name_jit_bodies(jaxpr, names)
    return names


def _name_jit_bodies(jaxpr: Jaxpr, names: dict) -> None:
    """A jit body's inputs and outputs are the values its equation takes and gives."""
    for eqn in jaxpr.eqns:
        body = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
        if body is None:
            continue
        inner = body.jaxpr if isinstance(body, ClosedJaxpr) else body
        for outer, v in zip(eqn.invars, inner.invars):
            if type(outer) is Var and outer in names:
                names.setdefault(v, names[outer])
        for outer, v in zip(eqn.outvars, inner.outvars):
            if type(v) is Var and outer in names:
                names.setdefault(v, names[outer])
        _name_jit_bodies(inner, names)


# ----------------------------------------------------------------------------------------
# Derived programs (stages)
# ----------------------------------------------------------------------------------------


def stage_names(stage: Jaxpr, primal: Jaxpr, names: dict, n_primal_invars: int = 0
                ) -> dict[Var, str]:
    """Names for a stage program's variables that are primal values: its first
    `n_primal_invars` inputs, and the outputs of the first equation re-binding each primal
    equation (same provenance tag, primitive and output dtypes; shapes differ under vmap)."""
    by_tag = {e.tag: e for e in primal.eqns if e.tag is not None}
    out: dict[Var, str] = {}
    for v, p in zip(stage.invars[:n_primal_invars], primal.invars):
        if p in names:
            out[v] = names[p]
    for eqn in stage.eqns:  # the first re-binding of a primal equation computes its value
        p = by_tag.pop(eqn.tag, None) if eqn.tag is not None else None
        if p is None or p.primitive is not eqn.primitive or len(p.outvars) != len(eqn.outvars):
            continue
        for v, pv in zip(eqn.outvars, p.outvars):
            if pv in names and getattr(v.aval, "dtype", None) == getattr(pv.aval, "dtype", 0):
                out.setdefault(v, names[pv])
    return out
