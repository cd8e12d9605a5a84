"""The types of mutable array references: `AbstractRef` (printed `Ref{f32[3]}`), the `Ref`
value a program holds, and `NDIndexer`, how a `ref[idx]` selects part of a ref.

A `Ref` is one of two kinds:
- a *buffer* (`owner is None`): made eagerly, its value an Array that `get`/`swap`/
  `addupdate` replace; jitted programs read and write it through state discharge;
- a *cell* of a transformation (`owner` is the trace that made it): a ref allocated while
  grad/vjp/jvp/vmap trace a function. Its value is that transformation's value, and ref
  operations act on it as pure indexing and updates as they are traced (state discharge done
  on the fly), so every transformation's rules for those pure operations apply.

The ref operations themselves live with the primitives (state/primitives.py), which install
them into `ops` (this module sits below the libraries it needs). May import core.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from didax._src import core

# Installed by state/primitives.py: "get", "swap", "addupdate" (ref, idx[, value]), and
# "staging" (the staging trace's class); by state/discharge.py: "bind_refs" (primitive,
# args, params).
ops: dict[str, Any] = {}


class RefEffect:
    """The effect of allocating, reading or writing a ref (unordered: the discharge pass
    threads ref values as data)."""

    __slots__ = ("kind",)
    ordered = False

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self):
        return self.kind


def touches_refs(jaxpr) -> bool:
    """Whether a jaxpr takes, closes over or allocates refs (then it needs discharging)."""
    if any(type(v.aval) is AbstractRef for v in (*jaxpr.invars, *jaxpr.constvars)):
        return True
    return any(type(e) is RefEffect for e in jaxpr.effects)


class AbstractRef(core.AbstractValue):
    """The type of a mutable array reference holding values of type `inner_aval`."""

    __slots__ = ("inner_aval",)

    def __init__(self, inner_aval):
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    weak_type = property(lambda self: self.inner_aval.weak_type)
    ndim = property(lambda self: len(self.inner_aval.shape))
    size = property(lambda self: self.inner_aval.size)

    def update(self, shape=None, dtype=None, weak_type=None, inner_aval=None) -> AbstractRef:
        if inner_aval is None:
            inner_aval = self.inner_aval.update(shape, dtype, weak_type)
        return AbstractRef(inner_aval)

    def to_tangent_aval(self) -> AbstractRef:
        return AbstractRef(self.inner_aval.to_tangent_aval())

    def strip_weak_type(self) -> AbstractRef:
        return AbstractRef(self.inner_aval.strip_weak_type())

    def str_short(self, short_dtypes: bool = False) -> str:
        return f"Ref{{{self.inner_aval.str_short(short_dtypes)}}}"

    __str__ = __repr__ = str_short

    def __eq__(self, other):
        return type(other) is AbstractRef and self.inner_aval == other.inner_aval

    def __hash__(self):
        return hash(("AbstractRef", self.inner_aval))


def is_ref_aval(aval) -> bool:
    return type(aval) is AbstractRef


def is_ref(x) -> bool:
    """Whether x is a ref: a Ref value or a tracer of ref type."""
    if type(x) is Ref:
        return True
    return isinstance(x, core.Tracer) and type(x.aval) is AbstractRef


class Ref:
    """A mutable array reference (`jax.new_ref(x)`): read with `ref[idx]`, written with
    `ref[idx] = v` and `ref[idx] += v`; `jax.freeze(ref)` gives its final value."""

    __slots__ = ("_aval", "_buf", "owner", "_ptr", "__weakref__")
    __array_priority__ = 100

    def __init__(self, aval: AbstractRef, buf, owner=None):
        self._aval = aval
        self._buf = buf
        self.owner = owner
        self._ptr = None

    aval = property(lambda self: self._aval)
    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: self._aval.ndim)
    size = property(lambda self: self._aval.size)
    committed = property(lambda self: False)

    def __repr__(self):
        if self.owner is not None:
            return f"Ref({self._buf!r})"
        return "Ref" + repr(self._buf)[5:]  # Array(...) -> Ref(...), as JAX prints it

    __str__ = __repr__

    def __getitem__(self, idx):
        return ops["get"](self, idx)

    def __setitem__(self, idx, value):
        ops["swap"](self, idx, value, "ref_set")

    def addupdate(self, value, idx=None):
        ops["addupdate"](self, idx, value)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @property
    def at(self):
        raise NotImplementedError("Ref.at is not implemented (in JAX either); index the "
                                  "ref instead: ref[idx], ref[idx] = v, ref[idx] += v")

    def unsafe_buffer_pointer(self) -> int:
        """A stable address for this ref's buffer (the ref is updated in place)."""
        if self._ptr is None:
            host = np.asarray(self._buf)
            self._ptr = host.__array_interface__["data"][0] or id(self)
        return self._ptr


core.pytype_aval_mappings[Ref] = lambda r: r._aval


class NDIndexer:
    """How `ref[idx]` selects from a ref of `shape`: per dimension either a static slice
    `(start, size, stride)` or None, an integer indexer (a scalar or an int array, given
    as an operand of the primitive, in order). `int_shape` is the broadcast shape of the
    integer indexers. Hashable: it is a parameter of the ref primitives."""

    __slots__ = ("indices", "shape", "int_shape")

    def __init__(self, indices: tuple, shape: tuple, int_shape: tuple = ()):
        self.indices = tuple(indices)
        self.shape = tuple(shape)
        self.int_shape = tuple(int_shape)

    def _key(self):
        return (self.indices, self.shape, self.int_shape)

    def __eq__(self, other):
        return type(other) is NDIndexer and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"NDIndexer(indices={self.indices}, shape={self.shape})"

    @property
    def num_operands(self) -> int:
        return sum(i is None for i in self.indices)

    def result_shape(self) -> tuple:
        """NumPy's rule: the integer indexers' shape where they stand when adjacent, in
        front otherwise; then each slice's size."""
        is_int = [i is None for i in self.indices]
        sizes = [i[1] for i in self.indices if i is not None]
        if not any(is_int):
            return tuple(sizes)
        where = [k for k, b in enumerate(is_int) if b]
        if where != list(range(where[0], where[-1] + 1)):
            return self.int_shape + tuple(sizes)
        pos = sum(1 for k in range(where[0]) if not is_int[k])
        return tuple(sizes[:pos]) + self.int_shape + tuple(sizes[pos:])

    def python_index(self, operands) -> tuple:
        """The NumPy-style index this describes, with `operands` for the integer ones."""
        it = iter(operands)
        out = []
        for i in self.indices:
            if i is None:
                x = next(it)
                out.append(x.val if type(x) is core.TypedScalar else x)
            else:
                start, size, stride = i
                out.append(slice(start, start + (size - 1) * stride + 1 if size else start,
                                 stride))
        return tuple(out)


def slice_spec(s: slice, dim: int) -> tuple[int, int, int]:
    start, stop, step = s.indices(dim)
    if step < 1:
        raise NotImplementedError("Ref indexing with a negative slice step is not supported "
                                  "in didax (nor in JAX); read the ref and reverse the value")
    return (start, len(range(start, stop, step)), step)


def lift_ref_consts(closed: core.ClosedJaxpr) -> tuple[core.ClosedJaxpr, list[Ref]]:
    """closed with the refs it closes over as trailing inputs (as JAX passes them to a
    nested jit), and those refs."""
    is_ref_const = [is_ref(c) for c in closed.consts]
    if not any(is_ref_const):
        return closed, []
    jaxpr = closed.jaxpr
    keep = [v for v, r in zip(jaxpr.constvars, is_ref_const) if not r]
    lifted = [v for v, r in zip(jaxpr.constvars, is_ref_const) if r]
    new = jaxpr.replace(constvars=keep, invars=[*jaxpr.invars, *lifted])
    consts = [c for c, r in zip(closed.consts, is_ref_const) if not r]
    refs = [c for c, r in zip(closed.consts, is_ref_const) if r]
    return core.ClosedJaxpr(new, consts), refs


def is_cell(x) -> bool:
    return type(x) is Ref and x.owner is not None


def bind(prim, *args, **params):
    """prim.bind(*args, **params) for a higher-order primitive (a loop, a branch) whose
    operands may include refs (its body closed over them). Under a transformation (grad,
    vmap, ...) the primitive is discharged right here: the refs are read, the pure
    primitive bound on their values, and the final values written back, each read and
    write through the transformation's own rules (ops["bind_refs"]). Eagerly and when
    staged, it is bound as it is (discharged when the program is compiled)."""
    for a in args:
        if type(a) is Ref or (isinstance(a, core.Tracer) and type(a.aval) is AbstractRef):
            if not isinstance(core.trace_ctx.trace, (core.EvalTrace, ops["staging"])):
                return ops["bind_refs"](prim, args, params)
            break
    return prim.bind(*args, **params)
