"""Trace cards: what the engine's recorder (`didax.viz`) produces and the page animates.

A trace card is a pure function of a transformation, a function and its arguments: the primal
jaxpr as structured data (never text the page must parse), the user's names and call-stack
groups, the stage texts with row links back to source and equations, forward values and
tangents, cotangents with every contribution of the backward pass, loop iterations and a
replayable timeline. See PROTOCOL.md, section "Trace cards" (protocol version 2).

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
    """A jaxpr variable; `id` is unique within the card, `name` is how the jaxpr text prints it.

    `user_name` is the Python name the user's program gave the value, when it has one: a
    parameter with its pytree path (`params['W1']`, `xs[0]`), a name bound by assignment or
    unpacking on the line that made the value (`h`), or a result (`result`, `result[1]`).
    """

    id: str
    name: str
    aval: Aval
    user_name: str | None = None


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
    """One equation. Sub-jaxprs are excluded from `params` and listed in `subjaxprs`.

    `group` is the id of the innermost `GroupData` (user function call, named_scope, nested
    jit) the equation was traced in; `null` for the body of the card's own function.
    """

    id: str
    primitive: str
    params: dict[str, str]
    invars: list[Atom]
    outvars: list[VarData]
    source: SourceLoc | None
    span: Span
    subjaxprs: list[SubJaxpr]
    primal_eqn: str | None = None
    group: str | None = None


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


class RowLink(WireModel):
    """A row of a stage's text linked to the user's source and to a primal equation.

    `row` is the 0-based line index in `Stage.text`; `line` the user's source line (from the
    StableHLO location or XLA's op metadata), `eqn_id` the primal equation the op comes from,
    `op_name` the name stack JAX-style (`jit(f)/mlp/dot_general`).
    """

    row: int = Field(ge=0)
    line: int | None = None
    eqn_id: str | None = None
    op_name: str | None = None


class Stage(WireModel):
    """One step of the transformation/compilation pipeline, in pipeline order.

    `rows` (sparse, ascending by row) links text rows of non-jaxpr stages (StableHLO, HLO) to
    source lines and primal equations, so the page never parses the text.
    """

    name: StageName
    title: str
    language: StageLanguage
    text: str
    jaxpr: JaxprData | None
    cost: Cost | None
    rows: list[RowLink] = Field(default_factory=list)


class Heatmap(WireModel):
    """A thumbnail of an array of rank >= 1: at most 32 x 32 cells.

    A 1-D array is one row. Larger arrays are block-averaged (`block` = [rows, cols] of
    elements per cell). Above rank 2 the picture is one 2-D slice, named by `slice`
    (`"[0, :, :]"`). `cells` holds two hex digits per cell, row-major: 00..ff linear between
    `lo` and `hi` (the finite min and max of what is shown), `"--"` for a cell holding a
    non-finite element. Complex arrays show magnitudes.
    """

    rows: int = Field(ge=1, le=32)
    cols: int = Field(ge=1, le=32)
    block: list[int] = Field(min_length=2, max_length=2)
    lo: float
    hi: float
    slice: str | None = None
    cells: str = Field(max_length=2 * 32 * 32)


class ValueSummary(WireModel):
    """A bounded summary of an array value.

    Statistics are over finite elements and `null` when there are none (or for non-numeric
    dtypes). `preview` holds the first <= 16 elements in row-major order; non-finite floats are
    the strings "nan", "inf", "-inf" and complex numbers strings like "1+2j". `heatmap` is a
    thumbnail for arrays of rank >= 1 (null for scalars, which `preview` prints in full).
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
    heatmap: Heatmap | None = None


class Contribution(WireModel):
    """One cotangent contribution, sent by one transposed equation along one edge.

    The backward step of primal equation `from_eqn` sends `value` to its operand `var_id`
    (travelling against the forward edge var_id -> from_eqn); `partial` is the running sum at
    `var_id` once it is added. It is the `k`-th of the `of` contributions `var_id` receives in
    the whole backward pass, so when `k == of` the partial sum is the variable's cotangent.
    `from_eqn` is null for the seed (the output cotangent, 1 for a scalar loss).

    Broadcasting: `reduced_from` is the shape of the sender-side cotangent and `reduced_axes`
    the axes summed to bring it back to the operand's shape. Indexing, gather, dynamic_slice
    and scatter-add: `landing` says in words where the contribution lands in the operand
    ("elements 2, 5 of f32[8]"); `value.heatmap` shows it.
    """

    var_id: str
    from_eqn: str | None
    k: int = Field(ge=1)
    of: int = Field(ge=1)
    value: ValueSummary
    partial: ValueSummary
    reduced_from: list[int] | None = None
    reduced_axes: list[int] = Field(default_factory=list)
    landing: str | None = None


class Step(WireModel):
    """One timeline step; the visible state at step k is the union of steps 0..k.

    Forward steps make `var_ids` values known (and their tangents, for forward-mode cards).
    Each backward step is one transposed primal equation (`eqn_id`) and lists the
    `contributions` it sends. Loop steps carry `iteration` (the loop equation is `eqn_id`, its
    record is in `TraceCard.loops`).
    """

    index: int = Field(ge=0)
    phase: Literal["forward", "backward"]
    eqn_id: str | None
    var_ids: list[str]
    label: str
    contributions: list[Contribution] = Field(default_factory=list)
    iteration: int | None = None


class LoopIteration(WireModel):
    """One recorded iteration: the carry entering it and what it produced.

    Forward: `carry` in, `outputs` = the per-iteration outputs (scan's ys). Backward (scan):
    `carry` = the cotangent of the carry leaving the iteration's transpose, `outputs` = the
    cotangents of that iteration's xs.
    """

    index: int = Field(ge=0)
    carry: list[ValueSummary]
    outputs: list[ValueSummary]


class LoopRecord(WireModel):
    """Iterations of one loop equation (scan, fori_loop, while_loop).

    `length` is how many iterations ran (M); the first `recorded` (N <= the run setting
    `loop_iterations`) are in `forward`; `backward` walks the iterations in reverse (scan
    under reverse mode), also at most N of them. `carry_names` / `output_names` label the
    entries of each iteration.
    """

    eqn_id: str
    kind: Literal["scan", "fori_loop", "while_loop"]
    length: int = Field(ge=0)
    recorded: int = Field(ge=0)
    carry_names: list[str]
    output_names: list[str]
    forward: list[LoopIteration]
    backward: list[LoopIteration] = Field(default_factory=list)


GroupKind = Literal["call", "named_scope", "jit", "transform"]


class GroupData(WireModel):
    """A node of the card's hierarchy, as JAX's name stack records it: one call of a user
    function (`call`), a `jax.named_scope`, a nested `jit`, or a nested transformation.

    Groups form a forest through `parent` (null = top level of the card's function); each
    equation names its innermost group in `EqnData.group`.
    """

    id: str
    name: str
    kind: GroupKind
    parent: str | None
    call_site: SourceLoc | None = None


NoticeKind = Literal[
    "card_trimmed", "loop_truncated", "values_omitted", "recording_limited", "selection"
]


class Notice(WireModel):
    """Something the page must say about the card (it was cut to its size budget, a loop
    shows the first N of M iterations, values were left out, ...). `selection`: the card
    animates one slice of a larger computation and says which — the seed or tangent
    direction of a Jacobian card (e0), the example of a vmapped batch."""

    kind: NoticeKind
    message: str
    eqn_id: str | None = None


class TraceCard(WireModel):
    """One recorded top-level transformation call of the user's program.

    `kind` is the innermost differentiation or transformation the card animates, `transforms`
    the whole composition, outermost first (`["jit", "grad"]` for `jit(grad(loss))`, titled
    accordingly). Repeated calls of one function with the same argument types make one card
    whose `call_count` grows (the server sends `card_update`). `tangents` holds forward-mode
    tangents; `cotangents` the final cotangent of every primal variable (the per-step
    partial sums are in the timeline's contributions).
    """

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
    transforms: list[str] = Field(default_factory=list)
    call_count: int = Field(default=1, ge=1)
    tangents: dict[str, ValueSummary] = Field(default_factory=dict)
    loops: list[LoopRecord] = Field(default_factory=list)
    groups: list[GroupData] = Field(default_factory=list)
    notices: list[Notice] = Field(default_factory=list)


SubJaxpr.model_rebuild()
EqnData.model_rebuild()
