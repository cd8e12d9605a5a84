"""Smaller public APIs of the `jax` namespace built on the transformations:
`saved_residuals`/`print_saved_residuals`, `fwd_and_bwd`, `custom_gradient`, `linear_transpose`,
`ensure_compile_time_eval`, `named_scope`/`named_call` (name stack scopes), `clear_caches`,
and the process/backend queries of a single-process CPU runtime.

May import everything below the transformations layer, and api.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from didax._src import ad_checkpoint, api, core, dtypes, source_info
from didax._src.api_util import (
    argnums_partial,
    check_argnums,
    check_callable,
    flatten_fun_nokwargs,
    shaped_abstractify,
)
from didax._src.core import Jaxpr, Literal, Var
from didax._src.custom_derivatives import custom_vjp
from didax._src.interpreters import ad
from didax._src.lax.select_convert import reduce_precision_p
from didax._src.pjit import jit
from didax._src.tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

# ----------------------------------------------------------------------------------------
# saved_residuals (jax.ad_checkpoint)
# ----------------------------------------------------------------------------------------


def saved_residuals(f: Callable, *args, **kwargs) -> list[tuple[Any, str]]:
    """[(aval, where it comes from)] for each value `jax.vjp(f, ...)` keeps for the
    backward pass: an argument, a constant, or the output of an equation (by name when
    `checkpoint_name` named it)."""
    leaves, in_tree = tree_flatten((args, kwargs))

    def f_(*xs):
        a, kw = tree_unflatten(in_tree, xs)
        return f(*a, **kw)

    closed, shapes = api.make_jaxpr(lambda *xs: api.vjp(f_, *xs), return_shape=True)(*leaves)
    num_res = len(tree_flatten(shapes[1])[0])
    jaxpr = closed.jaxpr
    res = jaxpr.outvars[len(jaxpr.outvars) - num_res:]
    return _describe(jaxpr, res, _arg_names(f, args, kwargs, len(leaves)))


def _describe(jaxpr: Jaxpr, res, arg_names) -> list:
    producers = {e.outvars[0]: e.invars[0] for e in jaxpr.eqns
                 if e.primitive is reduce_precision_p}  # looked through, as JAX does
    res_vars = {producers.get(v, v) for v in res if type(v) is Var}
    out = [(v.aval, "from a literal") for v in res if type(v) is Literal]
    out += [(v.aval, "from a constant") for v in jaxpr.constvars if v in res_vars]
    for i, v in enumerate(jaxpr.invars):
        if v in res_vars:
            out.append((v.aval, f"from the argument {arg_names[i]}" if arg_names[i]
                        else f"from the argument at flattened index {i}"))
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            if v not in res_vars:
                continue
            src = summarize(eqn.source_info)
            if eqn.primitive is ad_checkpoint.name_p:
                out.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
            elif eqn.primitive.name == "jit":
                out.append((v.aval, f"output of jitted function '{eqn.params['name']}' "
                                    f"from {src}"))
            else:
                out.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return out


def _arg_names(f, args, kwargs, n: int) -> list[str]:
    """Each flattened argument's name as JAX's debug info spells it (`x`, `params[0]`,
    `params['w']`, `a[1]` for the second of `*a`)."""
    try:
        bound = inspect.signature(f).bind(*args, **kwargs).arguments
        params = inspect.signature(f).parameters
    except (TypeError, ValueError):
        bound, params = {f"args[{i}]": a for i, a in enumerate(args)}, {}
        bound.update(kwargs)
    names = []
    for name, val in bound.items():
        kind = params[name].kind if name in params else None
        if kind is inspect.Parameter.VAR_POSITIONAL:
            items = [(f"{name}[{i}]", v) for i, v in enumerate(val)]
        elif kind is inspect.Parameter.VAR_KEYWORD:
            items = list(val.items())
        else:
            items = [(name, val)]
        for top, v in items:
            names += [f"{top}{keystr(p)}" for p, _ in tree_flatten_with_path(v)[0]]
    return names if len(names) == n else [""] * n


def summarize(info) -> str:
    """`file:line:column (function)` of an equation's user location, as JAX prints it."""
    if info is None or not getattr(info, "file", ""):
        return "unknown"
    col = _column(info)
    where = f"{info.file}:{info.line}" + (f":{col}" if col is not None else "")
    return f"{where} ({info.function})"  # the qualified name, as JAX (`outer.<locals>.f`)


def _column(info) -> int | None:
    tb = getattr(info, "traceback", ())
    if not tb:
        return None
    code, lasti = tb[-1][0], tb[-1][1]
    try:
        positions = list(code.co_positions())
        return positions[lasti // 2][2]
    except (IndexError, AttributeError):
        return None


def print_saved_residuals(f: Callable, *args, **kwargs) -> None:
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {src}")




# ----------------------------------------------------------------------------------------
# custom_gradient
# ----------------------------------------------------------------------------------------


def custom_gradient(fun: Callable) -> Callable:
    """`jax.custom_gradient`: fun(*args) returns (out, vjp) where vjp(ct) -> a tuple of
    cotangents, one per argument."""
    @custom_vjp
    def wrapped(*args):
        out, _ = fun(*args)
        return out

    def fwd(*args):
        out, rule = fun(*args)
        return out, _Residual(rule)

    def bwd(res, ct):
        cts = res.rule(ct)
        return tuple(cts) if isinstance(cts, (tuple, list)) else (cts,)

    wrapped.defvjp(fwd, bwd)
    return functools.wraps(fun)(lambda *args: wrapped(*args))


class _Residual:
    """The vjp closure carried from fwd to bwd as a pytree with no leaves."""

    __slots__ = ("rule",)

    def __init__(self, rule: Callable):
        self.rule = rule


def _flatten_residual(r):
    return (), r.rule


def _unflatten_residual(rule, children):
    del children
    return _Residual(rule)


def _register() -> None:
    from didax._src.tree_util import register_pytree_node  # noqa: PLC0415

    register_pytree_node(_Residual, _flatten_residual, _unflatten_residual)


_register()

# ----------------------------------------------------------------------------------------
# fwd_and_bwd
# ----------------------------------------------------------------------------------------


def fwd_and_bwd(fun: Callable, argnums: int | Sequence[int], has_aux: bool = False,
                jitted: bool = True) -> tuple[Callable, Callable]:
    """`jax.fwd_and_bwd`: fwd(*args) -> (out, f_vjp[, aux]) as `jax.vjp` of fun in the
    arguments `argnums`, and bwd(f_vjp, out_cotangent) -> their cotangents. The pullback
    is a pytree of residuals, so both can be jitted (each compiles once)."""
    check_callable(fun)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def fwd(*args):
        dyn = check_argnums("fwd_and_bwd", nums, len(args))
        f_partial, dyn_args = argnums_partial(fun, dyn, args)
        return api.vjp(f_partial, *dyn_args, has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if isinstance(argnums, int) else g

    if jitted:
        return jit(fwd), jit(bwd)
    return fwd, bwd


# ----------------------------------------------------------------------------------------
# linear_transpose
# ----------------------------------------------------------------------------------------


def linear_transpose(fun: Callable, *primals, reduce_axes=()) -> Callable:
    """`jax.linear_transpose`: the transpose of `fun`, linear in its arguments, at the
    shapes and dtypes of `primals`. The result takes the output cotangent and returns a
    tuple of input cotangents."""
    del reduce_axes
    flat, in_tree = tree_flatten(primals)
    in_avals = [shaped_abstractify(x) for x in flat]
    for a in in_avals:
        if not dtypes.is_inexact(a.dtype):
            raise TypeError("linear_transpose only supports [float or complex] -> "
                            f"[float or complex], and integer -> integer functions, but got "
                            f"{a.dtype}")
    flat_fun, store = flatten_fun_nokwargs(fun, in_tree)
    transpose_flat, out_avals = ad.linear_transpose_fn(flat_fun, in_avals)
    out_tree = store["out_tree"]

    def transposed(out_cotangent):
        flat_ct, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(f"cotangent tree does not match function output, got {ct_tree} "
                            f"but expected {out_tree}")
        for ct, a in zip(flat_ct, out_avals):
            ca = core.get_aval(ct)
            if (ca.shape, ca.dtype) != (a.shape, a.dtype):
                raise TypeError(f"cotangent type does not match function output, got "
                                f"{ca.str_short()} but expected {a.str_short()}")
        return tree_unflatten(in_tree, transpose_flat(flat_ct))

    return transposed


# ----------------------------------------------------------------------------------------
# ensure_compile_time_eval, named_scope, named_call
# ----------------------------------------------------------------------------------------


class _CompileTimeEvalTrace(core.Trace):
    """Evaluates operations on concrete values now, even under jit; operations on tracers
    go to the enclosing trace."""

    __slots__ = ()

    def __init__(self, parent: core.Trace):
        self.parent_trace = parent

    def process_primitive(self, primitive, args, params):
        if any(isinstance(a, core.Tracer) for a in args):
            return self.parent_trace.process_primitive(primitive, args, params)
        return core.eval_trace.process_primitive(primitive, args, params)

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        return self.parent_trace.process_custom_jvp_call(primitive, fun, jvp, args,
                                                         symbolic_zeros=symbolic_zeros)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        return self.parent_trace.process_custom_vjp_call(
            primitive, fun, fwd, bwd, args, out_trees=out_trees,
            symbolic_zeros=symbolic_zeros)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """`jax.ensure_compile_time_eval`: inside, operations whose inputs are all concrete run
    eagerly (giving concrete values) even while tracing for jit or make_jaxpr."""
    trace = core.current_trace()
    if trace is core.eval_trace:
        yield
        return
    with core.set_current_trace(_CompileTimeEvalTrace(trace)):
        yield


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """`jax.named_scope`: equations staged inside carry `name` on their name stack (the
    lowered ops' names, `jit(f)/name/mul`; the playground's groups)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    with source_info.extend_name_stack(name):
        yield


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`jax.named_call`: fun, whose equations carry `name` (default: fun's name) on their
    name stack, as under `named_scope` (JAX 0.10 stages no call equation either)."""
    scope = name if name is not None else getattr(fun, "__name__", "named_call")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with source_info.extend_name_stack(scope):
            return fun(*args, **kwargs)

    return named


# ----------------------------------------------------------------------------------------
# Runtime queries (one process, CPU)
# ----------------------------------------------------------------------------------------


def default_backend() -> str:
    return "cpu"


def process_index(backend: Any = None) -> int:
    del backend
    return 0


def process_count(backend: Any = None) -> int:
    del backend
    return 1


def process_indices(backend: Any = None) -> list[int]:
    del backend
    return [0]


host_id = process_index
host_count = process_count
host_ids = process_indices


def clear_caches() -> None:
    """`jax.clear_caches`: drops every traced and compiled program."""
    from didax._src import pjit  # noqa: PLC0415

    pjit._config_changed()
    pjit._compile_cache.clear()
