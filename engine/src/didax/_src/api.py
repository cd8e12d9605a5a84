"""The user-facing transformations, with JAX's signatures, semantics and error messages:
jvp, linearize, vjp, grad, value_and_grad, jacfwd, jacrev, hessian, vmap, make_jaxpr and
eval_shape. Each flattens pytrees, runs the matching interpreter, and unflattens.

May import everything below it (core, interpreters, lax, tree_util, api_util).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes, sharding, source_info
from didax._src.api_util import (
    ShapeDtypeStruct,
    argnums_partial,
    check_argnums,
    check_callable,
    debug_arg_names,
    ensure_index_tuple,
    flatten_fun,
    flatten_fun_nokwargs,
    shaped_abstractify,
)
from didax._src.array import Array
from didax._src.interpreters import ad, batching, tape
from didax._src.interpreters import partial_eval as pe
from didax._src.interpreters.ad import Zero
from didax._src.lax import lax, shapes
from didax._src.lax import lax as _lax
from didax._src.lax.sharding_constraint import sharding_constraint_p

# Hooks the playground's recorder installs to observe transformation calls:
# hook(kind, fun, transformed, args, kwargs, transform_args, transform_kwargs) -> result
from didax._src.pjit import _call_hooks as call_hooks  # noqa: E402 - one shared list
from didax._src.pjit import jit as jit  # noqa: E402, F401 - jax._src.api.jit
from didax._src.tree_util import (
    broadcast_prefix,
    tree_flatten,
    tree_map,
    tree_structure,
    tree_transpose,
    tree_unflatten,
)
from didax._src.util import fun_name
from didax._src.vjp_fun import VJP


def _recorded(kind: str):
    """Lets the playground's recorder observe calls of the transformed function: when a
    hook is installed, it runs the call (and may record a trace card)."""

    def deco(make):
        @functools.wraps(make)
        def transform(fun, *t_args, **t_kwargs):
            wrapped = make(fun, *t_args, **t_kwargs)

            @functools.wraps(wrapped)
            def call(*args, **kwargs):
                if call_hooks:
                    return call_hooks[-1](kind, fun, wrapped, args, kwargs, t_args, t_kwargs)
                return wrapped(*args, **kwargs)

            call.__wrapped_transform__ = wrapped
            return call
        transform.__wrapped__ = make
        return transform
    return deco


def _recorded_direct(kind: str):
    """For transformations applied directly (jvp, vjp, linearize): the recorder hook sees
    the function and its primal arguments."""

    def deco(impl):
        @functools.wraps(impl)
        def call(fun, *args, **kwargs):
            if not call_hooks:
                return impl(fun, *args, **kwargs)
            primals = tuple(args[0]) if kind == "jvp" else args
            t_kwargs = {"has_aux": bool(kwargs.get("has_aux", False))}
            if kind == "jvp" and len(args) > 1:
                t_kwargs["tangents"] = tuple(args[1])  # the card shows these tangents
            return call_hooks[-1](kind, fun, lambda *_a, **_k: impl(fun, *args, **kwargs),
                                  primals, {}, (), t_kwargs)
        return call
    return deco


def _to_array(x):
    """Outputs of transformations are Arrays (never bare NumPy values)."""
    if isinstance(x, (Array, core.Tracer)):
        return x
    if isinstance(x, np.ndarray) and x.dtype == dtypes.float0:
        return x
    if isinstance(x, (np.ndarray, np.generic)) or type(x) in (bool, int, float, complex):
        aval = core.get_aval(x)  # a Python scalar becomes a weakly typed Array
        return Array(np.asarray(x, aval.dtype), aval)
    return x


# ----------------------------------------------------------------------------------------
# jvp / linearize / vjp
# ----------------------------------------------------------------------------------------


def _check_jvp_args(primals, tangents):
    for p, t in zip(primals, tangents):
        pa = core.get_aval(p)
        if isinstance(t, np.ndarray) and t.dtype == dtypes.float0:
            ta = core.ShapedArray(t.shape, t.dtype)
        else:
            ta = core.get_aval(t)
        expected = pa.to_tangent_aval().dtype
        if ta.dtype != expected:
            raise TypeError(
                "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, "
                "or in case of int/bool primal dtype the tangent dtype must be float0."
                f"Got primal dtype {pa.dtype.name} and so expected tangent dtype "
                f"{expected.name}, but got tangent dtype {ta.dtype.name} instead.")
        if pa.shape != ta.shape:
            raise ValueError("jvp called with different primal and tangent shapes;"
                             f"Got primal shape {pa.shape} and tangent shape as {ta.shape}")


@_recorded_direct("jvp")
def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Forward-mode: (fun(*primals), the directional derivative along tangents)."""
    check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; "
                        f"found {type(primals).__name__} and {type(tangents).__name__}.")
    flat_p, tree_p = tree_flatten(tuple(primals))
    flat_t, tree_t = tree_flatten(tuple(tangents))
    if tree_p != tree_t:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {tree_p} whereas tangents "
                        f"have tree structure {tree_t}.")
    _check_jvp_args(flat_p, flat_t)
    aux_cell: dict = {}
    flat_fun, store = flatten_fun_nokwargs(_without_aux(fun, aux_cell) if has_aux else fun,
                                           tree_p)
    flat_t = [Zero(core.get_aval(p).to_tangent_aval())
              if isinstance(t, np.ndarray) and t.dtype == dtypes.float0 else t
              for p, t in zip(flat_p, flat_t)]
    with _transform("jvp", fun):
        p_out, t_out = ad.jvp_flat(flat_fun, flat_p, flat_t)
    out_tree = store["out_tree"]
    p_out = [_to_array(x) for x in p_out]
    t_out = [_to_array(x) for x in t_out]
    p_tree, t_tree = tree_unflatten(out_tree, p_out), tree_unflatten(out_tree, t_out)
    return (p_tree, t_tree, aux_cell["aux"]) if has_aux else (p_tree, t_tree)


@_recorded_direct("linearize")
def linearize(fun: Callable, *primals, has_aux: bool = False):
    """(fun(*primals), f_jvp) where f_jvp evaluates the linearized function."""
    check_callable(fun)
    flat_p, in_tree = tree_flatten(primals)
    aux_cell: dict = {}
    flat_fun, store = flatten_fun_nokwargs(_without_aux(fun, aux_cell) if has_aux else fun,
                                           in_tree)
    prefix = len(source_info.current_name_stack())
    with _transform("jvp", fun):
        p_out, lin, out_zeros, _ = ad.linearize_flat(flat_fun, flat_p, prefix)
    out_tree = store["out_tree"]
    p_out = [_to_array(x) for x in p_out]
    out_avals = [core.get_aval(p).to_tangent_aval() for p in p_out]

    def f_jvp(*tangents):
        flat_t, t_tree = tree_flatten(tangents)
        if t_tree != in_tree:
            raise TypeError(f"linearized function called on tangent values inconsistent with "
                            f"the original primal values: {t_tree} vs {in_tree}")
        nz = core.eval_jaxpr(lin.jaxpr, lin.consts, *flat_t)
        it = iter(nz)
        outs = [ad.zeros_like_aval(a) if z else next(it) for a, z in zip(out_avals, out_zeros)]
        return tree_unflatten(out_tree, [_to_array(o) for o in outs])

    out = tree_unflatten(out_tree, p_out)
    return (out, f_jvp, aux_cell["aux"]) if has_aux else (out, f_jvp)


def _transform(name: str, fun_or_label):
    """The name stack entry of a transformation (as JAX's `transform_name_stack`) while
    something may be staged; nothing is recorded for eager evaluation, so none is made."""
    if core.trace_ctx.trace is core.eval_trace:
        return contextlib.nullcontext()
    label = fun_or_label if isinstance(fun_or_label, str) else fun_name(fun_or_label)
    return source_info.transform_name_stack(name, label)


def _without_aux(fun, cell: dict):
    """fun returning (out, aux) as a function returning out; aux (any pytree, its arrays
    taken as the primal values of the transformation's tracers) lands in cell["aux"]."""
    def f(*args):
        out = fun(*args)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("has_aux=True requires the function to return a pair (out, aux).")
        trace = core.trace_ctx.trace
        cell["aux"] = tree_map(lambda x: _primal_of(trace, x), out[1])
        return out[0]
    return f


def _primal_of(trace, x):
    if isinstance(trace, ad.JVPTrace) and isinstance(x, ad.JVPTracer):
        x = trace.to_primal_tangent(x)[0]
    elif type(x) is tape.TapeTracer and x._trace is trace:
        x = x.primal
    return _to_array(x) if isinstance(x, (np.ndarray, np.generic)) else x


def _vjp_flat(flat_fun, flat_p, use_tape: bool = True, label: str = ""):
    # Eagerly (no enclosing trace) grad's forward pass records a tape; under any trace, and
    # for `vjp` (whose pullback is a pytree of JAX's residuals), linearize + transpose stage
    # the derivative as JAX does (name stacks `jvp`, then `transpose(jvp)` for the backward
    # pass's equations).
    if use_tape and core.trace_ctx.trace is core.eval_trace:
        p_out, f_vjp = tape.vjp_flat(flat_fun, flat_p)
        residuals = list(flat_p)
    else:
        prefix = len(source_info.current_name_stack())
        with _transform("jvp", label):
            p_out, f_vjp, lin = ad.vjp_flat(flat_fun, flat_p, prefix)
        residuals = [*flat_p, *lin.consts]
    in_avals = [core.get_aval(p) for p in flat_p]

    def pullback(cts):
        with _transform("transpose", label):
            cts_in = f_vjp(cts)
        return [_instantiate_ct(c, a) for c, a in zip(cts_in, in_avals)]

    # As a pytree the pullback's leaves are its residuals: inputs first, then the others in
    # the order the forward pass made them (as JAX orders them).
    pullback.residual_order = residuals
    return p_out, pullback


def _instantiate_ct(ct, aval):
    if type(ct) is Zero:
        if not dtypes.is_inexact(aval.dtype):
            return np.zeros(aval.shape, dtypes.float0)
        return ad.zeros_like_aval(aval.to_tangent_aval())
    return ct


@_recorded_direct("vjp")
def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
    """(fun(*primals), pullback[, aux]) — reverse mode via linearize + transpose."""
    check_callable(fun)
    flat_p, in_tree = tree_flatten(primals)
    aux_cell: dict = {}
    flat_fun, store = flatten_fun_nokwargs(_without_aux(fun, aux_cell) if has_aux else fun,
                                           in_tree)
    p_out, pullback = _vjp_flat(flat_fun, flat_p, use_tape=False, label=fun_name(fun))
    out_tree = store["out_tree"]
    p_out = [_to_array(x) for x in p_out]
    out_avals = [core.get_aval(p).to_tangent_aval() for p in p_out]
    f = VJP(pullback, in_tree, out_tree, out_avals, fun_name(fun), _to_array, flat_p)
    out = tree_unflatten(out_tree, p_out)
    return (out, f, aux_cell["aux"]) if has_aux else (out, f)


# ----------------------------------------------------------------------------------------
# grad / value_and_grad
# ----------------------------------------------------------------------------------------


def _check_input_dtype_grad(holomorphic: bool, allow_int: bool, x, name="grad") -> None:
    aval = core.get_aval(x)
    dt = aval.dtype
    if holomorphic and not dtypes.is_complex(dt):
        raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                        f"but got {dt.name}.")
    if dtypes.is_inexact(dt) or dt == dtypes.float0:
        return
    if not allow_int:
        raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that is "
                        f"a sub-dtype of np.inexact), but got {dt.name}. If you want to use "
                        "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")


def _check_output_dtype_grad(holomorphic: bool, x, name="grad") -> None:
    dt = core.get_aval(x).dtype
    if holomorphic:
        if not dtypes.is_complex(dt):
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex "
                            f"dtype, but got {dt.name}.")
        return
    if dtypes.is_complex(dt):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {dt.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex outputs, use jax.vjp "
                        "directly.")
    if not dtypes.is_float(dt):
        raise TypeError(f"{name} requires real-valued outputs (output dtype that is a sub-dtype "
                        f"of np.floating), but got {dt.name}. For differentiation of "
                        "functions with integer outputs, use jax.vjp directly.")


def _check_scalar(x) -> None:
    try:
        aval = core.get_aval(x)
    except TypeError as e:
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {x}."
                        ) from e
    if aval.shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had "
                        f"shape: {aval.shape}.")


@_recorded("value_and_grad")
def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False, allow_int: bool = False, reduce_axes=()):
    """A function returning (fun(*args), gradient of fun w.r.t. args[argnums])."""
    check_callable(fun)
    argnums_t = ensure_index_tuple(argnums)

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        dyn = check_argnums("grad", argnums_t, len(args))
        f_partial, dyn_args = argnums_partial(lambda *a: fun(*a, **kwargs), dyn, args)
        flat_p, in_tree = tree_flatten(dyn_args)
        for leaf in flat_p:
            _check_input_dtype_grad(holomorphic, allow_int, leaf)
        aux_cell: dict = {}
        flat_fun, store = flatten_fun_nokwargs(
            _without_aux(f_partial, aux_cell) if has_aux else f_partial, in_tree)
        p_out, pullback = _vjp_flat(flat_fun, flat_p, label=fun_name(fun))
        ans = tree_unflatten(store["out_tree"], [_to_array(x) for x in p_out])
        _check_scalar(ans)
        _check_output_dtype_grad(holomorphic, ans)
        # The seed cotangent is ones *like ans*, weak type included (as JAX), so the
        # gradient of a weakly typed function of Python scalars stays weakly typed.
        ans_aval = core.get_aval(ans)
        ct = _lax.host_constant(1, ans_aval.dtype, ans_aval.weak_type)
        g = tree_unflatten(in_tree, [_to_array(c) for c in pullback([ct])])
        g = g[0] if isinstance(argnums, int) else g
        return ((ans, aux_cell["aux"]), g) if has_aux else (ans, g)

    return value_and_grad_f


@_recorded("grad")
def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes=()):
    """The gradient of scalar-valued fun w.r.t. args[argnums]."""
    vg = value_and_grad.__wrapped__(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]

    return grad_f


# ----------------------------------------------------------------------------------------
# Jacobians and Hessians
# ----------------------------------------------------------------------------------------


def _std_basis(leaves):
    """The standard basis of the leaves' combined space: an identity matrix (staged with
    lax ops like jnp.eye), split per leaf along axis 1 — JAX's construction, so the
    Jacobian jaxprs match JAX's."""
    from didax._src.numpy import lax_numpy  # noqa: PLC0415 - the api layer sits above numpy

    n = sum(int(np.size(x)) for x in leaves)
    dtype = dtypes.canonicalize_dtype(dtypes.result_type(*leaves)) if leaves else np.float32
    return _unravel_into(leaves, 1, None, lax_numpy.eye(n, dtype=dtype), force=True)


def _unravel_into(leaves, axis, example, arr, force=False):
    """Splits arr's `axis` into one piece per leaf, shaped like the leaf along that axis
    and cast to the dtype/weak type of `example` (or of the leaf)."""
    axis = axis % np.ndim(arr)
    ashape = np.shape(arr)
    sizes = [int(np.size(x)) for x in leaves]
    bounds = np.concatenate([[0], np.asarray(np.cumsum(sizes[:-1]), np.int64),
                             [ashape[axis]]]).astype(np.int64)
    parts = shapes.split(arr, tuple(np.diff(bounds)), axis) if leaves else []
    out = []
    for part, leaf in zip(parts, leaves):
        shape = ashape[:axis] + np.shape(leaf) + ashape[axis + 1:]
        out.append(_downcast(shapes.reshape(part, shape),
                             leaf if example is None else example, force))
    return out


def _downcast(x, example, force):
    """x as example's dtype and weak type (the real part for a real example)."""
    aval = core.get_aval(example)
    if dtypes.is_complex(core.get_aval(x).dtype) and not dtypes.is_complex(aval.dtype):
        x = _lax.real(x)
    if force:  # JAX re-types the basis pieces unconditionally (a sharding change)
        return _lax.convert_element_type_p.bind(x, new_dtype=aval.dtype,
                                               weak_type=aval.weak_type, sharding=None)
    return _lax._convert_element_type(x, aval.dtype, aval.weak_type)


def _check_jacfwd_input(holomorphic, x):
    dt = core.get_aval(x).dtype
    if holomorphic:
        if not dtypes.is_complex(dt):
            raise TypeError("jacfwd with holomorphic=True requires inputs with complex "
                            f"dtype, but got {dt.name}.")
    elif not dtypes.is_float(dt):
        raise TypeError("jacfwd requires real-valued inputs (input dtype that is a sub-dtype "
                        f"of np.floating), but got {dt.name}. For holomorphic "
                        "differentiation, pass holomorphic=True. For differentiation of "
                        "non-holomorphic functions involving complex inputs or integer "
                        "inputs, use jax.jvp directly.")


def _check_jacfwd_output(holomorphic, y):
    dt = core.get_aval(y).dtype
    if holomorphic and not dtypes.is_complex(dt):
        raise TypeError("jacfwd with holomorphic=True requires outputs with complex dtype, "
                        f"but got {dt.name}.")


@_recorded("jacfwd")
def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False):
    """Jacobian by forward mode: vmap of jvp over the standard basis of the inputs."""
    check_callable(fun)
    argnums_t = ensure_index_tuple(argnums)

    def jacfun(*args, **kwargs):
        dyn = check_argnums("jacfwd", argnums_t, len(args))
        f_partial, dyn_args = argnums_partial(lambda *a: fun(*a, **kwargs), dyn, args)
        flat_in, in_tree = tree_flatten(dyn_args)
        for x in flat_in:
            _check_jacfwd_input(holomorphic, x)

        def pushfwd(*flat_t):
            return jvp(f_partial, dyn_args, tree_unflatten(in_tree, list(flat_t)),
                       has_aux=has_aux)
        outs = vmap(pushfwd, out_axes=(None, -1, None) if has_aux else (None, -1))(
            *_std_basis(flat_in))
        y, jac = outs[0], outs[1]
        tree_map(lambda v: _check_jacfwd_output(holomorphic, v), y)
        example = dyn_args[0] if isinstance(argnums, int) else dyn_args
        ex_leaves, ex_tree = tree_flatten(example)
        jac_tree = tree_map(lambda yl, j: tree_unflatten(
            ex_tree, _unravel_into(ex_leaves, -1, yl, j)), y, jac)
        return (jac_tree, outs[2]) if has_aux else jac_tree

    return jacfun


@_recorded("jacrev")
def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False):
    """Jacobian by reverse mode: vmap of vjp over the standard basis of the outputs."""
    check_callable(fun)
    argnums_t = ensure_index_tuple(argnums)

    def jacfun(*args, **kwargs):
        dyn = check_argnums("jacrev", argnums_t, len(args))
        f_partial, dyn_args = argnums_partial(lambda *a: fun(*a, **kwargs), dyn, args)
        for x in tree_flatten(dyn_args)[0]:
            _check_input_dtype_grad(holomorphic, allow_int, x, "jacrev")
        y, pullback, *aux = vjp(f_partial, *dyn_args, has_aux=has_aux)
        tree_map(lambda v: _check_output_dtype_grad(holomorphic, v, "jacrev"), y)
        flat_y, y_tree = tree_flatten(y)
        jac = vmap(lambda *b: pullback(tree_unflatten(y_tree, list(b))))(*_std_basis(flat_y))
        jac = jac[0] if isinstance(argnums, int) else jac
        example = dyn_args[0] if isinstance(argnums, int) else dyn_args
        jac_tree = tree_map(lambda xl, j: tree_unflatten(
            y_tree, _unravel_into(flat_y, 0, xl, j)), example, jac)
        jac_tree = tree_transpose(tree_structure(example), y_tree, jac_tree)
        return (jac_tree, *aux) if has_aux else jac_tree

    return jacfun


jacobian = jacrev


@_recorded("hessian")
def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False):
    """The Hessian: jacfwd(jacrev(fun))."""
    return jacfwd.__wrapped__(jacrev.__wrapped__(fun, argnums, has_aux=has_aux,
                                                 holomorphic=holomorphic),
                              argnums, has_aux=has_aux, holomorphic=holomorphic)




# ----------------------------------------------------------------------------------------
# vmap
# ----------------------------------------------------------------------------------------


def _mapped_axis_size(fun, flat_args, flat_axes, arg_paths, axis_size):
    sizes = {}
    for x, ax, path in zip(flat_args, flat_axes, arg_paths):
        if ax is None:
            continue
        shape = np.shape(x)
        sizes.setdefault(shape[ax], []).append((ax, path, core.get_aval(x)))
    if axis_size is not None:
        if sizes and (len(sizes) > 1 or axis_size not in sizes):
            raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped:"
                             f"\n  axis_size={axis_size} but {_sizes_msg(sizes)}")
        return axis_size
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes or "
                         "axis_size must be specified")
    if len(sizes) > 1:
        raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped:\n"
                         f"{_sizes_msg(sizes)}")
    return next(iter(sizes))


def _sizes_msg(sizes) -> str:
    lines = []
    items = list(sizes.items())
    for i, (size, occ) in enumerate(items):
        ax, path, aval = occ[0]
        name = (f"one axis had size {size}: axis {ax} of {path} of type "
                f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]")
        sep = ";" if i < len(items) - 1 else ""
        lines.append(f"  * {name}{sep}")
    return "\n".join(lines)


def _flat_axes(in_axes, args, kwargs):
    """Per flattened argument leaf: its mapped axis (or None)."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if isinstance(in_axes, (int, type(None))):
        axes_tree = (tuple(in_axes for _ in args), {k: 0 for k in kwargs})
    else:
        if not isinstance(in_axes, tuple) or len(in_axes) != len(args):
            raise ValueError(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                "the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes) if isinstance(in_axes, tuple) else 1}, "
                f"len(args)={len(args)}")
        axes_tree = (in_axes, {k: 0 for k in kwargs})
    try:
        return broadcast_prefix(axes_tree, (tuple(args), kwargs),
                                is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"vmap in_axes specification must be a tree prefix of the "
                         f"corresponding value; \n  {e}") from None


@_recorded("vmap")
def vmap(fun: Callable, in_axes: Any = 0, out_axes: Any = 0, axis_name=None,
         axis_size: int | None = None, spmd_axis_name=None):
    """Vectorizes fun over the mapped axes of its arguments."""
    check_callable(fun)
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    _check_axes_spec(in_axes, out_axes)

    @functools.wraps(fun)
    def vmap_f(*args, **kwargs):
        flat_args, in_tree = tree_flatten((args, kwargs))
        for x in flat_args:
            if not isinstance(x, core.Tracer):
                try:
                    core.get_aval(x)
                except TypeError:
                    raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX "
                                    "type") from None
        flat_axes = _flat_axes(in_axes, args, kwargs)
        flat_axes = [_canon_in_axis(ax, x) for ax, x in zip(flat_axes, flat_args)]
        paths = _arg_paths(fun, args, kwargs, in_tree)
        size = _mapped_axis_size(fun, flat_args, flat_axes, paths, axis_size)
        flat_fun, store = flatten_fun(fun, in_tree)
        data = batching.AxisData(axis_name, size, spmd_axis_name)
        with _transform("vmap", fun):
            outs, out_dims = batching.batch_flat(flat_fun, data, flat_args, flat_axes)
        out_tree = store["out_tree"]
        flat_out_axes = _flat_out_axes(out_axes, out_tree, outs)
        final = []
        for o, d, spec in zip(outs, out_dims, flat_out_axes):
            if spec is not None:
                rank = np.ndim(o) + (d is None)
                if not -rank <= spec < rank:
                    raise ValueError(f"axis {spec} is out of bounds for array of dimension "
                                     f"{rank}")
                spec = spec % rank
            if spec is None and d is not None:
                raise ValueError(f"at vmap out_axes, got axis spec None but output was "
                                 f"batched on axis {d}")
            if spec is None and d is None and not isinstance(o, (Array, core.Tracer)):
                final.append(o)  # an unmapped non-array output is returned as it is (JAX)
                continue
            final.append(_to_array(batching.matchaxis(size, d, spec, o)))
        return tree_unflatten(out_tree, final)

    return vmap_f


def _check_axes_spec(in_axes, out_axes) -> None:
    """JAX's TypeErrors for axis specs that are not ints/None (or containers of them)."""
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple of entries "
                        "corresponding to the positional arguments passed to the function, "
                        f"but got {in_axes}.")
    for name, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        leaves = tree_flatten(spec, is_leaf=lambda x: x is None)[0]
        if not all(v is None or type(v) is int for v in leaves):
            raise TypeError(f"vmap {name} must be an int, None, or (nested) container with "
                            f"those types as leaves, but got {spec}.")


def _canon_in_axis(ax, x):
    if ax is None:
        return None
    nd = np.ndim(x)
    if not -nd <= ax < nd:
        raise ValueError(f"vmap was requested to map its argument along axis {ax}, which "
                         f"implies that its rank should be at least {(ax if ax >= 0 else -ax - 1) + 1}, "
                         f"but is only {nd} (its shape is {np.shape(x)})")
    return ax % nd


def _arg_paths(fun, args, kwargs, in_tree):
    names = debug_arg_names(fun, args)
    paths = []
    for i, a in enumerate(args):
        n = len(tree_flatten(a)[0])
        base = f"argument {names[i]}" if not names[i].startswith("args[") else names[i]
        paths.extend([base] * n)
    for k, v in kwargs.items():
        paths.extend([f"argument {k}"] * len(tree_flatten(v)[0]))
    return paths


def _flat_out_axes(out_axes, out_tree, outs):
    try:
        return broadcast_prefix(out_axes, tree_unflatten(out_tree, outs),
                                is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"vmap out_axes specification must be a tree prefix of the "
                         f"corresponding value; \n  {e}") from None


# ----------------------------------------------------------------------------------------
# make_jaxpr / eval_shape
# ----------------------------------------------------------------------------------------


def _split_static(args, static_argnums):
    nargs = len(args)
    static = {(i + nargs if i < 0 else i) for i in static_argnums}
    dyn = [a for i, a in enumerate(args) if i not in static]
    return static, dyn


def trace_to_jaxpr(fun: Callable, args, kwargs, static_argnums=(), desc="make_jaxpr"):
    """(ClosedJaxpr, in_tree, out_tree) for fun traced at the avals of args."""
    static, dyn = _split_static(args, static_argnums)

    flat_args, in_tree = tree_flatten((tuple(dyn), kwargs))
    layouts = sharding.arg_layouts(flat_args) if core.has_special(flat_args) else None

    def f(*dyn_args, **kw):
        if layouts is not None:  # (shard_map in the body reads its arguments' layouts)
            sharding.note_traced_layouts(tree_flatten((dyn_args, kw))[0], layouts)
        it = iter(dyn_args)
        full = [args[i] if i in static else next(it) for i in range(len(args))]
        return fun(*full, **kw)

    in_avals = [shaped_abstractify(x) for x in flat_args]
    flat_fun, store = flatten_fun(f, in_tree)
    jaxpr, out_avals, consts = pe.trace_to_jaxpr_dynamic(flat_fun, in_avals, desc)
    return core.ClosedJaxpr(jaxpr, consts), in_tree, store["out_tree"]


@_recorded("make_jaxpr")
def make_jaxpr(fun: Callable, static_argnums: int | Sequence[int] = (), axis_env=None,
               return_shape: bool = False, abstracted_axes=None):
    """A function returning the ClosedJaxpr of fun at the given arguments' types."""
    check_callable(fun)
    static_argnums = ensure_index_tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        closed, _, out_tree = trace_to_jaxpr(fun, args, kwargs, static_argnums)
        if return_shape:
            shapes_ = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                       for a in closed.out_avals]
            return closed, tree_unflatten(out_tree, shapes_)
        return closed

    make_jaxpr_f.__name__ = f"make_jaxpr({fun_name(fun)})"
    return make_jaxpr_f


def eval_shape(fun: Callable, *args, **kwargs):
    """The ShapeDtypeStructs fun(*args, **kwargs) would return, computed by tracing."""
    check_callable(fun)
    closed, _, out_tree = trace_to_jaxpr(fun, args, kwargs, (), "eval_shape")
    shapes_ = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
               for a in closed.out_avals]
    return tree_unflatten(out_tree, shapes_)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Moves each leaf of x to the device, or lays it out by a sharding (a NamedSharding,
    a PartitionSpec over the current mesh, a SingleDeviceSharding); device may be a pytree
    prefix of x."""
    if device is None or isinstance(device, (sharding.NamedSharding, sharding.PartitionSpec,
                                             sharding.SingleDeviceSharding)) or \
            hasattr(device, "platform"):
        return tree_map(functools.partial(_put_one, device), x)
    leaves, tree = tree_flatten(x)
    devices = broadcast_prefix(device, x)
    return tree_unflatten(tree, [_put_one(d, v) for d, v in zip(devices, leaves)])


def _put_one(device, v):
    if isinstance(device, sharding.PartitionSpec):
        mesh = sharding.get_mesh()
        if mesh is None:
            raise ValueError("device_put with a PartitionSpec needs a mesh: use "
                             "jax.set_mesh(mesh) or pass a NamedSharding")
        device = sharding.NamedSharding(mesh, device)
    if isinstance(device, sharding.NamedSharding):
        if isinstance(v, core.Tracer):
            return sharding_constraint_p.bind(v, sharding=device)
        aval = core.get_aval(v)
        host = v._value if isinstance(v, Array) else _host_value(v)[0]
        return sharding.put_sharded(host, aval, device)
    if isinstance(device, sharding.SingleDeviceSharding):
        device = device._device
    if isinstance(v, core.Tracer):
        return v
    a = v if type(v) is Array else Array(*_host_value(v._value if isinstance(v, Array)
                                                       else v))
    a._device_buffer(device)
    return a


def _host_value(v):
    """A private copy of a host value (the caller may mutate theirs) and its aval."""
    aval = core.get_aval(v)
    return np.array(v, aval.dtype, copy=True), aval


def block_until_ready(x):
    """Waits for every Array leaf of x; returns x."""
    if not _block_fast(x):
        for leaf in tree_flatten(x)[0]:
            if hasattr(leaf, "block_until_ready"):
                leaf.block_until_ready()
    return x


def _block_fast(x) -> bool:
    """Blocks on Arrays nested in tuples and lists (the common results); False when x holds
    anything else. didax's CPU client is synchronous: a buffer exists only once computed,
    so an Array needs no wait at all."""
    t = type(x)
    if t is Array:
        return x._buf is not None or x._npy is not None  # (a deleted one raises)
    if t is tuple or t is list:
        for v in x:
            if not _block_fast(v):
                return False
        return True
    return False


def device_get(x):
    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) else v, x)


del lax
