/**
 * Replaying a card's recorded timeline without the kernel. Per the protocol, the visible state
 * at step k is the union of steps 0..k: which equations have run forward, which have been
 * transposed, which variables' values (and, in forward mode, tangents) are known, and — the
 * point of the backward pass — the running partial sum of cotangent contributions at every
 * variable, so a variable used twice shows its first contribution and then the sum. Pure and
 * cheap (linear in k), so scrubbing anywhere is a recomputation. Imports protocol types only.
 */
import type { Contribution, Step, TraceCard, ValueSummary } from '../protocol/types';

export type EqnState = 'idle' | 'forward' | 'backward';
export type Phase = 'idle' | 'forward' | 'backward';

/** The cotangent a variable holds after the contributions that arrived by the frame's step. */
export interface PartialSum {
  varId: string;
  /** Contributions received so far, out of how many the whole backward pass sends. */
  k: number;
  of: number;
  /** The running sum (equals the variable's cotangent once k == of). */
  sum: ValueSummary;
  /** The running sum before the last contribution (null for the first). */
  before: ValueSummary | null;
  /** The contribution that arrived last (null for a v1 card, which records totals only). */
  last: Contribution | null;
  /** Step at which the last contribution arrived. */
  step: number;
  complete: boolean;
}

export interface Frame {
  /** -1 before the first step. */
  step: number;
  phase: Phase;
  current: Step | null;
  eqns: Map<string, EqnState>;
  values: Set<string>;
  /** Forward-mode cards: variables whose tangent is known (revealed with their values). */
  tangents: Set<string>;
  /** Variables that have received at least one cotangent contribution. */
  cotangents: Set<string>;
  partials: Map<string, PartialSum>;
  /** Contributions the current step sends (empty on forward steps). */
  arriving: Contribution[];
  /** Every contribution sent so far, by edge (see edgeKey), the latest per edge. */
  sent: Map<string, Contribution>;
  /** Loop equation id → the iteration the frame shows (from the latest step of that loop). */
  iterations: Map<string, { iteration: number; phase: 'forward' | 'backward' }>;
}

/** The forward edge a contribution travels back along: operand var → consuming equation. */
export function edgeKey(varId: string, fromEqn: string | null): string {
  return `${varId}<${fromEqn ?? 'seed'}`;
}

export interface FrameSource {
  timeline: Step[];
  /** Final cotangents, used for v1 cards whose backward steps carry no contributions. */
  cotangents?: Record<string, ValueSummary>;
  tangents?: Record<string, ValueSummary>;
}

function receive(f: Frame, c: Contribution, step: number) {
  const prev = f.partials.get(c.var_id);
  f.partials.set(c.var_id, {
    varId: c.var_id,
    k: c.k,
    of: c.of,
    sum: c.partial,
    before: prev && prev.k < c.k ? prev.sum : null,
    last: c,
    step,
    complete: c.k >= c.of,
  });
  f.cotangents.add(c.var_id);
  f.sent.set(edgeKey(c.var_id, c.from_eqn), c);
}

/** A v1 backward step: only the final totals are known, so say exactly that (1 of 1). */
function receiveTotals(f: Frame, s: Step, totals: Record<string, ValueSummary>) {
  for (const v of s.var_ids) {
    f.cotangents.add(v);
    const sum = totals[v];
    if (!sum || f.partials.has(v)) continue;
    f.partials.set(v, {
      varId: v,
      k: 1,
      of: 1,
      sum,
      before: null,
      last: null,
      step: s.index,
      complete: true,
    });
  }
}

function applyStep(f: Frame, s: Step, i: number, src: FrameSource) {
  if (s.phase === 'forward') {
    for (const v of s.var_ids) {
      f.values.add(v);
      if (src.tangents && v in src.tangents) f.tangents.add(v);
    }
  } else if (s.contributions?.length) {
    for (const c of s.contributions) receive(f, c, i);
  } else {
    receiveTotals(f, s, src.cotangents ?? {});
  }
  if (s.eqn_id) f.eqns.set(s.eqn_id, s.phase);
  if (s.eqn_id && s.iteration !== null && s.iteration !== undefined)
    f.iterations.set(s.eqn_id, { iteration: s.iteration, phase: s.phase });
}

function emptyFrame(): Frame {
  return {
    step: -1,
    phase: 'idle',
    current: null,
    eqns: new Map(),
    values: new Set(),
    tangents: new Set(),
    cotangents: new Set(),
    partials: new Map(),
    arriving: [],
    sent: new Map(),
    iterations: new Map(),
  };
}

/** The visible state after steps 0..k of a timeline (or of a card, for totals and tangents). */
export function frameAt(src: Step[] | FrameSource, k: number): Frame {
  const source: FrameSource = Array.isArray(src) ? { timeline: src } : src;
  const timeline = source.timeline;
  const last = Math.min(k, timeline.length - 1);
  const f = emptyFrame();
  for (let i = 0; i <= last; i++) applyStep(f, timeline[i], i, source);
  const current = last >= 0 ? timeline[last] : null;
  f.step = last;
  f.current = current;
  f.phase = current ? current.phase : 'idle';
  f.arriving = current?.phase === 'backward' ? (current.contributions ?? []) : [];
  return f;
}

/** Index of the first backward step, or timeline.length when there is none. */
export function backwardStart(timeline: Step[]): number {
  const i = timeline.findIndex((s) => s.phase === 'backward');
  return i < 0 ? timeline.length : i;
}

/** Does the card carry a backward pass the player can show? */
export function hasBackward(card: TraceCard): boolean {
  return card.timeline.some((s) => s.phase === 'backward');
}

/** Does the card animate tangents (forward mode)? */
export function hasTangents(card: TraceCard): boolean {
  return Object.keys(card.tangents ?? {}).length > 0;
}

export interface GradMark {
  /** 0..1, log-scaled gradient magnitude relative to the card's largest. */
  t: number;
  nonFinite: boolean;
}

function magnitude(v: ValueSummary): number | null {
  if (v.norm !== null && Number.isFinite(v.norm)) return Math.abs(v.norm);
  const m = Math.max(Math.abs(v.min ?? 0), Math.abs(v.max ?? 0));
  return Number.isFinite(m) ? m : null;
}

/**
 * Gradient magnitudes are spread over many decades, so a linear scale would make every edge but
 * one look empty; a log scale between the smallest and largest non-zero norm keeps them legible.
 */
export function gradMarks(cotangents: Record<string, ValueSummary>): Map<string, GradMark> {
  const mags = new Map<string, number | null>();
  let lo = Infinity;
  let hi = -Infinity;
  for (const [id, v] of Object.entries(cotangents)) {
    const m = magnitude(v);
    mags.set(id, m);
    if (m !== null && m > 0) {
      lo = Math.min(lo, Math.log10(m));
      hi = Math.max(hi, Math.log10(m));
    }
  }
  const out = new Map<string, GradMark>();
  for (const [id, m] of mags) {
    const v = cotangents[id];
    const nonFinite = v.nan_count > 0 || v.inf_count > 0;
    let t = 0;
    if (m !== null && m > 0) t = hi > lo ? (Math.log10(m) - lo) / (hi - lo) : 1;
    out.set(id, { t: nonFinite ? 1 : t, nonFinite });
  }
  return out;
}
