/**
 * The graph pane's state: which groups are collapsed, the graph model of the selected card, its
 * ELK layout (computed in the worker), the pan/zoom transform, and timing figures for the perf
 * spec. Stale layouts are dropped by request number so quick card switches cannot race.
 */
import type { Layout } from '../graph/elk';
import { LayoutClient } from '../graph/layoutClient';
import { buildGraph, defaultCollapsed, type GraphModel } from '../graph/model';
import type { TraceCard } from '../protocol/types';

export interface GraphTimings {
  eqns: number;
  nodes: number;
  edges: number;
  buildMs: number;
  elkMs: number;
  layoutRoundTripMs: number;
  /** From show() until the first paint after the graph's DOM was committed. */
  totalMs: number;
}

export interface Transform {
  x: number;
  y: number;
  k: number;
}

export class GraphView {
  collapsed = $state.raw<Set<string>>(new Set());
  model = $state.raw<GraphModel | null>(null);
  layout = $state.raw<Layout | null>(null);
  status = $state<'empty' | 'layout' | 'ready' | 'error'>('empty');
  error = $state<string | null>(null);
  transform = $state<Transform>({ x: 0, y: 0, k: 1 });
  timings = $state.raw<GraphTimings | null>(null);
  /** Bumped when a new layout is committed so the pane can fit it to the viewport. */
  layoutSeq = $state(0);

  #client: LayoutClient | null = null;
  #req = 0;
  #card: TraceCard | null = null;
  #t0 = 0;
  #pending: Omit<GraphTimings, 'totalMs'> | null = null;

  /** Milliseconds the worker's ELK warm-up took, or null while it is still running. */
  get warmMs(): number | null {
    return this.#client?.warmMs ?? null;
  }

  /** Start the layout worker early; it warms ELK up by itself (see layout.worker.ts). */
  warm() {
    this.#client ??= new LayoutClient();
    this.#client.start();
  }

  show(card: TraceCard | null) {
    if (card === this.#card) return;
    this.#card = card;
    this.model = null;
    this.layout = null;
    this.collapsed = card ? defaultCollapsed(card.jaxpr) : new Set();
    void this.#relayout();
  }

  toggle(eqnId: string) {
    const next = new Set(this.collapsed);
    if (next.has(eqnId)) next.delete(eqnId);
    else next.add(eqnId);
    this.collapsed = next;
    void this.#relayout();
  }

  /** Called by the pane on the first animation frame after it rendered a new layout. */
  painted() {
    if (!this.#pending) return;
    this.timings = { ...this.#pending, totalMs: performance.now() - this.#t0 };
    this.#pending = null;
  }

  zoomBy(factor: number, cx: number, cy: number) {
    const { x, y, k } = this.transform;
    const nk = Math.min(4, Math.max(0.05, k * factor));
    this.transform = { k: nk, x: cx - ((cx - x) * nk) / k, y: cy - ((cy - y) * nk) / k };
  }

  panBy(dx: number, dy: number) {
    this.transform = { ...this.transform, x: this.transform.x + dx, y: this.transform.y + dy };
  }

  fit(width: number, height: number) {
    const l = this.layout;
    if (!l || !width || !height) return;
    const k = Math.min(1.25, Math.max(0.05, Math.min(width / l.width, height / l.height) * 0.95));
    this.transform = {
      k,
      x: (width - l.width * k) / 2,
      y: Math.max(8, (height - l.height * k) / 2),
    };
  }

  /** Pan so that a node box is centred in the viewport, keeping the zoom. */
  centre(box: { x: number; y: number; width: number; height: number }, w: number, h: number) {
    const { k } = this.transform;
    this.transform = {
      k,
      x: w / 2 - (box.x + box.width / 2) * k,
      y: h / 2 - (box.y + box.height / 2) * k,
    };
  }

  async #relayout() {
    const card = this.#card;
    const req = ++this.#req;
    if (!card) {
      this.model = null;
      this.layout = null;
      this.status = 'empty';
      return;
    }
    this.#t0 = performance.now();
    const model = buildGraph(card.jaxpr, this.collapsed);
    const buildMs = performance.now() - this.#t0;
    this.status = 'layout';
    this.error = null;
    try {
      this.#client ??= new LayoutClient();
      const out = await this.#client.layout(model);
      if (req !== this.#req) return;
      this.#pending = {
        eqns: card.jaxpr.eqns.length,
        nodes: model.nodes.length,
        edges: model.edges.length,
        buildMs,
        elkMs: out.elkMs,
        layoutRoundTripMs: out.totalMs,
      };
      this.model = model;
      this.layout = out.layout;
      this.status = 'ready';
      this.layoutSeq += 1;
    } catch (err) {
      if (req !== this.#req) return;
      this.status = 'error';
      this.error = `layout failed: ${String(err)}`;
    }
  }
}
