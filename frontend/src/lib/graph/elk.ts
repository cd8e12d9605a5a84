/**
 * One level (an expanded group's visible children and their edges) ↔ ELK's JSON graph. Pure, so
 * the worker stays a thin shell and the translation is tested in node with the real ELK.
 * Options: layered, top to bottom, program order respected so the jaxpr's own order seeds the
 * layering (a small edit to the code moves few nodes — iongraph's complaint about Graphviz),
 * in-ports pinned to the first layer and out-ports to the last. Coordinates are relative to the
 * level's frame, padding (the title bar) included.
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';

export interface Point {
  x: number;
  y: number;
}
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface EdgeRoute {
  points: Point[];
  /** Where the edge's label goes: the middle of its longest segment. */
  label: Point;
}

export interface JobNode {
  id: string;
  width: number;
  height: number;
  /** Takes its size from the layout of this level (an expanded group). */
  child?: string;
  layer?: 'first' | 'last';
}
export interface JobEdge {
  id: string;
  source: string;
  target: string;
}
export interface LevelJob {
  id: string;
  root: boolean;
  nodes: JobNode[];
  edges: JobEdge[];
  /**
   * Lay the level out left to right: a series of calls that do not feed each other (14
   * attention heads) is one wide layer top-down, and reads better as a column.
   */
  across?: boolean;
}
export interface LevelLayout {
  width: number;
  height: number;
  nodes: Record<string, Rect>;
  edges: Record<string, EdgeRoute>;
}

/** Title bar of an expanded group's frame, and the frame's other margins. */
export const FRAME = { top: 34, side: 12, bottom: 12 } as const;

const OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.edgeRouting': 'POLYLINE',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  // No crossing minimisation: program order already orders each layer well (iongraph's
  // choice), and it makes a level 3-5x cheaper, which is what keeps expanding instant.
  'elk.layered.crossingMinimization.strategy': 'NONE',
  'elk.spacing.nodeNode': '20',
  'elk.layered.spacing.nodeNodeBetweenLayers': '30',
  'elk.spacing.edgeNode': '12',
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
};
const LAYER = { first: 'FIRST', last: 'LAST' } as const;

export function toElk(
  job: LevelJob,
  size: (child: string) => { width: number; height: number },
): ElkNode {
  const pad = job.root
    ? '[top=16,left=16,bottom=16,right=16]'
    : `[top=${FRAME.top},left=${FRAME.side},bottom=${FRAME.bottom},right=${FRAME.side}]`;
  return {
    id: `__level:${job.id}`,
    layoutOptions: {
      ...OPTIONS,
      'elk.padding': pad,
      ...(job.across ? { 'elk.direction': 'RIGHT' } : {}),
    },
    children: job.nodes.map((n) => {
      const s = n.child ? size(n.child) : n;
      const opts = n.layer ? { 'elk.layered.layering.layerConstraint': LAYER[n.layer] } : undefined;
      return { id: n.id, width: s.width, height: s.height, layoutOptions: opts };
    }),
    edges: job.edges.map((e): ElkExtendedEdge => ({
      id: e.id,
      sources: [e.source],
      targets: [e.target],
    })),
  };
}

function labelPoint(points: Point[]): Point {
  let best = -1;
  let at: Point = points[0] ?? { x: 0, y: 0 };
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const len = Math.abs(a.x - b.x) + Math.abs(a.y - b.y);
    if (len > best) {
      best = len;
      at = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    }
  }
  return at;
}

export function fromElk(out: ElkNode): LevelLayout {
  const nodes: Record<string, Rect> = {};
  const edges: Record<string, EdgeRoute> = {};
  for (const c of out.children ?? [])
    nodes[c.id] = { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 };
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const s = e.sections?.[0];
    if (!s) continue;
    const points = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p) => ({
      x: p.x,
      y: p.y,
    }));
    edges[e.id] = { points, label: labelPoint(points) };
  }
  return { width: out.width ?? 0, height: out.height ?? 0, nodes, edges };
}

/** SVG path through a route's points. */
export function pathOf(points: Point[]): string {
  return points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
}
