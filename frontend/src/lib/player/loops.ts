/**
 * Loop iterations as the player shows them: for each recorded loop (scan, fori_loop,
 * while_loop) the timeline steps that show each iteration, forward and — for a differentiated
 * scan — backward (walked in reverse), the iteration a frame is at with its carries and
 * outputs, and the "first N of M" wording. Pure; imports protocol types and timeline only.
 */
import type { LoopIteration, LoopRecord, TraceCard } from '../protocol/types';
import type { Frame } from './timeline';

export interface LoopSteps {
  /** iteration → timeline step index, per phase. */
  forward: Map<number, number>;
  backward: Map<number, number>;
}

export function loopSteps(card: TraceCard, eqnId: string): LoopSteps {
  const out: LoopSteps = { forward: new Map(), backward: new Map() };
  for (const s of card.timeline) {
    if (s.eqn_id !== eqnId || s.iteration === null || s.iteration === undefined) continue;
    const m = s.phase === 'forward' ? out.forward : out.backward;
    if (!m.has(s.iteration)) m.set(s.iteration, s.index);
  }
  return out;
}

/** "first 64 of 1000 iterations" or "all 4 iterations". */
export function recordedText(r: LoopRecord): string {
  const unit = r.length === 1 ? 'iteration' : 'iterations';
  return r.recorded < r.length
    ? `first ${r.recorded} of ${r.length} ${unit} recorded`
    : `all ${r.length} ${unit} recorded`;
}

export interface LoopView {
  record: LoopRecord;
  steps: LoopSteps;
  /** The iteration the frame shows, or null before the loop ran. */
  iteration: number | null;
  phase: 'forward' | 'backward';
  entry: LoopIteration | null;
  /** The current step is one of this loop's iterations. */
  active: boolean;
}

/** What each of the card's loops shows at a frame. */
export function loopViews(card: TraceCard, frame: Frame | null): LoopView[] {
  return (card.loops ?? []).map((record) => {
    const at = frame?.iterations.get(record.eqn_id) ?? null;
    const phase = at?.phase ?? 'forward';
    const list = (phase === 'backward' ? record.backward : record.forward) ?? [];
    const entry = at ? (list.find((it) => it.index === at.iteration) ?? null) : null;
    return {
      record,
      steps: loopSteps(card, record.eqn_id),
      iteration: at?.iteration ?? null,
      phase,
      entry,
      active: frame?.current?.eqn_id === record.eqn_id && frame.current.iteration != null,
    };
  });
}

/** "iteration 3 of 0…4": counted from 0, as the loop's own index (and the step labels) are. */
export function iterationText(i: number, length: number): string {
  return `iteration ${i} of 0…${Math.max(0, length - 1)}`;
}
