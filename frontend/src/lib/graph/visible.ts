/**
 * What is shown for a hierarchy and a set of expanded groups: the visible boxes, one "level"
 * per expanded group (its visible children, laid out on their own, as Model Explorer lays out
 * each opened layer), and the edges of each level. An expanded group reads like a function
 * body: values arriving from outside enter through small in-ports at its top, values leaving
 * go through out-ports at its bottom, so no edge ever crosses a group border and each level is
 * a small flat graph the worker lays out independently (and caches). A variable used inside a
 * collapsed group is drawn on the group's box. Pure.
 */
import { isGroup, type HNode, type Hierarchy } from './tree';

export const PORT_H = 22;

export interface VPort {
  dir: 'in' | 'out';
  varIds: string[];
  label: string;
  /** The box on the other side, where the edge's two ends meet. */
  other: string;
}

export interface VBox {
  id: string;
  node: HNode | null;
  port: VPort | null;
  /** An expanded group drawn as a frame around its own level. */
  open: boolean;
  /** The expanded group whose level places this box. */
  level: string;
  width: number;
  height: number;
}

export interface VEdge {
  id: string;
  level: string;
  source: string;
  target: string;
  varIds: string[];
  label: string;
}

export interface VLevel {
  id: string;
  boxes: string[];
  edges: VEdge[];
}

export interface VisibleGraph {
  boxes: Map<string, VBox>;
  levels: Map<string, VLevel>;
  /** Level ids, children before parents (the order the layouts must run in). */
  order: string[];
  edges: VEdge[];
  /** Every tree node → the visible box standing for it (itself, or a collapsed ancestor). */
  rep: Map<string, string>;
  /** Boxes that are tree nodes (ports excluded), the root frame excluded. */
  boxCount: number;
}

class VBuilder {
  boxes = new Map<string, VBox>();
  levels = new Map<string, VLevel>();
  order: string[] = [];
  rep = new Map<string, string>();
  private segs = new Map<string, VEdge>();

  constructor(
    private h: Hierarchy,
    private open: Set<string>,
  ) {}

  walk(id: string, level: string | null, standIn: string | null) {
    const n = this.h.nodes.get(id)!;
    const shown = standIn === null;
    this.rep.set(id, standIn ?? id);
    const isOpen = shown && isGroup(n) && (id === this.h.root || this.open.has(id));
    if (shown && level !== null) {
      this.boxes.set(id, {
        id,
        node: n,
        port: null,
        open: isOpen,
        level,
        width: n.width,
        height: n.height,
      });
      this.levels.get(level)!.boxes.push(id);
    }
    if (isOpen) this.levels.set(id, { id, boxes: [], edges: [] });
    for (const c of n.children) this.walk(c, isOpen ? id : level, isOpen ? null : (standIn ?? id));
    if (isOpen) this.order.push(id);
  }

  private chains = new Map<string, { list: string[]; set: Set<string> }>();

  /** A box and its ancestors, nearest first (memoised: thousands of edges share few boxes). */
  chain(id: string): { list: string[]; set: Set<string> } {
    let c = this.chains.get(id);
    if (!c) {
      const list = [id];
      for (let p = this.h.nodes.get(id)!.parent; p; p = this.h.nodes.get(p)!.parent) list.push(p);
      c = { list, set: new Set(list) };
      this.chains.set(id, c);
    }
    return c;
  }

  /**
   * The port of `level` a value crosses: one per (direction, box on the other side at the
   * level where the edge's ends meet), so sixteen weights from one `params` box enter through
   * one port rather than sixteen.
   */
  port(level: string, dir: 'in' | 'out', varId: string, other: string): string {
    const id = `p:${level}:${dir}:${other}`;
    const box = this.boxes.get(id);
    if (box) {
      if (!box.port!.varIds.includes(varId)) box.port!.varIds.push(varId);
      return id;
    }
    const port: VPort = { dir, varIds: [varId], label: '', other };
    this.boxes.set(id, { id, node: null, port, open: false, level, width: 0, height: PORT_H });
    this.levels.get(level)!.boxes.push(id);
    return id;
  }

  /** Port labels and widths, once every value through them is known. */
  labelPorts() {
    for (const b of this.boxes.values()) {
      const p = b.port;
      if (!p) continue;
      const v = this.h.vars.get(p.varIds[0]);
      const other = this.h.nodes.get(p.other);
      p.label =
        p.varIds.length === 1
          ? (v?.python ?? v?.short ?? '?')
          : `${other?.name ?? '…'} ×${p.varIds.length}`;
      b.width = Math.max(28, Math.ceil(p.label.length * 11 * 0.61) + 14);
    }
  }

  segment(level: string, source: string, target: string, varId: string) {
    const key = `${level}|${source}|${target}`;
    const seg = this.segs.get(key);
    if (seg) {
      if (!seg.varIds.includes(varId)) seg.varIds.push(varId);
      return;
    }
    const e: VEdge = { id: key, level, source, target, varIds: [varId], label: '' };
    this.segs.set(key, e);
    this.levels.get(level)!.edges.push(e);
  }

  /** One data edge → a segment on every level between its two ends. */
  route(source: string, target: string, varId: string) {
    const a = this.chain(this.rep.get(source)!).list;
    const cb = this.chain(this.rep.get(target)!);
    const b = cb.list;
    if (a[0] === b[0]) return;
    const ia = a.findIndex((x) => cb.set.has(x));
    const ib = b.indexOf(a[ia]);
    if (ia <= 0 || ib <= 0) return;
    const [from, to] = [a[ia - 1], b[ib - 1]];
    for (let k = 0; k < ia - 1; k++)
      this.segment(a[k + 1], a[k], this.port(a[k + 1], 'out', varId, to), varId);
    for (let k = 0; k < ib - 1; k++)
      this.segment(b[k + 1], this.port(b[k + 1], 'in', varId, from), b[k], varId);
    this.segment(a[ia], a[ia - 1], b[ib - 1], varId);
  }

  finish(): VisibleGraph {
    this.labelPorts();
    const edges = [...this.segs.values()];
    for (const e of edges) e.label = edgeLabel(this.h, e.varIds);
    let boxCount = 0;
    for (const b of this.boxes.values()) if (b.node) boxCount += 1;
    return {
      boxes: this.boxes,
      levels: this.levels,
      order: this.order,
      edges,
      rep: this.rep,
      boxCount,
    };
  }
}

function edgeLabel(h: Hierarchy, varIds: string[]): string {
  const shapes = varIds.map((v) => h.vars.get(v)?.short ?? '');
  if (shapes.length === 1) return shapes[0];
  const distinct = new Set(shapes);
  if (distinct.size === 1) return `${shapes[0]} ×${shapes.length}`;
  return shapes.length === 2 ? shapes.join(' ') : `${shapes.length} values`;
}

/** The visible graph of `h` with the groups in `open` expanded (the root always is). */
export function visibleGraph(h: Hierarchy, open: Set<string>): VisibleGraph {
  const b = new VBuilder(h, open);
  b.walk(h.root, null, null);
  for (const e of h.edges) b.route(e.source, e.target, e.varId);
  return b.finish();
}

/** Boxes shown with `open` expanded, without building the graph (root frame excluded). */
export function countBoxes(h: Hierarchy, open: Set<string>): number {
  let n = 0;
  const visit = (id: string) => {
    for (const c of h.nodes.get(id)!.children) {
      n += 1;
      if (open.has(c)) visit(c);
    }
  };
  visit(h.root);
  return n;
}

/**
 * The overview a card opens with: expand the largest groups first while the number of boxes
 * stays within `budget` (argument groups stay closed: they are read by hovering).
 */
export function initialExpansion(h: Hierarchy, budget = 25): Set<string> {
  return new Set(expansionOrder(h, budget));
}

/** The groups initialExpansion opens, in the order it opens them. */
export function expansionOrder(h: Hierarchy, budget = 25): string[] {
  const open: string[] = [];
  let count = h.nodes.get(h.root)!.children.length;
  const candidates = (id: string) =>
    h.nodes
      .get(id)!
      .children.map((c) => h.nodes.get(c)!)
      .filter((n) => isGroup(n) && n.kind !== 'args');
  let frontier = candidates(h.root);
  for (;;) {
    frontier.sort((x, y) => y.eqnCount - x.eqnCount || x.order - y.order);
    const pick = frontier.find((g) => count + g.children.length <= budget);
    if (!pick) return open;
    open.push(pick.id);
    count += pick.children.length;
    frontier = [...frontier.filter((g) => g !== pick), ...candidates(pick.id)];
  }
}
