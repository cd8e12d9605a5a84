"""Trace cards: what the engine's recorder (`didax.viz`) produces and the page animates.

A trace card is a pure function of a transformation, a function and its arguments: the primal
jaxpr as structured data (never text the page must parse), the stage texts, forward values,
cotangents and a replayable timeline. See PROTOCOL.md, section "Trace cards".

Imports: pydantic and `shared_schemas.base` only.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from shared_schemas.base import WireModel

CardKind = Literal[
    "grad",
    "value_and_grad",
    "vjp",
    "jvp",
    "linearize",
    "vmap",
    "jit",
    "make_jaxpr",
    "jacfwd",
    "jacrev",
    "hessian",
    "show",
]
StageName = Literal[
    "jvp",
    "partial_eval_known",
    "partial_eval_unknown",
    "linear",
    "transpose",
    "vmap",
    "stablehlo",
    "hlo",
    "cost_analysis",
]
StageLanguage = Literal["jaxpr", "mlir", "hlo", "json"]
PreviewItem = float | int | bool | str


class SourceLoc(WireModel):
    """A source position; `user` is true for the user's program (file `<user>`)."""

    file: str
    line: int = Field(ge=0)
    function: str
    user: bool


class Aval(WireModel):
    """An abstract value: shape, dtype and the short form JAX prints (`f32[3]`)."""

    shape: list[int]
    dtype: str
    weak_type: bool
    short: str


class VarData(WireModel):
    """A jaxpr variable; `id` is unique within the card, `name` is how the text prints it."""

    id: str
    name: str
    aval: Aval


class LiteralData(WireModel):
    """A literal operand; `value` as printed (`2.0`)."""

    literal: Literal[True]
    value: str
    aval: Aval


Atom = VarData | LiteralData


class Span(WireModel):
    """Character offsets [start, end) of an equation in the enclosing jaxpr's `text`."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)


class SubJaxpr(WireModel):
    """A nested jaxpr held by an equation parameter (jit body, cond branch, scan body, ...)."""

    param: str
    jaxpr: JaxprData


class EqnData(WireModel):
    """One equation. Sub-jaxprs are excluded from `params` and listed in `subjaxprs`."""

    id: str
    primitive: str
    params: dict[str, str]
    invars: list[Atom]
    outvars: list[VarData]
    source: SourceLoc | None
    span: Span
    subjaxprs: list[SubJaxpr]
    primal_eqn: str | None = None


class JaxprData(WireModel):
    """A jaxpr as structured data plus its JAX-style pretty text."""

    id: str
    text: str
    constvars: list[VarData]
    invars: list[VarData]
    outvars: list[Atom]
    eqns: list[EqnData]
    effects: list[str]


class Cost(WireModel):
    """XLA cost analysis of a compiled stage."""

    flops: float
    transcendentals: float
    bytes_accessed: float


class Stage(WireModel):
    """One step of the transformation/compilation pipeline, in pipeline order."""

    name: StageName
    title: str
    language: StageLanguage
    text: str
    jaxpr: JaxprData | None
    cost: Cost | None


class ValueSummary(WireModel):
    """A bounded summary of an array value.

    Statistics are over finite elements and `null` when there are none (or for non-numeric
    dtypes). `preview` holds the first <= 16 elements in row-major order; non-finite floats are
    the strings "nan", "inf", "-inf" and complex numbers strings like "1+2j".
    """

    shape: list[int]
    dtype: str
    min: float | None
    max: float | None
    mean: float | None
    norm: float | None
    nan_count: int = Field(ge=0)
    inf_count: int = Field(ge=0)
    preview: list[PreviewItem] = Field(max_length=16)
    truncated: bool


class Step(WireModel):
    """One timeline step; the visible state at step k is the union of steps 0..k."""

    index: int = Field(ge=0)
    phase: Literal["forward", "backward"]
    eqn_id: str | None
    var_ids: list[str]
    label: str


class TraceCard(WireModel):
    """One recorded top-level transformation call of the user's program."""

    card_id: str
    index: int = Field(ge=0)
    kind: CardKind
    title: str
    fun_name: str
    call_site: SourceLoc | None
    jaxpr: JaxprData
    stages: list[Stage]
    values: dict[str, ValueSummary]
    cotangents: dict[str, ValueSummary]
    timeline: list[Step]
    outputs: list[ValueSummary]
    error: str | None


SubJaxpr.model_rebuild()
EqnData.model_rebuild()
