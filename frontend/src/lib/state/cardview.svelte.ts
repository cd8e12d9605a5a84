/**
 * Everything derived from the selected card that more than one pane needs: indexes by id and
 * by source line, the player's current frame, gradient marks, and the set of equations and the
 * source line that the current focus lights up. Panes read these instead of recomputing.
 */
import { indexEqns, indexVars } from '../graph/cardIndex';
import { frameAt, gradMarks, type Frame, type GradMark } from '../player/timeline';
import type { Player } from '../player/player.svelte';
import type { EqnData, TraceCard, VarData } from '../protocol/types';
import type { Selection } from './selection.svelte';
import type { Session } from './session.svelte';

function byLine(eqns: Map<string, EqnData>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const e of eqns.values()) {
    const line = e.source?.line;
    if (!line) continue;
    const list = out.get(line) ?? [];
    list.push(e.id);
    out.set(line, list);
  }
  return out;
}

export class CardView {
  card: TraceCard | null;
  eqns: Map<string, EqnData>;
  vars: Map<string, VarData>;
  eqnsByLine: Map<number, string[]>;
  /** Every source line that produced at least one equation of this card. */
  tracedLines: number[];
  frame: Frame | null;
  grads: Map<string, GradMark>;
  activeEqns: Set<string>;
  activeLine: number | null;

  constructor(session: Session, selection: Selection, player: Player) {
    this.card = $derived(session.cards[selection.cardIndex] ?? null);
    this.eqns = $derived(this.card ? indexEqns(this.card.jaxpr) : new Map());
    this.vars = $derived(this.card ? indexVars(this.card.jaxpr) : new Map());
    this.eqnsByLine = $derived(byLine(this.eqns));
    this.tracedLines = $derived([...this.eqnsByLine.keys()].sort((a, b) => a - b));
    this.frame = $derived(this.card ? frameAt(this.card, player.step) : null);
    this.grads = $derived(this.card ? gradMarks(this.card.cotangents) : new Map());
    this.activeEqns = $derived.by(() => {
      const f = selection.active;
      if (!f) return new Set<string>();
      if (f.kind === 'eqn') return new Set([f.id]);
      if (f.kind === 'group') return new Set(f.eqns);
      return new Set(this.eqnsByLine.get(f.line) ?? []);
    });
    this.activeLine = $derived.by(() => {
      const f = selection.active;
      if (!f) return null;
      if (f.kind === 'line') return f.line;
      if (f.kind === 'group') return null;
      return this.eqns.get(f.id)?.source?.line ?? null;
    });
  }
}
