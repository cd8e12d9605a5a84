"""Lowering jaxprs to StableHLO text.

A `ModuleBuilder` collects functions; a `FuncBuilder` emits operations in MLIR's generic form
(`%3 = "stablehlo.add"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>`), which the
XLA client parses directly — no Python MLIR objects on the hot path. Constants are spelled as
hex over their raw bytes, exact for every dtype (NaN, ±Inf, -0.0, bf16, complex).

Every op carries a location (interpreters/locations.py): the equation it was lowered from,
its name stack and the user's call stack, as JAX's lowering writes them.

Rule table owned here: `lowerings` (rule(ctx, *operands: Value, **params) -> Value | list);
helpers `unary`, `binary`, `broadcast_to` and `compare` build most rules.
May import core, util, dtypes, source_info, interpreters.locations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from didax._src import core, dtypes, source_info
from didax._src.core import ClosedJaxpr, Jaxpr, Literal, Primitive
from didax._src.interpreters.locations import UNKNOWN, LocTable, loc_suffix
from didax._src.source_info import EMPTY_NAME_STACK, NameStack

lowerings: dict[Primitive, Callable] = {}

_ELEM = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e4m3fnuz": "f8E4M3FNUZ", "float8_e5m2fnuz": "f8E5M2FNUZ",
    "int4": "i4", "uint4": "ui4",
}


def elem_type(dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype == dtypes.float0:
        return "i1"
    try:
        return _ELEM[dtype.name]
    except KeyError:
        raise NotImplementedError(f"no StableHLO element type for {dtype}") from None


def ir_type(aval) -> str:
    if isinstance(aval, core.AbstractToken):
        return "!stablehlo.token"
    aval = core.physical_aval(aval)  # extended dtypes (PRNG keys) lower to their data
    dims = "".join(f"{d}x" for d in aval.shape)
    return f"tensor<{dims}{elem_type(aval.dtype)}>"


def dense_attr(val, aval) -> str:
    """dense<"0x..."> : tensor<...> holding exactly the bytes of val (a splat when every
    element is bitwise equal)."""
    shape = tuple(aval.shape)
    dtype = np.dtype(aval.dtype)
    if dtype == dtypes.float0:
        val, dtype = np.zeros(shape, np.bool_), np.dtype(np.bool_)
    arr = np.ascontiguousarray(np.broadcast_to(np.asarray(val, dtype), shape))
    if arr.size > 1:
        rows = arr.reshape(arr.size).view(np.uint8).reshape(arr.size, dtype.itemsize)
        if (rows == rows[0]).all():
            arr = arr.reshape(arr.size)[:1]
    return f'dense<"0x{arr.tobytes().hex().upper()}"> : {ir_type(aval)}'


def i64_array(xs: Sequence[int]) -> str:
    return f"array<i64: {', '.join(str(int(x)) for x in xs)}>" if len(xs) else "array<i64>"


class Value:
    __slots__ = ("name", "aval")

    def __init__(self, name: str, aval):
        self.name, self.aval = name, aval

    def __repr__(self):
        return f"{self.name}:{ir_type(self.aval)}"


class ModuleBuilder:
    """A module under construction: functions plus the host callbacks they call."""

    def __init__(self, name: str = "jit_f", num_replicas: int = 1, num_partitions: int = 1,
                 locations: bool = True):
        self.name = name
        # None: no locations (single-equation modules compiled for eager evaluation, whose
        # text is their cache key whatever line called them)
        self.locs: LocTable | None = LocTable() if locations else None
        self.funcs: list[str] = []
        self.func_names: set[str] = set()
        self.host_callbacks: list[Callable] = []
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.cache: dict[Any, str] = {}
        self.ordered_effects: list = []

    def fresh_func_name(self, base: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "f"
        name, i = base, 0
        while name in self.func_names or name == "main":
            i += 1
            name = f"{base}_{i}"
        self.func_names.add(name)
        return name

    def add_callback(self, fn: Callable) -> int:
        self.host_callbacks.append(fn)
        return len(self.host_callbacks) - 1

    def text(self) -> str:
        attrs = (f"mhlo.num_partitions = {self.num_partitions} : i32, "
                 f"mhlo.num_replicas = {self.num_replicas} : i32")
        body = "\n".join(self.funcs)
        text = f"module @{self.name} attributes {{{attrs}}} {{\n{body}\n}}"
        if self.locs is None:
            return text + "\n"
        return f"{self.locs.text()}{text} loc({UNKNOWN})\n"


class FuncBuilder:
    """Emits the body of one function (or one region)."""

    def __init__(self, module: ModuleBuilder, counter: list[int] | None = None, indent=4,
                 parent: FuncBuilder | None = None):
        self.module = module
        self.lines: list[str] = []
        self.counter = counter if counter is not None else [0]
        self.indent = " " * indent
        # where emitted ops are (a location alias) and the scope equations lowered here
        # extend: (name stack, user traceback outermost first)
        self.loc: str | None = parent.loc if parent is not None else None
        # region arguments are at the bare primitive name (JAX builds regions in a cached,
        # context-free function)
        self.arg_loc: str | None = parent.arg_loc if parent is not None else None
        self.scope: tuple[NameStack, tuple] = (
            parent.scope if parent is not None else (EMPTY_NAME_STACK, ()))

    def fresh(self) -> str:
        self.counter[0] += 1
        return f"%{self.counter[0]}"

    def op(self, name: str, operands: Sequence[Value], out_avals: Sequence[Any],
           attrs: str = "", regions: Sequence[str] = ()) -> list[Value]:
        """Emits a generic-form op; returns its results."""
        ins = ", ".join(o.name for o in operands)
        in_types = ", ".join(ir_type(o.aval) for o in operands)
        out_types = [ir_type(a) for a in out_avals]
        res = self.fresh()
        if len(out_avals) == 0:
            lhs = ""
        elif len(out_avals) == 1:
            lhs = f"{res} = "
        else:
            lhs = f"{res}:{len(out_avals)} = "
        reg = f" ({', '.join(regions)})" if regions else ""
        att = f" {{{attrs}}}" if attrs else ""
        outs = out_types[0] if len(out_types) == 1 else f"({', '.join(out_types)})"
        self.lines.append(f'{self.indent}{lhs}"{name}"({ins}){reg}{att} : ({in_types}) -> {outs}'
                          f'{loc_suffix(self.loc)}')
        if len(out_avals) == 1:
            return [Value(res, out_avals[0])]
        return [Value(f"{res}#{i}", a) for i, a in enumerate(out_avals)]

    def op1(self, name, operands, out_aval, attrs="", regions=()) -> Value:
        return self.op(name, operands, [out_aval], attrs, regions)[0]

    def const(self, val, aval) -> Value:
        return self.op1("stablehlo.constant", [], aval, f"value = {dense_attr(val, aval)}")

    def region(self, arg_avals: Sequence[Any], body: Callable[[FuncBuilder, list[Value]], list[Value]]
               ) -> str:
        """A region `{ ^bb0(args): ... stablehlo.return }` built by body(builder, args)."""
        sub = FuncBuilder(self.module, self.counter, indent=len(self.indent) + 2, parent=self)
        args = [Value(sub.fresh(), a) for a in arg_avals]
        outs = body(sub, args)
        sub.op("stablehlo.return", outs, [])
        header = ", ".join(f"{a.name}: {ir_type(a.aval)}{loc_suffix(self.arg_loc)}"
                           for a in args)
        inner = "\n".join(sub.lines)
        return f"{{\n{self.indent}^bb0({header}):\n{inner}\n{self.indent}}}"


class RuleContext:
    """What a lowering rule sees besides its operands."""

    __slots__ = ("fn", "avals_in", "avals_out", "eqn", "tokens")

    def __init__(self, fn: FuncBuilder, avals_in, avals_out, eqn=None, tokens=None):
        self.fn, self.avals_in, self.avals_out, self.eqn = fn, avals_in, avals_out, eqn
        self.tokens = tokens

    @property
    def module(self) -> ModuleBuilder:
        return self.fn.module


# ----------------------------------------------------------------------------------------
# Lowering a jaxpr
# ----------------------------------------------------------------------------------------


class TokenState:
    """The current effect token of a function (threaded through ordered effects)."""

    __slots__ = ("token",)

    def __init__(self, token: Value | None):
        self.token = token


# JAX lowers these primitives without its lowering cache; their ops' ambient location
# carries an extra `primitive:` name (jax/_src/interpreters/mlir.py, jaxpr_subcomp)
UNCACHED = frozenset({"jit", "custom_jvp_call", "custom_vjp_call", "pure_callback",
                      "io_callback", "debug_callback"})


class _Scope(tuple):
    """A name stack entry made by the lowering itself (`while/body`, `branch_0_fun`)."""

    __slots__ = ()
    name = property(lambda self: self[0])
    transform = False


def lower_jaxpr_body(fn: FuncBuilder, jaxpr: Jaxpr, consts: Sequence[Any],
                     args: Sequence[Value], tokens: TokenState | None = None,
                     scope_name: str | None = None) -> list[Value]:
    """Emits jaxpr's equations into fn; returns the output values. The equations' name
    stacks and tracebacks extend fn's scope (plus `scope_name`, as JAX names the bodies of
    control flow); literals and constants are located where fn is."""
    env: dict = {}
    ambient, scope0 = fn.loc, fn.scope
    base_ns, base_tb = scope0
    if scope_name:
        base_ns = base_ns + (_Scope((scope_name,)),)

    def read(a):
        if type(a) is Literal:
            return fn.const(a.val, a.aval)
        return env[a]

    for v, c in zip(jaxpr.constvars, consts):
        aval = v.aval
        if isinstance(getattr(aval, "dtype", None), dtypes.ExtendedDType):
            c, aval = aval.dtype._rules.physical_const(c), core.physical_aval(aval)
        env[v] = fn.const(np.asarray(c) if not isinstance(c, np.ndarray) else c, aval)
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    try:
        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            _enter_eqn(fn, eqn, base_ns, base_tb)
            outs = _lower_eqn(fn, eqn, ins, tokens)
            fn.loc = ambient
            for v, o in zip(eqn.outvars, outs):
                env[v] = o
    finally:
        fn.loc, fn.scope = ambient, scope0
    return [read(a) for a in jaxpr.outvars]


def _enter_eqn(fn: FuncBuilder, eqn, base_ns: NameStack, base_tb: tuple) -> None:
    """Sets fn's location and scope to eqn's."""
    info = eqn.source_info
    ns = base_ns + info.name_stack if info is not None else base_ns
    tb = base_tb + info.traceback if info is not None else base_tb
    fn.scope = (ns, tb)
    locs = fn.module.locs
    if locs is not None:
        prefix = f"{eqn.primitive.name}:" if eqn.primitive.name in UNCACHED else ""
        fn.loc = locs.eqn(eqn, ns, tb, prefix)
        fn.arg_loc = locs.named(eqn.primitive.name, None)


def _lower_eqn(fn: FuncBuilder, eqn, ins: list, tokens) -> list:
    rule = lowerings.get(eqn.primitive)
    if rule is None:
        raise NotImplementedError(f"MLIR translation rule for primitive '{eqn.primitive}' "
                                  "not found for platform cpu")
    ctx = RuleContext(fn, [a.aval for a in eqn.invars], [v.aval for v in eqn.outvars],
                      eqn, tokens)
    outs = rule(ctx, *ins, **eqn.params)
    return outs if eqn.primitive.multiple_results else [outs]


def named_loc(fn: FuncBuilder, name: str, eqn=None) -> str | None:
    """A location named `name` under fn's name stack, at fn's traceback (the call op of a
    nested jit is at `jit(f)/jit(h)`), recorded as eqn's when given."""
    locs = fn.module.locs
    if locs is None:
        return None
    ns, tb = fn.scope
    prefix = str(ns)
    loc = locs.named(f"{prefix}/{name}" if prefix else name, locs.callsite(tb))
    if eqn is not None:
        locs.eqns.setdefault(loc, []).append(eqn)
    return loc


def lower_function(module: ModuleBuilder, name: str, closed: ClosedJaxpr, public=False,
                   token_in: bool = False, result_infos: Sequence[str] | None = None,
                   arg_names: Sequence[str] | None = None, fun_name: str | None = None,
                   op_loc: str | None = None) -> str:
    """Emits closed as `func.func @name`; returns the symbol name actually used.

    token_in: the function threads an effect token for ordered effects — a private function
    takes and returns it; the public entry creates its own (with a synchronous client,
    successive executions are already ordered, so only the order within one program needs
    the token). Locations (as JAX's): the public entry's scope is `jit(fun_name)` at the
    lowering call's traceback and its arguments are named `arg_names`; a private function
    starts an empty scope (it may have many callers) and the func op is at `op_loc`."""
    jaxpr = closed.jaxpr
    # The function takes its place (and name) before its body is lowered, so a module
    # lists main first and then callees in call order, as JAX prints it.
    sym = "main" if public else module.fresh_func_name(name)
    slot = len(module.funcs)
    module.funcs.append("")
    fn = FuncBuilder(module)
    _function_scope(fn, public, fun_name or name)
    arg_avals = [v.aval for v in jaxpr.invars]
    args = [Value(f"%arg{i}", a) for i, a in enumerate(arg_avals)]
    tokens = None
    if token_in:
        tok = (fn.op1("stablehlo.after_all", [], core.abstract_token) if public
               else Value("%argtok", core.abstract_token))
        tokens = TokenState(tok)
    outs = lower_jaxpr_body(fn, jaxpr, closed.consts, args, tokens)
    params = [f"{a.name}: {ir_type(a.aval)}{_arg_loc(module, arg_names, i, public)}"
              for i, a in enumerate(args)]
    if token_in and not public:
        outs = [tokens.token, *outs]
        params.insert(0, f"%argtok: !stablehlo.token{_arg_loc(module, None, 0, False)}")
    fn.op("func.return", outs, [])
    vis = "public" if public else "private"
    body = "\n".join(fn.lines)
    func_loc = "" if module.locs is None else loc_suffix(op_loc or UNKNOWN)
    module.funcs[slot] = (
        f"  func.func {vis} @{sym}({', '.join(params)}) -> ({_results(outs, result_infos)}) "
        f"{{\n{body}\n  }}{func_loc}")
    return sym


def _results(outs: list[Value], result_infos) -> str:
    if result_infos is not None and len(result_infos) == len(outs):
        return ", ".join(f'{ir_type(o.aval)} {{jax.result_info = "{info}"}}'
                         for o, info in zip(outs, result_infos))
    return ", ".join(ir_type(o.aval) for o in outs)


def _function_scope(fn: FuncBuilder, public: bool, fun_name: str) -> None:
    locs = fn.module.locs
    if locs is None:
        return
    if public:
        ns = NameStack((_Scope((f"jit({fun_name})",)),))
        fn.scope = (ns, source_info.current_traceback(2))
    fn.loc = locs.scope(*fn.scope)


def _arg_loc(module: ModuleBuilder, arg_names, i: int, public: bool) -> str:
    named = public and arg_names is not None and i < len(arg_names) and arg_names[i]
    if module.locs is None:  # (an exported module still names its arguments, as JAX's)
        return f" loc({_quoted(arg_names[i])})" if named else ""
    return loc_suffix(module.locs.named(arg_names[i], None) if named else UNKNOWN)


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lower_jaxpr_to_module(closed: ClosedJaxpr, name: str = "jit_f", ordered_effects=False,
                          num_replicas: int = 1,
                          result_infos: Sequence[str] | None = None,
                          arg_names: Sequence[str] | None = None,
                          fun_name: str | None = None,
                          locations: bool = True) -> ModuleBuilder:
    """result_infos: per output, JAX's `jax.result_info` path (`result`, `result[0]`);
    arg_names: per input, JAX's argument name (its location); fun_name: the function's
    name in the name stack (`jit(fun_name)/...`)."""
    module = ModuleBuilder(name, num_replicas=num_replicas, locations=locations)
    if fun_name is None:
        fun_name = name[4:] if name.startswith("jit_") else name
    lower_function(module, "main", closed, public=True, token_in=ordered_effects,
                   result_infos=result_infos, arg_names=arg_names, fun_name=fun_name)
    return module


def lower_function_once(module: ModuleBuilder, key: tuple, name: str, closed: ClosedJaxpr,
                        **kwargs) -> str:
    """lower_function(module, name, closed, **kwargs) the first time `key` (naming closed
    by identity) is seen in this module; the symbol emitted then, afterwards. closed is kept
    alive with the module, so its id is not reused while the key is cached."""
    sym = module.cache.get(key)
    if sym is None:
        sym = module.cache[key] = lower_function(module, name, closed, **kwargs)
        module.cache[("keep", id(closed))] = closed
    return sym


def call_function(ctx: RuleContext, sym: str, args: Sequence[Value], out_avals) -> list[Value]:
    return ctx.fn.op("func.call", args, out_avals, f"callee = @{sym}")


# ----------------------------------------------------------------------------------------
# Rule helpers
# ----------------------------------------------------------------------------------------


def broadcast_to(fn: FuncBuilder, x: Value, aval) -> Value:
    """Broadcasts x (rank 0, or same rank with size-1 dims) to aval's shape."""
    if tuple(x.aval.shape) == tuple(aval.shape):
        return x
    shape = aval.shape
    if len(x.aval.shape) == 0:
        dims: tuple = ()
    else:
        dims = tuple(range(len(shape)))
        squeeze = [i for i, (a, b) in enumerate(zip(x.aval.shape, shape)) if a != b]
        del squeeze
    out = core.ShapedArray(shape, x.aval.dtype)
    return fn.op1("stablehlo.broadcast_in_dim", [x], out,
                  f"broadcast_dimensions = {i64_array(dims)}")


def _same_shape(fn, ins, out_aval):
    return [broadcast_to(fn, x, core.ShapedArray(out_aval.shape, x.aval.dtype)) for x in ins]


def unary(opname: str) -> Callable:
    def rule(ctx, x, **params):
        return ctx.fn.op1(opname, [x], ctx.avals_out[0])
    return rule


def binary(opname: str) -> Callable:
    def rule(ctx, *xs, **params):
        out = ctx.avals_out[0]
        return ctx.fn.op1(opname, _same_shape(ctx.fn, xs, out), out)
    return rule


def nary(opname: str) -> Callable:
    return binary(opname)


def compare_type(dtype) -> str:
    dtype = np.dtype(dtype)
    if dtypes.is_float(dtype) or dtypes.is_complex(dtype):
        return "FLOAT"
    if dtypes.is_unsigned(dtype) or dtype == np.bool_:
        return "UNSIGNED"
    return "SIGNED"


def compare_op(fn: FuncBuilder, x: Value, y: Value, direction: str, out_aval=None,
               ctype: str | None = None) -> Value:
    if out_aval is None:
        out_aval = core.ShapedArray(np.broadcast_shapes(x.aval.shape, y.aval.shape), np.bool_)
    x, y = _same_shape(fn, [x, y], out_aval)
    ctype = ctype or compare_type(x.aval.dtype)
    attrs = (f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
             f"compare_type = #stablehlo<comparison_type {ctype}>")
    return fn.op1("stablehlo.compare", [x, y], out_aval, attrs)


def compare(direction: str) -> Callable:
    def rule(ctx, x, y, **params):
        return compare_op(ctx.fn, x, y, direction, ctx.avals_out[0])
    return rule


def convert(fn: FuncBuilder, x: Value, dtype) -> Value:
    if np.dtype(x.aval.dtype) == np.dtype(dtype):
        return x
    return fn.op1("stablehlo.convert", [x], core.ShapedArray(x.aval.shape, dtype))


def full_like(fn: FuncBuilder, value, aval) -> Value:
    """A constant filling aval (a splat)."""
    return fn.const(np.asarray(value, aval.dtype), aval)


def reducer_region(fn: FuncBuilder, opname: str, dtype) -> str:
    scalar = core.ShapedArray((), dtype)
    return fn.region([scalar, scalar],
                     lambda b, args: [b.op1(opname, args, scalar)])


def reduce(fn: FuncBuilder, x: Value, init: Value, axes: Sequence[int], opname: str,
           out_aval) -> Value:
    region = reducer_region(fn, opname, x.aval.dtype)
    return fn.op1("stablehlo.reduce", [x, init], out_aval,
                  f"dimensions = {i64_array(axes)}", [region])


def not_lowerable(why: str) -> Callable:
    def rule(ctx, *args, **params):
        raise NotImplementedError(why)
    return rule
