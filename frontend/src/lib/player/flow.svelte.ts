/**
 * The player's per-step drawing state for the graph pane, derived from the selected card's
 * frame and the pane's scene: the flow marks (contributions travelling back along edges,
 * operands flowing into the current forward equation), each variable box's badge, and the
 * `data-cotangent` each box reports. Components read these and only draw.
 */
import { isGroup } from '../graph/tree';
import type { CardView } from '../state/cardview.svelte';
import type { GraphView } from '../state/graphview.svelte';
import { cotangentAttrs, nodeBadges, type BadgeBox, type NodeBadge } from './badges';
import { contributionMarks, flowMarks, stableMarks, type FlowMark } from './flowMarks';
import { sceneRoutes } from './flowRoutes';
import { iterationText, loopViews, recordedText } from './loops';

export interface LoopBadge {
  text: string;
  /** "first 64 of 1000 iterations recorded" when the record was cut. */
  cut: string;
  phase: 'forward' | 'backward';
}

export class FlowView {
  marks: FlowMark[];
  badges: Map<string, NodeBadge>;
  /** Box id → data-cotangent, or null outside the backward phase. */
  cotangents: Map<string, string> | null;
  /** Box id of a loop equation → which iteration it shows. */
  loops: Map<string, LoopBadge>;
  #boxes: BadgeBox[];

  constructor(view: CardView, graph: GraphView) {
    const strength = $derived(view.card ? contributionMarks(view.card) : new Map());
    const routes = $derived(
      graph.hierarchy &&
        graph.visible &&
        graph.scene &&
        // By jaxpr: a card_update copies the card object but keeps what the graph was drawn from.
        graph.card?.jaxpr === view.card?.jaxpr
        ? sceneRoutes(graph.hierarchy, graph.visible, graph.scene)
        : null,
    );
    let last = new Map<string, FlowMark>();
    this.marks = $derived.by(() => {
      const next =
        view.card && routes ? flowMarks(view.frame, view.card, view.eqns, routes, strength) : [];
      const out = stableMarks(last, next);
      last = new Map(out.map((m) => [m.key, m]));
      return out;
    });
    this.#boxes = $derived(
      (graph.scene?.boxes ?? []).flatMap((b) => {
        const n = b.box.node;
        return n && !isGroup(n) && n.varIds.length ? [{ id: b.box.id, varIds: n.varIds }] : [];
      }),
    );
    this.badges = $derived(view.card ? nodeBadges(this.#boxes, view.card, view.frame) : new Map());
    this.cotangents = $derived(cotangentAttrs(this.#boxes, view.frame));
    this.loops = $derived.by(() => {
      const out = new Map<string, LoopBadge>();
      const h = graph.hierarchy;
      const rep = graph.visible?.rep;
      if (!view.card || !h || !rep) return out;
      for (const l of loopViews(view.card, view.frame)) {
        const node = h.eqnNode.get(l.record.eqn_id);
        const box = node ? rep.get(node) : undefined;
        if (!box || l.iteration === null) continue;
        const r = l.record;
        out.set(box, {
          text: `${l.phase === 'backward' ? '∇ ' : ''}${iterationText(l.iteration, r.length)}`,
          cut: r.recorded < r.length ? recordedText(r) : '',
          phase: l.phase,
        });
      }
      return out;
    });
  }
}
