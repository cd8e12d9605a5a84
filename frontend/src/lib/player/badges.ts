/**
 * The badge each drawn variable box wears at a frame, and the cotangent it reports to tests
 * (`data-cotangent`). Forward: the value, with its tangent in forward mode ("1.5, ẋ 1").
 * Backward: once a contribution has arrived, the running partial sum with its count
 * ("∇ 2.992 (1 of 2)"), the addition itself on the step that makes it, solid once complete;
 * before that, the forward value stays. Pure.
 */
import type { TraceCard } from '../protocol/types';
import { nonFiniteText } from '../util/format';
import { forwardText, partialText, printed, tangentText } from './flowText';
import type { Frame } from './timeline';

export interface BadgeBox {
  id: string;
  varIds: string[];
}

export interface NodeBadge {
  varId: string;
  text: string;
  /** Forward mode: the tangent part of `text` ("ẋ = 1"), drawn in its own colour. */
  tangent: string | null;
  kind: 'value' | 'grad';
  /** A partial sum still waiting for contributions. */
  partial: boolean;
  /** A contribution arrived on this step. */
  now: boolean;
  /** NaN/Inf marker text, '' when finite. */
  bad: string;
}

function gradBadge(frame: Frame, varId: string): NodeBadge | null {
  const p = frame.partials.get(varId);
  if (!p) return null;
  const now = frame.arriving.some((c) => c.var_id === varId);
  return {
    varId,
    text: partialText(p, now),
    tangent: null,
    kind: 'grad',
    partial: !p.complete,
    now,
    bad: nonFiniteText(p.sum),
  };
}

function valueBadge(card: TraceCard, frame: Frame, varId: string): NodeBadge | null {
  const v = card.values[varId];
  if (!v || !frame.values.has(varId)) return null;
  const t = frame.tangents.has(varId) ? (card.tangents?.[varId] ?? null) : null;
  const now = frame.phase === 'forward' && (frame.current?.var_ids.includes(varId) ?? false);
  return {
    varId,
    text: forwardText(v, t),
    tangent: t ? tangentText(t) : null,
    kind: 'value',
    partial: false,
    now,
    bad: nonFiniteText(v) || (t ? nonFiniteText(t) : ''),
  };
}

/** Badges of the boxes that stand for variables (inputs, equation results, outputs). */
export function nodeBadges(
  boxes: BadgeBox[],
  card: TraceCard,
  frame: Frame | null,
): Map<string, NodeBadge> {
  const out = new Map<string, NodeBadge>();
  if (!frame || frame.step < 0) return out;
  for (const b of boxes) {
    let best: NodeBadge | null = null;
    for (const v of b.varIds) {
      best =
        (frame.phase === 'backward' ? gradBadge(frame, v) : null) ?? valueBadge(card, frame, v);
      if (best) break;
    }
    if (best) out.set(b.id, best);
  }
  return out;
}

/**
 * `data-cotangent` of each box while a backward step is shown: the partial sum it displays,
 * as printed ('' before any contribution arrived). Null outside the backward phase.
 */
export function cotangentAttrs(boxes: BadgeBox[], frame: Frame | null): Map<string, string> | null {
  if (!frame || frame.phase !== 'backward') return null;
  const out = new Map<string, string>();
  for (const b of boxes) {
    const v = b.varIds.find((id) => frame.partials.has(id));
    out.set(b.id, v ? printed(frame.partials.get(v)!.sum) : '');
  }
  return out;
}
