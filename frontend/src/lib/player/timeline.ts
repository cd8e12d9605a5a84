/**
 * Replaying a card's recorded timeline without the kernel. Per the protocol, the visible state
 * at step k is the union of steps 0..k: which equations have run forward, which have received
 * their cotangents, and which variables' values / cotangents are known. Pure and cheap (linear in
 * k), so scrubbing anywhere is just a recomputation.
 */
import type { Step, TraceCard, ValueSummary } from '../protocol/types';

export type EqnState = 'idle' | 'forward' | 'backward';
export type Phase = 'idle' | 'forward' | 'backward';

export interface Frame {
  /** -1 before the first step. */
  step: number;
  phase: Phase;
  current: Step | null;
  eqns: Map<string, EqnState>;
  values: Set<string>;
  cotangents: Set<string>;
}

export function frameAt(timeline: Step[], k: number): Frame {
  const last = Math.min(k, timeline.length - 1);
  const eqns = new Map<string, EqnState>();
  const values = new Set<string>();
  const cotangents = new Set<string>();
  for (let i = 0; i <= last; i++) {
    const s = timeline[i];
    const known = s.phase === 'forward' ? values : cotangents;
    for (const v of s.var_ids) known.add(v);
    if (s.eqn_id) eqns.set(s.eqn_id, s.phase);
  }
  const current = last >= 0 ? timeline[last] : null;
  return { step: last, phase: current ? current.phase : 'idle', current, eqns, values, cotangents };
}

/** Index of the first backward step, or timeline.length when there is none. */
export function backwardStart(timeline: Step[]): number {
  const i = timeline.findIndex((s) => s.phase === 'backward');
  return i < 0 ? timeline.length : i;
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

/** Does the card carry a backward pass the player can show? */
export function hasBackward(card: TraceCard): boolean {
  return card.timeline.some((s) => s.phase === 'backward');
}
