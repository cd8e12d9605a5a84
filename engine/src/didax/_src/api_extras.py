"""Smaller public APIs of the `jax` namespace built on the transformations: `checkpoint`
(`remat`) and its policies, `custom_gradient`, `linear_transpose`,
`ensure_compile_time_eval`, `named_scope`/`named_call`, `clear_caches`, and the
process/backend queries of a single-process CPU runtime.

Gaps, stated: `checkpoint` computes JAX's values and gradients but does not rematerialize
(no `checkpoint` equation is staged: the forward residuals are kept, as without it).

May import everything below the transformations layer, and api.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from didax._src import core, dtypes
from didax._src.api_util import flatten_fun_nokwargs, shaped_abstractify
from didax._src.custom_derivatives import custom_vjp
from didax._src.interpreters import ad
from didax._src.tree_util import tree_flatten, tree_unflatten

# ----------------------------------------------------------------------------------------
# checkpoint / remat
# ----------------------------------------------------------------------------------------


def checkpoint(fun: Callable, *, prevent_cse: bool = True,
               policy: Callable | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable:
    """`jax.checkpoint`: the values and derivatives of `fun` (no rematerialization: the
    residuals of the forward pass are kept, which changes memory use, not results)."""
    del prevent_cse, policy, static_argnums
    @functools.wraps(fun)
    def remat_fun(*args, **kwargs):
        return fun(*args, **kwargs)

    return remat_fun


remat = checkpoint


def _policy(*args, **kwargs) -> bool:
    """A rematerialization policy (accepted; didax keeps every residual)."""
    del args, kwargs
    return True


class checkpoint_policies:  # noqa: N801 - JAX's name
    """The names of `jax.checkpoint_policies` (each accepted by `checkpoint`)."""

    everything_saveable = staticmethod(_policy)
    nothing_saveable = staticmethod(_policy)
    dots_saveable = staticmethod(_policy)
    checkpoint_dots = staticmethod(_policy)
    dots_with_no_batch_dims_saveable = staticmethod(_policy)
    checkpoint_dots_with_no_batch_dims = staticmethod(_policy)

    @staticmethod
    def save_only_these_names(*names: str) -> Callable:
        del names
        return _policy

    @staticmethod
    def save_any_names_but_these(*names: str) -> Callable:
        del names
        return _policy

    @staticmethod
    def save_from_both_policies(a: Callable, b: Callable) -> Callable:
        del a, b
        return _policy


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
    """`jax.named_scope`: accepted (didax records no name stack)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """`jax.named_call`: fun itself (didax stages no named call)."""
    del name
    return fun


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
