"""The core of didax: abstract values, primitives and `bind`, traces and tracers with a
current-trace context (omnistaging, after JAX's "stackless" core), the eval trace, and the
jaxpr IR (Var, Literal, JaxprEqn, Jaxpr, ClosedJaxpr) with its type checker, evaluator and
pretty printer.

Every interpreter lives above this module (interpreters/*); each owns its rule tables.
May import: util, source_info, errors, pretty_printer, config, dtypes, tree_util.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from didax._src import debug_nans, dtypes, source_info
from didax._src.config import config
from didax._src.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)
from didax._src.source_info import (  # noqa: F401 - re-exported: core is where they are used
    SourceInfo,
    current_source_info,
    rebind_hook,
    source_info_override,
    src_override,
    tag_context,
    tag_state,
)
from didax._src.tracer_errors import (  # noqa: F401 - part of core's API
    _long_type,
    _where_msg,
    concretization_error,
    conversion_error,
    escaped_tracer_error,
)

# ----------------------------------------------------------------------------------------
# Abstract values
# ----------------------------------------------------------------------------------------


class AbstractValue:
    __slots__ = ()

    def str_short(self, short_dtypes: bool = False) -> str:
        return str(self)


class ShapedArray(AbstractValue):
    """The type of an array: shape, dtype and whether the dtype is weak (from a Python
    scalar, so it yields to the other operand in promotion).

    ShapedArrays are interned: equal types are the same object, so hashing and equality
    are identity operations (they key every cache on the hot paths)."""

    __slots__ = ("shape", "dtype", "weak_type", "__weakref__")
    array_abstraction_level = 1
    _interned: dict = {}

    def __new__(cls, shape, dtype, weak_type: bool = False):
        table = ShapedArray._interned
        try:
            return table[(tuple(shape), dtype, weak_type)]
        except (KeyError, TypeError):
            pass
        shape = tuple(int(d) for d in shape)
        # Extended dtypes (e.g. typed PRNG keys, `key<fry>`) are kept as they are.
        dt = dtype if isinstance(dtype, (np.dtype, dtypes.ExtendedDType)) else np.dtype(dtype)
        weak = bool(weak_type)
        key = (shape, dt, weak)
        self = table.get(key)
        if self is None:
            self = object.__new__(cls)
            self.shape, self.dtype, self.weak_type = shape, dt, weak
            table[key] = self
        try:
            table[(tuple(shape), dtype, weak_type)] = self
        except TypeError:
            pass
        return self

    def __reduce__(self):
        return (ShapedArray, (self.shape, self.dtype, self.weak_type))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: _prod(self.shape))

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def to_tangent_aval(self) -> ShapedArray:
        if dtypes.is_inexact(self.dtype):
            return self  # interned: the same type
        return ShapedArray(self.shape, dtypes.float0, self.weak_type)

    def str_short(self, short_dtypes: bool = False) -> str:
        """`float32[3]` (`f32[3]` with short_dtypes, as jaxprs print it), as JAX's."""
        if short_dtypes:
            name = dtypes.short_dtype_name(self.dtype)
        else:
            name = "float0" if self.dtype == dtypes.float0 else self.dtype.name
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __repr__(self):
        w = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{w})"

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


class AbstractToken(AbstractValue):
    """The type of an effect token threaded through ordered side effects."""

    __slots__ = ()
    shape = ()
    dtype = np.dtype(np.bool_)
    weak_type = False

    def str_short(self, short_dtypes: bool = False) -> str:
        return "Tok"

    def to_tangent_aval(self):
        return self

    def __eq__(self, other):
        return isinstance(other, AbstractToken)

    def __hash__(self):
        return hash("AbstractToken")

    __str__ = __repr__ = str_short


abstract_token = AbstractToken()


class Token:
    """A runtime effect token."""

    __slots__ = ("buf",)

    def __init__(self, buf=None):
        self.buf = buf

    aval = abstract_token


token = Token()

# Value -> aval. Types with an `.aval` attribute (Array, Tracer) need no entry.
pytype_aval_mappings: dict[type, Callable[[Any], AbstractValue]] = {}


_scalar_aval_cache: dict = {}


def _python_scalar_aval(x) -> ShapedArray:
    t = type(x)
    x64 = config.x64_enabled
    aval = _scalar_aval_cache.get((t, x64))
    if aval is None:
        if t is bool:
            aval = ShapedArray((), np.bool_)
        elif t is int:
            aval = ShapedArray((), np.int64 if x64 else np.int32, True)
        elif t is float:
            aval = ShapedArray((), np.float64 if x64 else np.float32, True)
        else:
            aval = ShapedArray((), np.complex128 if x64 else np.complex64, True)
        _scalar_aval_cache[(t, x64)] = aval
    if t is int:
        info = np.iinfo(aval.dtype)
        if not info.min <= x <= info.max:
            raise OverflowError(f"Python int {x} too large to convert to {aval.dtype.name}")
    return aval


def _ndarray_aval(x) -> ShapedArray:
    return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype))


for _t in (bool, int, float, complex):
    pytype_aval_mappings[_t] = _python_scalar_aval
pytype_aval_mappings[np.ndarray] = _ndarray_aval
for _t in set(np.sctypeDict.values()):
    if isinstance(_t, type) and issubclass(_t, np.generic):
        pytype_aval_mappings[_t] = _ndarray_aval
pytype_aval_mappings[Token] = lambda x: abstract_token


class TypedScalar:
    """A Python scalar with an explicit dtype and weak flag (JAX's typed scalars): kept as
    the Python value so staged literals print as written (`0.1:f32[]`)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, dtype, weak_type: bool = False):
        self.val = val
        self.aval = ShapedArray((), dtype, weak_type)

    def __array__(self, dtype=None, copy=None):
        return host_scalar(self.val, dtype or self.aval.dtype)

    shape = ()
    ndim = 0
    dtype = property(lambda self: self.aval.dtype)
    weak_type = property(lambda self: self.aval.weak_type)

    def __repr__(self):
        # as JAX's typed literals (TypedInt/TypedFloat/TypedComplex) print
        kind = {bool: "Bool", int: "Int", float: "Float", complex: "Complex"}.get(
            type(self.val), "Scalar")
        return f"Typed{kind}({self.val!r}, dtype={self.aval.dtype.name})"

    def __str__(self):
        # JAX's TypedInt is an int subclass whose str is its repr; floats print as floats
        return repr(self) if type(self.val) is int else str(self.val)

    def __eq__(self, other):
        if type(other) is TypedScalar:
            return self.val == other.val and self.aval.dtype == other.aval.dtype
        if type(other) in (int, float, complex, bool):
            return self.val == other
        return NotImplemented

    def __hash__(self):
        return hash(self.val)

    def __bool__(self):
        return bool(self.val)

    # Arithmetic with Python numbers acts on the value, as on JAX's TypedFloat/TypedInt
    # (float/int subclasses): a custom_vjp residual that was a Python float computes.
    def __float__(self):
        return float(self.val)

    def __int__(self):
        return int(self.val)

    def __complex__(self):
        return complex(self.val)

    def __neg__(self):
        return -self.val

    def __pos__(self):
        return +self.val

    def __abs__(self):
        return abs(self.val)


def _typed_scalar_binop(name: str) -> Callable:
    op = getattr(operator, name)

    def method(self, other):
        if type(other) is TypedScalar:
            other = other.val
        if type(other) not in (int, float, complex, bool):
            return NotImplemented
        return op(self.val, other)

    def rmethod(self, other):
        if type(other) not in (int, float, complex, bool):
            return NotImplemented
        return op(other, self.val)

    return method, rmethod


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt",
              "ge"):
    _m, _r = _typed_scalar_binop(_name)
    setattr(TypedScalar, f"__{_name}__", _m)
    if _name not in ("lt", "le", "gt", "ge"):
        setattr(TypedScalar, f"__r{_name}__", _r)


def host_scalar(val, dtype) -> np.ndarray:
    """A Python scalar as a 0-d NumPy array of dtype; Python ints out of the dtype's range
    wrap around (two's complement), as JAX converts them."""
    dtype = np.dtype(dtype)
    if type(val) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= val <= info.max:
            return np.asarray(val & ((1 << 64) - 1), np.uint64).astype(dtype)
    return np.asarray(val, dtype)


def typed_scalar(x, dtype, weak_type: bool = False) -> TypedScalar:
    """Python scalar x as dtype, keeping a Python value of the dtype's kind."""
    dtype = np.dtype(dtype)
    kind = dtype.kind
    if kind == "f" or dtype.name == "bfloat16" or kind == "V":
        v = float(x)
    elif kind == "c":
        v = complex(x)
    elif kind == "b":
        v = bool(x)
    else:
        v = int(x)
    return TypedScalar(v, dtype, weak_type)


def get_aval(x) -> AbstractValue:
    """The abstract value of any array-like (Arrays and tracers carry theirs)."""
    try:
        return x.aval
    except AttributeError:
        pass
    try:
        return pytype_aval_mappings[type(x)](x)
    except KeyError:
        for t in type(x).__mro__:
            handler = pytype_aval_mappings.get(t)
            if handler is not None:
                return handler(x)
        raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type") from None


def valid_jaxtype(x) -> bool:
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


def typeof(x) -> AbstractValue:
    hook = getattr(type(x), "_typeof", None)  # (a sharded array's type shows its layout)
    return hook(x) if hook is not None else get_aval(x)


def physical_aval(aval):
    """The aval of the data behind an extended-dtype aval (a key<fry>[n] array is u32[n,2]
    underneath, per its dtype's `_rules.physical_element_aval`); other avals unchanged."""
    dt = getattr(aval, "dtype", None)
    if isinstance(dt, np.dtype) or not isinstance(dt, dtypes.ExtendedDType):
        return aval
    elem = dt._rules.physical_element_aval(dt)
    return ShapedArray((*aval.shape, *elem.shape), elem.dtype)


# ----------------------------------------------------------------------------------------
# Primitives and bind
# ----------------------------------------------------------------------------------------


class Primitive:
    """An operation the interpreters know: `bind` hands it to the current trace.

    Arrays are positional arguments; metadata (static) are keyword parameters.
    """

    # (a __dict__ too: user code may set attributes JAX's primitives have, e.g.
    # `call_primitive`)
    __slots__ = ("name", "multiple_results", "impl", "abstract_eval", "is_higher_order",
                 "__dict__")

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        # Until rules are given, using the primitive raises JAX's errors (a primitive
        # created by user code, as the "How JAX primitives work" tutorial does).
        self.impl: Callable = _missing_rule("Evaluation rule", name)
        self.abstract_eval: Callable = _missing_rule("Abstract evaluation", name)
        self.is_higher_order = False

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        return trace_ctx.trace.process_primitive(self, args, params)

    def bind_with_trace(self, trace: Trace, args, params):
        return trace.process_primitive(self, args, params)

    def def_impl(self, impl: Callable) -> Callable:
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule: Callable) -> Callable:
        self.abstract_eval = rule
        return rule

    def def_effectful_abstract_eval(self, rule: Callable) -> Callable:
        """rule(*avals, **params) -> (aval(s), effects); didax stages no user effects."""
        def abstract_eval(*avals, **params):
            return rule(*avals, **params)[0]

        self.abstract_eval = abstract_eval
        return rule


def _missing_rule(what: str, name: str) -> Callable:
    def rule(*args, **params):
        raise NotImplementedError(f"{what} for '{name}' not implemented")
    return rule


# ----------------------------------------------------------------------------------------
# Traces and tracers
# ----------------------------------------------------------------------------------------


class Trace:
    """An interpreter. `process_primitive` receives arguments that are either this trace's
    tracers or values foreign to it (constants, or tracers of enclosing traces)."""

    __slots__ = ("parent_trace", "__weakref__")

    def process_primitive(self, primitive: Primitive, args, params):
        raise NotImplementedError

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        raise NotImplementedError(f"{type(self).__name__} has no custom_jvp rule")

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        raise NotImplementedError(f"{type(self).__name__} has no custom_vjp rule")

    def __repr__(self):
        return f"{type(self).__name__}"


class TraceCtx:
    __slots__ = ("trace",)


trace_ctx = TraceCtx()


class set_current_trace:
    """Context manager making `trace` the current one (restored on exit)."""

    __slots__ = ("trace", "prev")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self):
        self.prev = trace_ctx.trace
        trace_ctx.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev
        return False


def current_trace() -> Trace:
    return trace_ctx.trace


class EvalTrace(Trace):
    """Evaluates primitives on concrete values (their `impl`)."""

    __slots__ = ()

    def __init__(self):
        self.parent_trace = None

    def process_primitive(self, primitive, args, params):
        for a in args:
            if isinstance(a, Tracer):
                raise escaped_tracer_error(a)
            if _special_eval and type(a) in _special_eval:  # (e.g. arrays over a mesh)
                return _special_eval[type(a)](primitive, args, params)
        out = primitive.impl(*args, **params)
        if debug_nans.ACTIVE[0]:
            debug_nans.check_primitive(primitive.name, out)
        return out

    def process_custom_jvp_call(self, primitive, fun, jvp, args, *, symbolic_zeros):
        del primitive, jvp, symbolic_zeros
        with set_current_trace(self):
            return fun.call_wrapped(*args)

    def process_custom_vjp_call(self, primitive, fun, fwd, bwd, args, *, out_trees,
                                symbolic_zeros):
        del primitive, fwd, bwd, out_trees, symbolic_zeros
        with set_current_trace(self):
            return fun.call_wrapped(*args)


eval_trace = EvalTrace()
trace_ctx.trace = eval_trace

# Array types whose eager operations some layer above evaluates its own way (sharded arrays:
# as SPMD programs over their mesh): type -> fn(primitive, args, params).
_special_eval: dict[type, Callable] = {}


def register_special_eval(t: type, fn: Callable) -> None:
    _special_eval[t] = fn


def has_special(args) -> bool:
    return bool(_special_eval) and any(type(a) in _special_eval for a in args)


class Tracer:
    """A value being traced by some trace. Array operators are installed on this class by
    didax.numpy (as JAX does), so user code sees an array-like object."""

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]

    @property
    def aval(self) -> AbstractValue:
        raise NotImplementedError

    def to_concrete_value(self):
        """A concrete value behind this tracer, or None when it is abstract."""
        return None

    # --- properties forwarded to the aval
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: _prod(self.aval.shape))
    weak_type = property(lambda self: self.aval.weak_type)

    def __len__(self):
        shape = self.aval.shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    def __iter__(self):
        shape = self.aval.shape
        if not shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(shape[0]))

    # --- conversions that need a concrete value
    def __bool__(self):
        return bool(_concrete_or_error(self, "bool", TracerBoolConversionError))

    def __int__(self):
        return int(_concrete_or_error(self, "int", ConcretizationTypeError))

    def __index__(self):
        return operator.index(_concrete_or_error(self, "index", TracerIntegerConversionError))

    def __float__(self):
        return float(_concrete_or_error(self, "float", ConcretizationTypeError))

    def __complex__(self):
        return complex(_concrete_or_error(self, "complex", ConcretizationTypeError))

    def __array__(self, dtype=None, copy=None):
        # As JAX's: even a tracer with a concrete value (under jvp/grad) refuses, since
        # NumPy would silently drop what is being traced of it.
        raise TracerArrayConversionError(
            f"The numpy.ndarray conversion method __array__() was called on traced "
            f"array with shape {_long_type(self.aval)}\n{_where_msg(self)}"
        )

    def item(self):
        return _concrete_or_error(self, "item", ConcretizationTypeError).item()

    def tolist(self):
        # as JAX's: a list of Python numbers would drop what is traced, concrete or not
        raise conversion_error(self, "tolist")

    def __repr__(self):
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"

    def __reduce__(self):
        raise TypeError("Tracers cannot be pickled")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def concrete_value_of(x):
    """The concrete value of x (a value or a tracer), or None."""
    if isinstance(x, Tracer):
        return x.to_concrete_value()
    return x


def _concrete_or_error(tracer: Tracer, op: str, err_cls):
    val = tracer.to_concrete_value()
    if val is not None:
        return np.asarray(val) if not isinstance(val, np.ndarray) else val
    raise conversion_error(tracer, op, err_cls)


def concrete_or_error(force: Callable | None, val, context: str = ""):
    """force(concrete value of val), raising ConcretizationTypeError when val is abstract."""
    force = force or (lambda x: x)
    if isinstance(val, Tracer):
        c = val.to_concrete_value()
        if c is None:
            raise concretization_error(val, context)
        return force(c)
    return force(val)


# ----------------------------------------------------------------------------------------
# Jaxpr IR
# ----------------------------------------------------------------------------------------


class Var:
    """A jaxpr variable; its printed name is chosen when printing."""

    __slots__ = ("aval", "__weakref__")

    def __init__(self, aval: AbstractValue):
        self.aval = aval

    def __repr__(self):
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class DropVar(Var):
    """An equation output nobody reads (printed `_`)."""

    __slots__ = ()


class Literal:
    """A constant scalar inlined in an equation (printed `2.0:f32[]`)."""

    __slots__ = ("val", "aval")

    def __init__(self, val, aval: AbstractValue):
        self.val, self.aval = val, aval

    def pretty(self) -> str:
        val = self.val
        if type(val) is TypedScalar:
            val = val.val
        if np.shape(val):
            s = "[...]"
        else:
            s = str(np.asarray(val).item())
        return f"{s}:{self.aval.str_short(short_dtypes=True)}"

    def __repr__(self):
        val = self.val
        if isinstance(val, np.ndarray) and not val.shape:
            val = val[()]
        return f"Literal({val})"


Atom = Var | Literal


class JaxprEqn:
    __slots__ = ("invars", "outvars", "primitive", "params", "effects", "source_info", "tag")

    def __init__(self, invars, outvars, primitive, params, effects, source_info_, tag=None):
        self.invars: list[Atom] = invars
        self.outvars: list[Var] = outvars
        self.primitive: Primitive = primitive
        self.params: dict[str, Any] = params
        self.effects: frozenset = effects
        self.source_info: SourceInfo | None = source_info_
        # provenance: which equation of an original program this one derives from (set
        # while transformations re-bind that equation; the playground maps stages back)
        self.tag = tag

    def replace(self, **kw) -> JaxprEqn:
        new = JaxprEqn(
            self.invars, self.outvars, self.primitive, self.params, self.effects,
            self.source_info, self.tag,
        )
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self):
        return str(pp_eqn(self, PpContext(), PpSettings())).rstrip()


def new_eqn(invars, outvars, primitive, params, effects=frozenset(), src=None) -> JaxprEqn:
    return JaxprEqn(list(invars), list(outvars), primitive, params, effects, src)


class Jaxpr:
    """A typed, first-order program: constvars; invars. let eqns in outvars."""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "effects", "debug_info",
                 "__weakref__")

    def __init__(self, constvars, invars, outvars, eqns, effects=frozenset(), debug_info=None):
        self.constvars: list[Var] = list(constvars)
        self.invars: list[Var] = list(invars)
        self.outvars: list[Atom] = list(outvars)
        self.eqns: list[JaxprEqn] = list(eqns)
        self.effects: frozenset = frozenset(effects)
        self.debug_info = debug_info

    in_avals = property(lambda self: [v.aval for v in self.invars])
    out_avals = property(lambda self: [v.aval for v in self.outvars])

    def replace(self, **kw) -> Jaxpr:
        args = dict(constvars=self.constvars, invars=self.invars, outvars=self.outvars,
                    eqns=self.eqns, effects=self.effects, debug_info=self.debug_info)
        args.update(kw)
        return Jaxpr(**args)

    def __str__(self):
        return pp_toplevel_jaxpr(self).format()

    def pretty_print(self, width: int = 80, spans: list | None = None) -> str:
        return pp_toplevel_jaxpr(self).format(width, spans)

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]):
        assert len(consts) == len(jaxpr.constvars), (len(consts), len(jaxpr.constvars))
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: [v.aval for v in self.jaxpr.invars])
    out_avals = property(lambda self: [v.aval for v in self.jaxpr.outvars])
    eqns = property(lambda self: self.jaxpr.eqns)
    effects = property(lambda self: self.jaxpr.effects)
    literals = property(lambda self: self.consts)

    def map_jaxpr(self, f: Callable[[Jaxpr], Jaxpr]) -> ClosedJaxpr:
        return ClosedJaxpr(f(self.jaxpr), self.consts)

    def replace(self, jaxpr=None, consts=None) -> ClosedJaxpr:
        return ClosedJaxpr(self.jaxpr if jaxpr is None else jaxpr,
                           self.consts if consts is None else consts)

    def __str__(self):
        return str(self.jaxpr)

    def pretty_print(self, width: int = 80, spans: list | None = None) -> str:
        return self.jaxpr.pretty_print(width, spans)

    __repr__ = __str__


def closed_jaxpr_from(jaxpr: Jaxpr) -> ClosedJaxpr:
    return ClosedJaxpr(jaxpr, ())


def jaxprs_in_params(params) -> Iterator[Jaxpr]:
    for val in params.values():
        vals = val if isinstance(val, tuple) else (val,)
        for v in vals:
            if isinstance(v, Jaxpr):
                yield v
            elif isinstance(v, ClosedJaxpr):
                yield v.jaxpr


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


# ----------------------------------------------------------------------------------------
# Evaluating jaxprs
# ----------------------------------------------------------------------------------------


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args, propagate_source_info=True):
    """Runs `jaxpr` by binding each equation under the current trace."""
    env: dict[Var, Any] = {}
    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: expected {len(jaxpr.invars)} args, got {len(args)}")
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    hook = rebind_hook.fn
    if hook is not None:
        hook(jaxpr.invars, args)
    for eqn in jaxpr.eqns:
        invals = [a.val if type(a) is Literal else env[a] for a in eqn.invars]
        if eqn.tag is not None:
            with source_info_override(eqn.source_info), tag_context(eqn.tag):
                ans = eqn.primitive.bind(*invals, **eqn.params)
        elif propagate_source_info and eqn.source_info is not None:
            with source_info_override(eqn.source_info):
                ans = eqn.primitive.bind(*invals, **eqn.params)
        elif eqn.source_info is not None and eqn.source_info.name_stack:
            # inlined: the caller's location, the equation's own name stack
            with source_info.set_name_stack(source_info._ctx.name_stack +
                                            eqn.source_info.name_stack):
                ans = eqn.primitive.bind(*invals, **eqn.params)
        else:
            ans = eqn.primitive.bind(*invals, **eqn.params)
        if eqn.primitive.multiple_results:
            for v, x in zip(eqn.outvars, ans):
                env[v] = x
        else:
            env[eqn.outvars[0]] = ans
        if hook is not None:
            hook(eqn.outvars, ans if eqn.primitive.multiple_results else [ans])
    return [a.val if type(a) is Literal else env[a] for a in jaxpr.outvars]




def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable:
    def fun(*args):
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)

    return fun


# ----------------------------------------------------------------------------------------
# Type checking
# ----------------------------------------------------------------------------------------

def typematch(a: AbstractValue, b: AbstractValue) -> bool:
    """Types equal up to weak typing."""
    if isinstance(a, AbstractToken) or isinstance(b, AbstractToken):
        return isinstance(a, AbstractToken) and isinstance(b, AbstractToken)
    return a.shape == b.shape and a.dtype == b.dtype


# ----------------------------------------------------------------------------------------
# Misc helpers used by several interpreters
# ----------------------------------------------------------------------------------------


def raise_as_much_as_possible(x):
    return x


def is_literalable(x) -> bool:
    """Constants that are inlined as Literals rather than becoming constvars."""
    t = type(x)
    if t in (int, float, bool, complex, TypedScalar):
        return True
    if isinstance(x, Tracer):
        return False
    # NumPy scalars inline; didax Arrays (even 0-d) become constvars, as JAX 0.10 keeps
    # its Arrays (closed-over values, linearize residuals) as constants.
    return isinstance(x, (np.ndarray, np.generic)) and x.shape == ()


_array_types: set[type] = set()


def _is_array(x) -> bool:
    return type(x) in _array_types


def register_array_type(t: type) -> None:
    _array_types.add(t)


def literal_value(x):
    """The value stored in a Literal for constant x: a TypedScalar for Python scalars (so
    it binds with the literal's exact type and prints as written), else a host array."""
    if type(x) is TypedScalar:
        return x
    aval = get_aval(x)
    if type(x) in (int, float, bool, complex) or aval.weak_type:
        # A weakly typed array scalar (e.g. a residual computed from Python scalars) keeps
        # its weak type when the literal is evaluated, as in JAX.
        return typed_scalar(x, aval.dtype, aval.weak_type)
    return np.asarray(x, aval.dtype)


def x64_enabled() -> bool:
    return config.x64_enabled


# The printer and the type checker need the IR classes above, so they are imported last;
# their names stay reachable as core.<name>.
from didax._src import jaxpr_check as _check  # noqa: E402
from didax._src import jaxpr_printer as _printer  # noqa: E402

check_jaxpr = _check.check_jaxpr
custom_typechecks = _check.custom_typechecks

PpContext = _printer.PpContext
PpSettings = _printer.PpSettings
_alpha_name = _printer._alpha_name
_dropvars = _printer._dropvars
_param_str = _printer._param_str
pp_eqn = _printer.pp_eqn
pp_eqn_default = _printer.pp_eqn_default
pp_eqn_rules = _printer.pp_eqn_rules
pp_eqns = _printer.pp_eqns
pp_jaxpr = _printer.pp_jaxpr
pp_jaxpr_skeleton = _printer.pp_jaxpr_skeleton
pp_jaxprs = _printer.pp_jaxprs
pp_kv_pair = _printer.pp_kv_pair
pp_kv_pairs = _printer.pp_kv_pairs
pp_params_rules = _printer.pp_params_rules
pp_toplevel_jaxpr = _printer.pp_toplevel_jaxpr
pp_toplevel_jaxpr_with_context = _printer.pp_toplevel_jaxpr_with_context
pp_var = _printer.pp_var
pp_vars = _printer.pp_vars
printed_params = _printer.printed_params
