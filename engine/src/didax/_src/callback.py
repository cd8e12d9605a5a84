"""Host callbacks: `pure_callback`, `io_callback` (ordered or not), and the debug callbacks
behind `didax.debug.callback` / `didax.debug.print`.

Eagerly the Python function is simply called. Under jit it becomes a typed-FFI custom call
(`xla_ffi_python_cpu_callback`) into Python; results are validated in Python before they
reach XLA (a wrong shape would corrupt memory). Ordered effects thread a token through the
program so they run in program order. Each primitive declares all its rules here: JAX's
errors under differentiation, vmap per `vmap_method` (sequential / expand_dims /
broadcast_all), per-example debug callbacks, and DCE (an unused pure_callback disappears;
io and debug callbacks never do).

May import core, dtypes, the interpreters, lax._define, tree_util, api_util.
"""

from __future__ import annotations

import contextlib
import string
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes
from didax._src.array import Array
from didax._src.core import ShapedArray, Tracer
from didax._src.interpreters import batching, lowering
from didax._src.interpreters import partial_eval as pe
from didax._src.lax._define import def_primitive, unsupported
from didax._src.tree_util import tree_flatten, tree_unflatten

# ----------------------------------------------------------------------------------------
# Effects
# ----------------------------------------------------------------------------------------


class Effect:
    __slots__ = ()
    ordered = False
    name = "Effect"

    def __repr__(self):
        return self.name


class _IOEffect(Effect):
    name = "IO"


class _OrderedIOEffect(Effect):
    ordered = True
    name = "OrderedIO"


class _DebugEffect(Effect):
    name = "Debug"


class _OrderedDebugEffect(Effect):
    ordered = True
    name = "OrderedDebug"


io_effect, ordered_io_effect = _IOEffect(), _OrderedIOEffect()
debug_effect, ordered_debug_effect = _DebugEffect(), _OrderedDebugEffect()


def has_ordered_effects(jaxpr) -> bool:
    return any(getattr(e, "ordered", False) for e in jaxpr.effects)


# ----------------------------------------------------------------------------------------
# Calling into Python with checked results
# ----------------------------------------------------------------------------------------


class _Muted(threading.local):
    depth = 0


_muted = _Muted()


@contextlib.contextmanager
def muted():
    """While active (in this thread), impure callbacks do not reach the user's function:
    debug callbacks do nothing and io_callbacks return zeros. The playground's recorder
    re-evaluates programs under it, so a recorded call's effects happen once."""
    _muted.depth += 1
    try:
        yield
    finally:
        _muted.depth -= 1


class FlatCallback:
    """callback(*args) with pytree args/results: flat host arrays in (handed to the user as
    Arrays, as JAX does), flat checked NumPy arrays out."""

    def __init__(self, callback: Callable, in_tree, result_avals: Sequence[ShapedArray],
                 out_tree=None, impure: bool = False):
        self.callback = callback
        self.in_tree = in_tree
        self.result_avals = tuple(result_avals)
        self.out_tree = out_tree
        self.impure = impure

    def __call__(self, *flat_args):
        if self.impure and _muted.depth:
            return [np.zeros(a.shape, a.dtype) for a in self.result_avals]
        args, kwargs = tree_unflatten(self.in_tree, [_host_array(a) for a in flat_args])
        out = self.callback(*args, **kwargs)
        if self.out_tree is None:
            return []
        return _check_results(self, out)

    def __repr__(self):
        return getattr(self.callback, "__name__", repr(self.callback))

    __str__ = __repr__


def _host_array(x) -> Array:
    """An operand as the user's callback sees it: a (strongly typed) Array owning a copy —
    XLA's operand buffers are only valid during the call, and the user may keep them."""
    v = np.array(x)
    return Array(v, ShapedArray(v.shape, dtypes.canonicalize_dtype(v.dtype)))


def _check_results(cb: FlatCallback, out) -> list[np.ndarray]:
    """The callback's results as contiguous arrays of the declared types. As JAX: only the
    number of leaves must match, and each leaf's dtype is canonicalized first (a Python
    float or a float64 array is fine for a float32 result when x64 is off)."""
    leaves, _ = tree_flatten(out)
    if len(leaves) != len(cb.result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. Expected: "
                           f"{len(cb.result_avals)}, Actual: {len(leaves)}")
    results = []
    for i, (leaf, aval) in enumerate(zip(leaves, cb.result_avals)):
        arr = np.asarray(leaf)
        if arr.shape != tuple(aval.shape):
            raise RuntimeError(f"Incorrect output shape for return value #{i}: Expected: "
                               f"{tuple(aval.shape)}, Actual: {arr.shape}")
        if arr.dtype != aval.dtype:
            canonical = dtypes.canonicalize_dtype(arr.dtype)
            if canonical != aval.dtype:
                raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                   f"Expected: {aval.dtype}, Actual: {canonical}")
            arr = arr.astype(aval.dtype)
        # np.ascontiguousarray turns 0-d arrays into 1-d ones: keep the shape.
        results.append(np.ascontiguousarray(arr).reshape(arr.shape))
    return results


def _to_arrays(vals, avals):
    return [Array(np.asarray(v, a.dtype), a) for v, a in zip(vals, avals)]


def _result_avals(result_shape_dtypes):
    leaves, tree = tree_flatten(result_shape_dtypes)
    avals = []
    for leaf in leaves:
        shape = getattr(leaf, "shape", None)
        dtype = getattr(leaf, "dtype", None)
        if shape is None or dtype is None:
            raise TypeError("result_shape_dtypes must be a pytree of objects with shape and "
                            f"dtype (e.g. jax.ShapeDtypeStruct), got {leaf!r}")
        dt = np.dtype(dtype)
        if dt.itemsize == 8 and dt.kind in "iuf" or dt == np.complex128:
            if not core.x64_enabled():
                raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                                 "`jax_enable_x64` is disabled")
        avals.append(ShapedArray(tuple(shape), dtypes.canonicalize_dtype(dt)))
    return avals, tree


# ----------------------------------------------------------------------------------------
# pure_callback
# ----------------------------------------------------------------------------------------

_VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None)


def pure_callback(callback: Callable, result_shape_dtypes: Any, *args: Any,
                  sharding=None, vmap_method: str | None = None, **kwargs: Any):
    """Calls a pure Python function from (possibly staged, jitted, vmapped) code."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods "
                         f"{list(_VMAP_METHODS)}, but got: {vmap_method}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    avals, out_tree = _result_avals(result_shape_dtypes)
    cb = FlatCallback(callback, in_tree, avals, out_tree)
    outs = pure_callback_p.bind(*flat_args, callback=cb, result_avals=tuple(avals),
                                vmap_method=vmap_method)
    return tree_unflatten(out_tree, outs)


def _pure_impl(*args, callback, result_avals, vmap_method):
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)
    return _to_arrays(callback(*[np.asarray(a) for a in args]), result_avals)


def _pure_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use "
                     "callbacks while taking gradients.")


def _pure_transpose(cts, *args, **params):
    raise ValueError("Pure callbacks do not support transpose. Please use `jax.custom_vjp` "
                     "to use callbacks while taking gradients.")


def _callback_batch(prim):
    def rule(axis_data, vals, dims, *, callback, result_avals, vmap_method=None, **params):
        if prim is io_callback_p and params.get("ordered"):
            raise ValueError("Cannot `vmap` ordered IO callback.")
        if prim is pure_callback_p and vmap_method is None:
            raise NotImplementedError(
                "vmap is only supported for the pure_callback primitive when vmap_method is "
                "one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', "
                "or 'legacy_vectorized'. Got vmap_method=None.")
        size = axis_data.size
        method = vmap_method or "sequential"  # io_callback: one call per example
        b_avals = tuple(ShapedArray((size, *a.shape), a.dtype) for a in result_avals)
        if method in ("expand_dims", "broadcast_all", "legacy_vectorized"):
            vals = [_expand_or_broadcast(v, d, size, method) for v, d in zip(vals, dims)]
            # The user's function sees whole batches, so its results are checked against
            # the batched types (not the per-example ones).
            cb = (FlatCallback(callback.callback, callback.in_tree, b_avals, callback.out_tree,
                               callback.impure)
                  if isinstance(callback, FlatCallback) else _Vectorized(callback, b_avals))
        else:
            vals = [batching.bdim_at_front(v, d, size) if d is not None else v
                    for v, d in zip(vals, dims)]
            cb = _Sequential(callback, [d is not None for d in dims], size, b_avals)
        extra = dict(params)
        if prim is pure_callback_p:
            extra["vmap_method"] = vmap_method
        outs = prim.bind(*vals, callback=cb, result_avals=b_avals, **extra)
        return outs, [0] * len(outs)
    return rule


def _expand_or_broadcast(v, d, size, method):
    if d is not None:
        return batching.moveaxis(v, d, 0)
    if method == "broadcast_all":
        return batching.broadcast(v, size, 0)
    return batching.lax_ops["broadcast_in_dim"](
        v, (1, *np.shape(v)), tuple(range(1, np.ndim(v) + 1)))


class _Sequential:
    """The batched callback: one call per example, results stacked."""

    def __init__(self, callback, batched, size, b_avals):
        self.callback, self.batched, self.size = callback, batched, size
        self.result_avals = b_avals

    def __call__(self, *args):
        per_example = []
        for i in range(self.size):
            xs = [a[i] if b else a for a, b in zip(args, self.batched)]
            per_example.append(self.callback(*xs))
        if not self.result_avals:
            return []
        return [np.stack([r[k] for r in per_example]).astype(a.dtype)
                for k, a in enumerate(self.result_avals)]

    def __repr__(self):
        return repr(self.callback)


class _Vectorized:
    """The batched callback for expand_dims/broadcast_all: one call on whole batches."""

    def __init__(self, callback, b_avals):
        self.callback, self.result_avals = callback, b_avals

    def __call__(self, *args):
        outs = self.callback(*args)
        return [np.broadcast_to(np.asarray(o), a.shape).astype(a.dtype)
                for o, a in zip(outs, self.result_avals)]

    def __repr__(self):
        return repr(self.callback)


def _pure_dce(used_outputs, eqn):
    if not any(used_outputs):
        return [False] * len(eqn.invars), None
    return [True] * len(eqn.invars), eqn


pure_callback_p = def_primitive(
    "pure_callback", abstract_eval=lambda *a, result_avals, **p: list(result_avals),
    impl=None, eager_impl=_pure_impl, jvp=_pure_jvp, transpose=_pure_transpose,
    batch=None, lower=None, multiple_results=True)
batching.primitive_batchers[pure_callback_p] = _callback_batch(pure_callback_p)
pe.dce_rules[pure_callback_p] = _pure_dce


# ----------------------------------------------------------------------------------------
# io_callback
# ----------------------------------------------------------------------------------------


def io_callback(callback: Callable, result_shape_dtypes: Any, *args: Any, sharding=None,
                ordered: bool = False, **kwargs: Any):
    """Calls an impure Python function; never removed, run in order when ordered=True."""
    flat_args, in_tree = tree_flatten((args, kwargs))
    avals, out_tree = _result_avals(result_shape_dtypes)
    cb = FlatCallback(callback, in_tree, avals, out_tree, impure=True)
    outs = io_callback_p.bind(*flat_args, callback=cb, result_avals=tuple(avals),
                              ordered=bool(ordered))
    return tree_unflatten(out_tree, outs)


def _io_impl(*args, callback, result_avals, ordered):
    return _pure_impl(*args, callback=callback, result_avals=result_avals, vmap_method=None)


def _io_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


io_callback_p = def_primitive(
    "io_callback", abstract_eval=lambda *a, result_avals, **p: list(result_avals),
    impl=None, eager_impl=_io_impl, jvp=_io_jvp,
    transpose=unsupported("io_callback has no JVP, so it never appears in a linear jaxpr"),
    batch=None, lower=None, multiple_results=True)
batching.primitive_batchers[io_callback_p] = _callback_batch(io_callback_p)
pe.effects_rules[io_callback_p] = lambda ordered, **p: frozenset(
    {ordered_io_effect if ordered else io_effect})


# ----------------------------------------------------------------------------------------
# debug callbacks
# ----------------------------------------------------------------------------------------


def debug_callback(callback: Callable | None = None, *args: Any, ordered: bool = False,
                   partitioned: bool = False, **kwargs: Any):
    """Calls callback(*args, **kwargs) for its side effect (also inside jit, vmap, grad).
    The callback receives Arrays (with their weak types); non-array leaves such as strings
    or None are passed through unchanged."""
    if callback is None:
        return lambda cb, *a, **k: debug_callback(cb, *a, ordered=ordered,
                                                  partitioned=partitioned, **k)
    if not callable(callback):
        raise TypeError(f"first argument to jax.debug.callback must be callable, but got an "
                        f"object of type {type(callback)}")
    flat_args, in_tree = tree_flatten((args, kwargs))
    static, dyn = {}, []
    for i, a in enumerate(flat_args):
        try:
            core.get_aval(a)
            dyn.append(a)
        except TypeError:
            static[i] = a
    cb = _DebugCallable(callback, in_tree, static, [core.get_aval(a) for a in dyn])
    debug_callback_p.bind(*dyn, callback=cb,
                          effect=ordered_debug_effect if ordered else debug_effect,
                          partitioned=partitioned)
    return None


def _as_array(x, aval):
    """A host value handed to a callback, as an Array of aval (its weak type kept); values
    of other types (keys, tokens) and Arrays already are pass through."""
    if type(x) is Array or not (isinstance(aval, ShapedArray)
                                and isinstance(aval.dtype, np.dtype)):
        return x
    return Array(np.array(x, aval.dtype), aval)


class _DebugCallable:
    """callback(*args, **kwargs) from the dynamic leaves (host arrays, wrapped back into
    Arrays of the operands' types) and the static ones."""

    def __init__(self, callback, in_tree, static: dict, avals):
        self.callback, self.in_tree, self.static, self.avals = callback, in_tree, static, avals

    def __call__(self, *dyn):
        if _muted.depth:
            return []
        it = iter(zip(dyn, self.avals))
        leaves = []
        for i in range(self.in_tree.num_leaves):
            if i in self.static:
                leaves.append(self.static[i])
                continue
            x, aval = next(it)
            leaves.append(_as_array(x, aval))
        args, kwargs = tree_unflatten(self.in_tree, leaves)
        self.callback(*args, **kwargs)
        return []

    def strong(self) -> _DebugCallable:
        """The callable for compiled code: values come back from XLA buffers, which carry
        no weak types (as in JAX, where a jitted debug callback sees strong arrays)."""
        avals = [a.strip_weak_type() if isinstance(a, ShapedArray) else a for a in self.avals]
        return _DebugCallable(self.callback, self.in_tree, self.static, avals)

    def __repr__(self):
        return getattr(self.callback, "__name__", repr(self.callback))

    __str__ = __repr__


def _debug_impl(*args, callback, effect, partitioned):
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)
    callback(*[np.asarray(a) for a in args])
    return []


def _debug_jvp(primals, tangents, **params):
    return debug_callback_p.bind(*primals, **params), []


def _debug_batch(axis_data, vals, dims, **params):
    """One callback per example, each seeing that example's slice (as JAX does)."""
    size = axis_data.size
    for i in range(size):
        xs = [v if d is None else _index(v, d, i) for v, d in zip(vals, dims)]
        debug_callback_p.bind(*xs, **params)
    return [], []


def _index(v, d, i):
    from didax._src.lax import shapes  # noqa: PLC0415

    return shapes.index_in_dim(v, i, axis=d, keepdims=False)


debug_callback_p = def_primitive(
    "debug_callback", abstract_eval=lambda *a, **p: [], impl=None, eager_impl=_debug_impl,
    jvp=_debug_jvp, transpose=lambda cts, *args, **p: [None] * len(args), batch=_debug_batch,
    lower=None, multiple_results=True)
pe.effects_rules[debug_callback_p] = lambda effect, **p: frozenset({effect})


class _FormatChecker(string.Formatter):
    """Checks that fmt's fields resolve against the arguments (and that every argument is
    used) without formatting any value — tracers have no value yet."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused = [a for i, a in enumerate(args) if i not in used_args]
        if unused:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused}")
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused_kw:
            raise ValueError(f"Unused keyword arguments to `jax.debug.print`: {unused_kw}. "
                             "You may be passing an f-string (i.e, `f\"{x}\"`) into "
                             "`jax.debug.print` and instead should pass in a regular string.")


def debug_print(fmt: str | None = None, *args: Any, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False, **kwargs: Any):
    """Prints fmt.format(*args, **kwargs) with the runtime values (also under jit/vmap),
    with NumPy's print options as they are at the call. As in JAX: the format is checked
    at the call; when fmt does not start with a placeholder-bearing chunk the arguments
    are appended after it; `debug.print(ordered=True)(fmt, ...)` is the two-call form."""
    if fmt is None:
        if args or kwargs:
            raise TypeError("debug_print received unexpected arguments in the two-call form:"
                            f" {args=} {kwargs=}")
        return lambda f, *a, **k: debug_print(f, *a, ordered=ordered, partitioned=partitioned,
                                              skip_format_check=skip_format_check, **k)
    if not skip_format_check:
        _FormatChecker().format(fmt, *args, **kwargs)
    first = next(iter(string.Formatter().parse(fmt)), None) if fmt else None
    placeholders = first is not None and first[1] is not None
    flat_args, in_tree = tree_flatten((args, kwargs))
    static, dyn = [], []
    for i, a in enumerate(flat_args):
        try:
            core.get_aval(a)
            dyn.append(a)
        except TypeError:
            static.append((i, a))
    debug_print_p.bind(*dyn, fmt=fmt, has_placeholders=placeholders, in_tree=in_tree,
                       logging_record=None,
                       np_printoptions=tuple(np.get_printoptions().items()),
                       ordered=ordered, partitioned=partitioned, static_args=tuple(static))
    return None


def _print_values(vals, *, fmt, has_placeholders, in_tree, np_printoptions, static_args,
                  strong=False, **_):
    """Formats and writes one debug.print line from the dynamic values (host arrays or
    Arrays) and the static arguments."""
    if _muted.depth:
        return []
    static = dict(static_args)
    it = iter(vals)
    leaves = [static[i] if i in static else next(it) for i in range(in_tree.num_leaves)]
    a, k = tree_unflatten(in_tree, leaves)
    with np.printoptions(**dict(np_printoptions)):
        if has_placeholders:
            msg = fmt.format(*a, **k)
        else:
            msg = " ".join((fmt, *(str(x) for x in a)))
    sys.stdout.write(msg + "\n")
    return []


def _debug_print_impl(*args, **params):
    for a in args:
        if isinstance(a, Tracer):
            raise core.escaped_tracer_error(a)
    return _print_values([_as_array(a, core.get_aval(a)) for a in args], **params)


def _debug_print_jvp(primals, tangents, **params):
    return debug_print_p.bind(*primals, **params), []


def _debug_print_batch(axis_data, vals, dims, **params):
    """One line per example, each with that example's slices (as JAX unrolls it)."""
    for i in range(axis_data.size):
        debug_print_p.bind(*[v if d is None else _index(v, d, i) for v, d in zip(vals, dims)],
                           **params)
    return [], []


class _HostPrinter:
    """debug.print's formatting, called from compiled code with host arrays."""

    def __init__(self, params: dict, avals):
        self.params, self.avals = params, avals

    def __call__(self, *vals):
        # values come back from XLA buffers, which carry no weak types
        avals = [a.strip_weak_type() if isinstance(a, ShapedArray) else a
                 for a in self.avals]
        return _print_values([_as_array(v, a) for v, a in zip(vals, avals)], **self.params)

    def __repr__(self):
        return "_print"


def _debug_print_lower(ctx, *args, **params):
    _emit_callback(ctx, args, _HostPrinter(params, ctx.avals_in), (), params["ordered"], True)
    return []


debug_print_p = def_primitive(
    "debug_print", abstract_eval=lambda *a, **p: [], impl=None,
    eager_impl=_debug_print_impl, jvp=_debug_print_jvp,
    transpose=lambda cts, *args, **p: [None] * len(args), batch=_debug_print_batch,
    lower=None, multiple_results=True)
pe.effects_rules[debug_print_p] = lambda ordered, **p: frozenset(
    {ordered_debug_effect if ordered else debug_effect})


# ----------------------------------------------------------------------------------------
# Lowering: a typed-FFI custom call into Python
# ----------------------------------------------------------------------------------------


def _layout(aval) -> str:
    n = len(aval.shape)
    if n == 0:
        return "dense<> : tensor<0xindex>"
    dims = ", ".join(str(i) for i in reversed(range(n)))
    return f"dense<[{dims}]> : tensor<{n}xindex>"


class _HostCallable:
    """What XLA calls: NumPy arrays in, a tuple of checked arrays out (token first when
    ordered)."""

    def __init__(self, callback, ordered: bool):
        self.callback, self.ordered = callback, ordered

    def __call__(self, *args):
        if self.ordered:
            token, args = args[0], args[1:]
            return (token, *self.callback(*args))
        return tuple(self.callback(*args))


def _emit_callback(ctx, args, callback, result_avals, ordered, side_effect):
    fn = ctx.fn
    idx = ctx.module.add_callback(_HostCallable(callback, ordered))
    operands, out_avals = list(args), list(result_avals)
    if ordered:
        if ctx.tokens is None:
            raise NotImplementedError("ordered callback lowered without an effect token")
        operands = [ctx.tokens.token, *operands]
        out_avals = [core.abstract_token, *out_avals]
    op_layouts = ", ".join(_layout(o.aval) if not isinstance(o.aval, core.AbstractToken)
                           else "dense<> : tensor<0xindex>" for o in operands)
    res_layouts = ", ".join("dense<> : tensor<0xindex>" if isinstance(a, core.AbstractToken)
                            else _layout(a) for a in out_avals)
    attrs = (f'call_target_name = "xla_ffi_python_cpu_callback", backend_config = "", '
             f"has_side_effect = {'true' if side_effect else 'false'}, "
             f"mhlo.backend_config = {{index = {idx} : ui64}}, "
             f"operand_layouts = [{op_layouts}], result_layouts = [{res_layouts}]")
    outs = fn.op("stablehlo.custom_call", operands, out_avals, attrs)
    if ordered:
        ctx.tokens.token = outs[0]
        outs = outs[1:]
    return outs


def _pure_lower(ctx, *args, callback, result_avals, vmap_method):
    return _emit_callback(ctx, args, callback, result_avals, False, False)


def _io_lower(ctx, *args, callback, result_avals, ordered):
    return _emit_callback(ctx, args, callback, result_avals, ordered, True)


def _debug_lower(ctx, *args, callback, effect, partitioned):
    if isinstance(callback, _DebugCallable):
        callback = callback.strong()
    _emit_callback(ctx, args, callback, (), effect.ordered, True)
    return []


lowering.lowerings[pure_callback_p] = _pure_lower
lowering.lowerings[io_callback_p] = _io_lower
lowering.lowerings[debug_callback_p] = _debug_lower
lowering.lowerings[debug_print_p] = _debug_print_lower
