/**
 * The graph pane's structure state: the selected card's hierarchy, which groups are expanded,
 * the visible graph, its scene (laid out level by level in the worker), the naming mode, the
 * keyboard cursor, and timing figures for the perf spec. A card opens at its overview
 * (visible.ts expansionOrder; of it and its folded-back variants, the largest that fit.ts takes
 * for the pane, all laid out in one worker round trip); every expand/collapse re-runs only the
 * levels that changed (the worker caches the rest). Stale layouts are dropped by request number so quick card
 * switches and toggles cannot race. The camera is `viewport`.
 */
import { buildHierarchy } from '../graph/hierarchy';
import { LayoutClient } from '../graph/layoutClient';
import type { NameMode } from '../graph/names';
import { compose, levelJobs, type Scene } from '../graph/scene';
import { ancestors, eqnsUnder, groupIds, isGroup, type Hierarchy } from '../graph/tree';
import { expansionOrder, visibleGraph, type VisibleGraph } from '../graph/visible';
import { search, type SearchHit } from '../graph/search';
import type { TraceCard } from '../protocol/types';
import type { Selection } from './selection.svelte';
import { MARGIN, Viewport } from './viewport.svelte';
import { READABLE_K } from '../graph/lod';
import { acceptable, type FitSpec } from '../graph/fit';

/** Most candidate overviews laid out for a card's first view. */
const OVERVIEW_TRIES = 6;

export interface GraphTimings {
  /** The scene these figures are about (GraphView.sceneSeq). */
  seq: number;
  /** What was shown: a card's first view, or an expand/collapse. */
  cause: 'open' | 'toggle';
  eqns: number;
  boxes: number;
  edges: number;
  levels: number;
  /** Levels ELK ran on (the others came from the worker's cache or were stretched). */
  computed: number;
  /** Levels stretched around an expanded group instead of laid out again. */
  stretched: number;
  buildMs: number;
  elkMs: number;
  layoutRoundTripMs: number;
  /** From the request until the first paint after the graph's DOM was committed. */
  totalMs: number;
}

export class GraphView {
  hierarchy = $state.raw<Hierarchy | null>(null);
  expanded = $state.raw<Set<string>>(new Set());
  visible = $state.raw<VisibleGraph | null>(null);
  scene = $state.raw<Scene | null>(null);
  status = $state<'empty' | 'layout' | 'ready' | 'error'>('empty');
  error = $state<string | null>(null);
  names = $state<NameMode>('python');
  /** While an export copies the scene, every label is drawn whatever the zoom. */
  exporting = $state(false);
  /** The box the keyboard cursor is on (a visible box id). */
  current = $state<string | null>(null);
  timings = $state.raw<GraphTimings | null>(null);
  /** Bumped when a scene is committed; `firstView` says whether it is a card's first. */
  sceneSeq = $state(0);
  firstView = $state(false);
  /** A tree node to bring into view once the scene showing it is drawn. */
  pendingFocus = $state<string | null>(null);
  readonly viewport = new Viewport();
  /** Search box text, its matches (over the whole hierarchy) and the one shown. */
  query = $state('');
  hits: SearchHit[] = $derived(
    this.hierarchy && this.query ? search(this.hierarchy, this.query) : [],
  );
  hitIndex = $state(-1);

  #client: LayoutClient | null = null;
  #req = 0;
  #card: TraceCard | null = null;
  #t0 = 0;
  #pending: Omit<GraphTimings, 'totalMs'> | null = null;
  /** The overview's expansions, in order, while the first view may still fold some back. */
  #overview: string[] = [];
  /** A group being expanded or collapsed by the user, and where its box was on screen. */
  #anchor: { id: string; at: { x: number; y: number } } | null = null;
  /** The next scene starts at the readable top-left view (expand all). */
  #restart = false;

  constructor(private selection: Selection | null = null) {}

  /** Milliseconds the worker's ELK warm-up took, or null while it is still running. */
  get warmMs(): number | null {
    return this.#client?.warmMs ?? null;
  }

  get card(): TraceCard | null {
    return this.#card;
  }

  /** Start the layout worker early; it warms ELK up by itself (see layout.worker.ts). */
  warm() {
    this.#client ??= new LayoutClient();
    this.#client.start();
  }

  show(card: TraceCard | null) {
    if (card === this.#card) return;
    this.#card = card;
    this.scene = null;
    this.visible = null;
    this.current = null;
    this.pendingFocus = null;
    this.#t0 = performance.now();
    this.hierarchy = card ? buildHierarchy(card) : null;
    this.#overview = this.hierarchy ? expansionOrder(this.hierarchy) : [];
    this.expanded = new Set(this.#overview);
    void this.#relayout('open');
  }

  isOpen(id: string): boolean {
    return id === this.hierarchy?.root || this.expanded.has(id);
  }

  setExpanded(next: Set<string>) {
    this.#overview = [];
    this.#t0 = performance.now();
    this.expanded = next;
    void this.#relayout('toggle');
  }

  /** Expand or collapse a group the user pointed at; the keyboard cursor moves onto it. */
  toggle(id: string) {
    if (this.hierarchy?.nodes.has(id)) this.current = id;
    if (this.isOpen(id)) this.collapse(id);
    else this.expand(id);
  }

  expand(id: string) {
    const n = this.hierarchy?.nodes.get(id);
    if (!n || !isGroup(n) || this.isOpen(id)) return;
    this.#anchorAt(id);
    this.setExpanded(new Set([...this.expanded, id]));
  }

  collapse(id: string) {
    if (!this.expanded.has(id)) return;
    const next = new Set(this.expanded);
    next.delete(id);
    if (this.current && this.#inside(this.current, id)) this.current = id;
    this.#anchorAt(id);
    this.setExpanded(next);
  }

  /** The group being toggled stays where it is on screen (see Viewport.keep). */
  #anchorAt(id: string) {
    const b = this.scene?.byId.get(id);
    this.#anchor = b ? { id, at: this.viewport.toScreen(b.x, b.y) } : null;
  }

  expandAll() {
    if (!this.hierarchy) return;
    this.#anchor = null;
    this.#restart = true;
    this.setExpanded(new Set(groupIds(this.hierarchy)));
  }

  /** Back to the card's overview. */
  collapseAll() {
    if (!this.hierarchy) return;
    this.#t0 = performance.now();
    this.#overview = expansionOrder(this.hierarchy);
    this.expanded = new Set(this.#overview);
    void this.#relayout('open');
  }

  /** Expand every ancestor of a tree node and bring it into view once drawn. */
  reveal(id: string) {
    const h = this.hierarchy;
    if (!h?.nodes.has(id)) return;
    const missing = ancestors(h, id).filter((a) => !this.isOpen(a));
    this.pendingFocus = id;
    this.current = id;
    if (missing.length) this.setExpanded(new Set([...this.expanded, ...missing]));
  }

  /** Put the cursor on a node and pin what it stands for in every pane. */
  select(id: string | null) {
    const n = id ? this.hierarchy?.nodes.get(id) : undefined;
    this.current = n ? n.id : null;
    if (!n) return this.selection?.pinEqn(null);
    if (isGroup(n)) this.selection?.pinGroup(n.id, this.eqnsOf(n.id));
    else this.selection?.pinEqn(n.eqnId);
  }

  /** Hovering a node lights what it stands for in every pane. */
  hover(id: string | null) {
    const n = id ? this.hierarchy?.nodes.get(id) : undefined;
    if (n && isGroup(n)) this.selection?.hoverGroup(n.id, this.eqnsOf(n.id));
    else this.selection?.hoverEqn(n?.eqnId ?? null);
  }

  /** Show search hit `i` (wrapping): reveal it, select it. */
  goToHit(i: number) {
    const n = this.hits.length;
    if (!n) return;
    this.hitIndex = ((i % n) + n) % n;
    const id = this.hits[this.hitIndex].id;
    this.select(id);
    this.reveal(id);
  }

  setQuery(q: string) {
    this.query = q;
    this.hitIndex = -1;
  }

  /** The tree node of an equation, if the card has it. */
  nodeOfEqn(eqnId: string): string | null {
    return this.hierarchy?.eqnNode.get(eqnId) ?? null;
  }

  /** The visible box standing for a tree node (itself or its collapsed ancestor). */
  boxOf(id: string): string | null {
    return this.visible?.rep.get(id) ?? null;
  }

  eqnsOf(id: string): string[] {
    return this.hierarchy ? eqnsUnder(this.hierarchy, id) : [];
  }

  #inside(id: string, group: string): boolean {
    return !!this.hierarchy && ancestors(this.hierarchy, id).includes(group);
  }

  /** Called by the pane on the first animation frame after it rendered a new scene. */
  painted() {
    if (!this.#pending) return;
    this.timings = { ...this.#pending, totalMs: performance.now() - this.#t0 };
    this.#pending = null;
  }

  /**
   * The expansion sets to lay out: the current one, or for a card's first view its overview
   * and that overview with its last expansions folded back (at most OVERVIEW_TRIES), smallest
   * first, so one round trip finds the largest overview fit.ts accepts for the pane (the worker
   * stops at the first it does not).
   */
  #candidates(cause: GraphTimings['cause']): Set<string>[] {
    const order = this.#overview;
    if (cause !== 'open' || !order.length || !this.viewport.width) return [this.expanded];
    // Small ones first (the worker stops at the first not taken), and the whole overview.
    const sizes = Array.from({ length: order.length + 1 }, (_, k) => k);
    const picked =
      sizes.length > OVERVIEW_TRIES ? [...sizes.slice(0, OVERVIEW_TRIES - 1), order.length] : sizes;
    return picked.map((k) => new Set(order.slice(0, k)));
  }

  /** The last candidate fit.ts accepts (else the smallest). */
  #pick(scenes: Scene[], fit: FitSpec): number {
    let best = 0;
    scenes.forEach((s, i) => {
      if (acceptable(s, scenes[0], fit)) best = i;
    });
    return best;
  }

  async #relayout(cause: GraphTimings['cause']) {
    const h = this.hierarchy;
    const req = ++this.#req;
    if (!h) {
      this.status = 'empty';
      return;
    }
    const sets = this.#candidates(cause);
    const graphs = sets.map((open) => visibleGraph(h, open));
    const jobs = graphs.map((vg) => levelJobs(vg, h.root));
    const buildMs = performance.now() - this.#t0;
    this.status = 'layout';
    this.error = null;
    try {
      this.#client ??= new LayoutClient();
      const vp = this.viewport;
      const fit: FitSpec = { width: vp.width, height: vp.height, k: READABLE_K, margin: MARGIN };
      // A toggle may stretch the levels around a grown group; an overview is laid out anew.
      const out = await this.#client.layout(jobs, {
        fit: sets.length > 1 ? fit : undefined,
        stretch: cause === 'toggle',
      });
      if (req !== this.#req) return;
      // The worker stops after the first candidate fit.ts does not take: only those came back.
      const scenes = out.layouts.map((l, k) => compose(graphs[k], h.root, l));
      const i = scenes.length > 1 ? this.#pick(scenes, fit) : 0;
      const vg = graphs[i];
      this.#pending = {
        seq: this.sceneSeq + 1,
        cause,
        eqns: h.eqnCount,
        boxes: vg.boxCount,
        edges: vg.edges.length,
        levels: jobs[i].length,
        computed: out.computed,
        stretched: out.stretched,
        buildMs,
        elkMs: out.elkMs,
        layoutRoundTripMs: out.totalMs,
      };
      if (sets.length > 1) this.expanded = sets[i];
      this.visible = vg;
      this.scene = scenes[i];
      const anchor = this.#anchor && scenes[i].byId.get(this.#anchor.id);
      if (anchor && cause === 'toggle') this.viewport.keep(anchor, this.#anchor!.at);
      if (this.#restart) this.viewport.initial(scenes[i].width, scenes[i].height);
      this.#anchor = null;
      this.#restart = false;
      this.status = 'ready';
      this.firstView = cause === 'open';
      this.sceneSeq += 1;
    } catch (err) {
      if (req !== this.#req) return;
      this.status = 'error';
      this.error = `layout failed: ${String(err)}`;
    }
  }
}
