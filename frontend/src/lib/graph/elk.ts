/**
 * Translation between the page's GraphModel and ELK's JSON graph. Pure, so the worker stays a
 * thin shell and the translation is tested in node with the real ELK. Options: layered,
 * top-to-bottom, all coordinates absolute (ROOT) so the renderer never accumulates offsets, and
 * model order respected so the jaxpr's own program order seeds the layering — a small edit to the
 * code moves few nodes (the complaint iongraph makes about Graphviz).
 */
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import type { GraphModel } from './model';

export interface Point {
  x: number;
  y: number;
}
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface EdgeRoute {
  points: Point[];
  /** Where the aval label goes: the middle of the longest segment. */
  label: Point;
}
export interface Layout {
  width: number;
  height: number;
  nodes: Record<string, Box>;
  edges: Record<string, EdgeRoute>;
}

const ROOT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.json.edgeCoords': 'ROOT',
  'elk.json.shapeCoords': 'ROOT',
  'elk.edgeRouting': 'POLYLINE',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  // One sweep of crossing minimisation is plenty for program-ordered input and keeps a
  // 300-equation jaxpr well inside the 1 s budget on a 2-core machine.
  'elk.layered.thoroughness': '3',
  'elk.spacing.nodeNode': '18',
  'elk.layered.spacing.nodeNodeBetweenLayers': '30',
  'elk.spacing.edgeNode': '12',
  'elk.padding': '[top=16,left=16,bottom=16,right=16]',
};
const GROUP_OPTIONS: Record<string, string> = {
  'elk.padding': '[top=30,left=12,bottom=12,right=12]',
};

export function toElk(g: GraphModel): ElkNode {
  const byId = new Map<string, ElkNode>();
  const root: ElkNode = { id: '__root', layoutOptions: ROOT_OPTIONS, children: [], edges: [] };
  for (const n of g.nodes) {
    const group = n.kind === 'group';
    const elk: ElkNode = group
      ? { id: n.id, children: [], layoutOptions: GROUP_OPTIONS }
      : { id: n.id, width: n.width, height: n.height };
    byId.set(n.id, elk);
    const parent = n.parent ? byId.get(n.parent) : root;
    (parent ?? root).children!.push(elk);
  }
  root.edges = g.edges.map((e): ElkExtendedEdge => ({
    id: e.id,
    sources: [e.source],
    targets: [e.target],
  }));
  return root;
}

function labelPoint(points: Point[]): Point {
  let best = 0;
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

export function fromElk(out: ElkNode): Layout {
  const nodes: Record<string, Box> = {};
  const edges: Record<string, EdgeRoute> = {};
  const walk = (n: ElkNode) => {
    for (const c of n.children ?? []) {
      nodes[c.id] = { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 };
      walk(c);
    }
    for (const e of (n.edges ?? []) as ElkExtendedEdge[]) {
      const s = e.sections?.[0];
      if (!s) continue;
      const points = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint];
      edges[e.id] = { points, label: labelPoint(points) };
    }
  };
  walk(out);
  return { width: out.width ?? 0, height: out.height ?? 0, nodes, edges };
}

/** SVG path through a route's points. */
export function pathOf(points: Point[]): string {
  return points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join('');
}
