"""The interpreter behind `jax.shard_map`: a body runs once, on values that stand for one
block per device of the mesh's manual axes.

A `ShardMapTracer` holds every device's block at once, compactly: a value of shape
(*sizes of the axes it varies over, in mesh order, *block shape), and its set of varying
manual axes (JAX's `vma`; over the other axes every device holds the same block). Each
primitive is applied as one vmap per mesh axis (outermost first), each vmap named after its
axis and mapping only the operands that vary over it: collectives over a mesh axis (psum,
all_gather, ppermute, psum_scatter, all_to_all, axis_index, pvary) are that vmap's
batching rules, and a result is varying over an axis exactly when that vmap returns it
batched. Eagerly, `print` of a value shows each device's block, as JAX's does, and
`jax.typeof` shows the block type with its varying axes (`float32[3]{V:i}`).

Also the conversions between global arrays and the compact per-device layout (`split` by
an in_spec, `assemble` by an out_spec).

May import core, the interpreters, array, sharding, lax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core
from didax._src.array import Array
from didax._src.core import ShapedArray, Tracer, set_current_trace
from didax._src.interpreters import batching
from didax._src.lax import shapes


class ShardMapTrace(core.Trace):
    """Runs primitives on every device's block of a shard_map body at once."""

    __slots__ = ("axes", "mesh")

    def __init__(self, parent_trace, mesh, axes: tuple):
        self.parent_trace = parent_trace
        self.mesh = mesh  # (its devices label printed blocks)
        self.axes = axes  # ((name, size), ...): the manual axes, in mesh order

    def new(self, val, vma) -> ShardMapTracer:
        return ShardMapTracer(self, val, frozenset(vma))

    def _unpack(self, args):
        vals, vmas = [], []
        for x in args:
            if type(x) is ShardMapTracer and x._trace is self:
                vals.append(x.val)
                vmas.append(x.vma)
            else:
                vals.append(x)
                vmas.append(frozenset())
        return vals, vmas

    def _apply(self, fun: Callable, args) -> list:
        vals, vmas = self._unpack(args)
        with set_current_trace(self.parent_trace):
            outs, out_vmas = apply_nested(fun, self.axes, vals, vmas)
        return [self.new(o, v) for o, v in zip(outs, out_vmas)]

    def process_primitive(self, primitive, args, params):
        if primitive.name in _PER_DEVICE:
            return self._per_device(primitive, args, params)

        def fun(*xs):
            out = primitive.bind(*xs, **params)
            return list(out) if primitive.multiple_results else [out]

        outs = self._apply(fun, args)
        return outs if primitive.multiple_results else outs[0]

    def _per_device(self, primitive, args, params):
        """A callback runs once per device, on that device's blocks (as in JAX)."""
        vals, vmas = self._unpack(args)
        sizes = tuple(s for _, s in self.axes)
        results = []
        with set_current_trace(self.parent_trace):
            for idx in np.ndindex(*sizes):
                blocks = [_block_at(v, vma, idx, self.axes) for v, vma in zip(vals, vmas)]
                out = primitive.bind(*blocks, **params)
                results.append(list(out) if primitive.multiple_results else [out])
            outs = []
            for k in range(len(results[0]) if results else 0):
                parts = [shapes.expand_dims(r[k], (0,)) for r in results]
                stacked = shapes.concatenate(parts, 0)
                outs.append(shapes.reshape(stacked, (*sizes, *np.shape(results[0][k]))))
        tracers = [self.new(o, {n for n, _ in self.axes}) for o in outs]
        return tracers if primitive.multiple_results else tracers[0]

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        return self._apply(lambda *xs: primitive.bind_custom_jvp(fun, jvp, xs,
                                                                 symbolic_zeros), args)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        return self._apply(lambda *xs: primitive.bind_custom_vjp(fun, fwd, bwd, xs,
                                                                 symbolic_zeros), args)


# Host callbacks: called once per device with its blocks, rather than vmapped.
_PER_DEVICE = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})


def _block_at(val, vma, idx, axes):
    """The block of device idx (its coordinates along axes) of a compact value."""
    k = tuple(i for (n, _), i in zip(axes, idx) if n in vma)
    return val[k] if k else val


def apply_nested(fun: Callable, axes: Sequence, vals: Sequence, vmas: Sequence
                 ) -> tuple[list, list]:
    """fun applied per device: one vmap per axis, mapping the values varying over it.
    Results come back compact (their varying axes leading, in mesh order) with their
    varying axes."""
    if not axes:
        return list(fun(*vals)), None
    (name, size), rest = axes[0], axes[1:]
    in_dims = [0 if name in v else None for v in vmas]
    store: dict = {}

    def inner(*ys):
        outs, store["vmas"] = apply_nested(fun, rest, ys, vmas)
        return outs

    outs, dims = batching.batch_flat(inner, batching.AxisData(name, size), vals, in_dims)
    outs = [o if d is None else batching.moveaxis(o, d, 0) for o, d in zip(outs, dims)]
    inner_vmas = store["vmas"] or [frozenset()] * len(outs)
    return outs, [v | {name} if d is not None else v for v, d in zip(inner_vmas, dims)]


class ShardMapTracer(Tracer):
    __slots__ = ("val", "vma")

    def __init__(self, trace: ShardMapTrace, val, vma: frozenset):
        self._trace = trace
        self.val = val
        self.vma = vma

    @property
    def aval(self):
        a = core.get_aval(self.val)
        return ShapedArray(a.shape[len(self.vma):], a.dtype, a.weak_type)

    def to_concrete_value(self):
        return None

    def _typeof(self):
        return ManualType(self.aval, ordered(self._trace.axes, self.vma))

    def __str__(self):
        if not isinstance(self.val, Array):
            return f"Traced<{self._typeof()}>with<ShardMapTrace>"
        blocks = per_device(np.asarray(self.val), self.vma, self._trace.axes)
        mesh = self._trace.mesh
        names = [n for n, _ in self._trace.axes]
        label = f"({', '.join(map(str, names))},)"
        out = []
        for idx, dev in np.ndenumerate(mesh.devices):
            coords = dict(zip(mesh.axis_names, idx))
            key = tuple(coords[n] for n in names)
            out.append(f"On {dev} at mesh coordinates {label} = {key}:\n"
                       f"{Array(blocks[key], self.aval)}\n")
        return "\n".join(out)

    def __repr__(self):
        return f"Traced<{self._typeof()}>with<ShardMapTrace>"


def ordered(axes: Sequence, names) -> tuple:
    return tuple(n for n, _ in axes if n in names)


def per_device(val: np.ndarray, vma, axes) -> np.ndarray:
    """(*all axis sizes, *block): each device's block, from a compact value."""
    shape = []
    it = iter(val.shape)
    for name, _ in axes:
        shape.append(next(it) if name in vma else 1)
    full = val.reshape((*shape, *val.shape[len(vma):]))
    return np.broadcast_to(full, (*(s for _, s in axes), *val.shape[len(vma):]))


class ManualAxisType:
    """The varying (and unreduced) manual axes of a shard_map value's type."""

    def __init__(self, varying):
        self.varying = frozenset(varying)
        self.unreduced = frozenset()
        self.reduced = frozenset()

    def __repr__(self):
        return f"ManualAxisType(varying={set(self.varying) or '{}'})"


class ManualType:
    """What jax.typeof shows inside a shard_map body: the block type and its varying axes
    (`float32[2,2]{V:(i,j)}`)."""

    def __init__(self, aval, vma: tuple):
        self.aval, self._vma = aval, vma
        self.shape, self.dtype, self.weak_type = aval.shape, aval.dtype, aval.weak_type
        self.ndim = len(aval.shape)
        self.manual_axis_type = self.mat = ManualAxisType(vma)
        self.vma = frozenset(vma)

    def _suffix(self) -> str:
        if not self._vma:
            return ""
        names = ",".join(map(str, self._vma))
        return f"{{V:{names if len(self._vma) == 1 else f'({names})'}}}"

    def str_short(self, short_dtypes: bool = False) -> str:
        return self.aval.str_short(short_dtypes) + self._suffix()

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        w = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{w})"

    def __eq__(self, other):
        return isinstance(other, ManualType) and (self.aval, self.vma) == (other.aval,
                                                                           other.vma)

    def __hash__(self):
        return hash((self.aval, self.vma))


# ----------------------------------------------------------------------------------------
# Global arrays <-> compact per-device values
# ----------------------------------------------------------------------------------------


def spec_axes(spec, ndim: int) -> list[tuple]:
    """Per dimension, the mesh axes it is split over (in the spec's order)."""
    out = []
    for p in tuple(spec) + (None,) * (ndim - len(spec)):
        out.append(() if p is None else (tuple(p) if isinstance(p, tuple) else (p,)))
    return out


def split(x, spec, axes: Sequence) -> tuple[Any, frozenset]:
    """A global array as a compact per-device value: each dimension cut into the blocks
    its spec names; the value varies over exactly the named axes."""
    sizes = dict(axes)
    shape = np.shape(x)
    per_dim = spec_axes(spec, len(shape))
    new_shape, positions = [], {}
    for d, names in enumerate(per_dim):
        for n in names:
            positions[n] = len(new_shape)
            new_shape.append(sizes[n])
        block = shape[d] // max(int(np.prod([sizes[n] for n in names])), 1)
        new_shape.append(block)
    named = [n for n, _ in axes if n in positions]
    block_dims = [i for i in range(len(new_shape)) if i not in positions.values()]
    perm = [positions[n] for n in named] + block_dims
    y = shapes.reshape(x, tuple(new_shape)) if tuple(new_shape) != shape else x
    if perm != list(range(len(perm))):
        y = shapes.transpose(y, tuple(perm))
    return y, frozenset(named)


def assemble(val, vma, spec, axes: Sequence):
    """A compact per-device value as the global array its out_spec describes: blocks
    concatenated along the dimensions the spec names (a value invariant over a named axis
    is repeated along it)."""
    sizes = dict(axes)
    k = len(vma)
    block = np.shape(val)[k:]
    per_dim = spec_axes(spec, len(block))
    named = {n for names in per_dim for n in names}
    order = [n for n, _ in axes if n in vma or n in named]
    if any(n not in vma for n in order):  # repeat along named axes it does not vary over
        lead = [sizes[n] for n in order]
        where = [order.index(n) for n, _ in axes if n in vma]
        val = shapes.broadcast_in_dim(val, (*lead, *block),
                                      (*where, *range(len(lead), len(lead) + len(block))))
    perm, out_shape = [], []
    for d, names in enumerate(per_dim):
        perm += [order.index(n) for n in names] + [len(order) + d]
        out_shape.append(block[d] * int(np.prod([sizes[n] for n in names])))
    if perm != list(range(len(perm))):
        val = shapes.transpose(val, tuple(perm))
    if tuple(np.shape(val)) != tuple(out_shape):
        val = shapes.reshape(val, tuple(out_shape))
    return val
