/**
 * From a visible graph to the jobs the layout worker runs (one per level, children first), and
 * from the worker's per-level layouts to the scene the pane draws: every box and edge route in
 * absolute coordinates. Frames are listed outermost first so that drawing in order puts inner
 * boxes on top. Pure.
 */
import type { EdgeRoute, LevelJob, LevelLayout, Rect } from './elk';
import type { VBox, VEdge, VisibleGraph } from './visible';

export interface SceneBox extends Rect {
  box: VBox;
  depth: number;
}

export interface SceneEdge extends EdgeRoute {
  edge: VEdge;
  /** False when the label would overlap a box or an earlier label (it is then not drawn). */
  showLabel: boolean;
}

export interface Scene {
  width: number;
  height: number;
  /** Expanded groups, outermost first. */
  frames: SceneBox[];
  /** Leaves, collapsed groups and ports. */
  boxes: SceneBox[];
  byId: Map<string, SceneBox>;
  edges: SceneEdge[];
  /** var id → the drawn edges carrying it (one per level it crosses). */
  edgesByVar: Map<string, SceneEdge[]>;
}

/** A series (`head ×14`) whose members do not feed each other: laid out as a column. */
function parallelSeries(vg: VisibleGraph, id: string): boolean {
  const n = vg.boxes.get(id)?.node;
  if (!n || n.kind !== 'chunk' || !n.scopeKind) return false;
  const member = (b: string) => !vg.boxes.get(b)?.port;
  return !vg.levels.get(id)!.edges.some((e) => member(e.source) && member(e.target));
}

export function levelJobs(vg: VisibleGraph, root: string): LevelJob[] {
  return vg.order.map((id) => {
    const level = vg.levels.get(id)!;
    return {
      id,
      root: id === root,
      ...(parallelSeries(vg, id) ? { across: true } : {}),
      nodes: level.boxes.map((b) => {
        const box = vg.boxes.get(b)!;
        const layer = box.port ? (box.port.dir === 'in' ? 'first' : 'last') : undefined;
        return {
          id: b,
          width: box.width,
          height: box.height,
          ...(box.open ? { child: b } : {}),
          ...(layer ? { layer } : {}),
        } as const;
      }),
      edges: level.edges.map((e) => ({ id: e.id, source: e.source, target: e.target })),
    };
  });
}

function shift(r: EdgeRoute, dx: number, dy: number): EdgeRoute {
  const m = (p: { x: number; y: number }) => ({ x: p.x + dx, y: p.y + dy });
  return { points: r.points.map(m), label: m(r.label) };
}

/** Place every level inside its frame, from the root down. */
export function compose(
  vg: VisibleGraph,
  root: string,
  layouts: Record<string, LevelLayout>,
): Scene {
  const scene: Scene = {
    width: layouts[root]?.width ?? 0,
    height: layouts[root]?.height ?? 0,
    frames: [],
    boxes: [],
    byId: new Map(),
    edges: [],
    edgesByVar: new Map(),
  };
  const edgeById = new Map(vg.edges.map((e) => [e.id, e]));
  const place = (level: string, dx: number, dy: number, depth: number) => {
    const l = layouts[level];
    if (!l) return;
    for (const id of vg.levels.get(level)!.boxes) {
      const r = l.nodes[id];
      const box = vg.boxes.get(id)!;
      if (!r) continue;
      const sb: SceneBox = {
        x: r.x + dx,
        y: r.y + dy,
        width: r.width,
        height: r.height,
        box,
        depth,
      };
      scene.byId.set(id, sb);
      (box.open ? scene.frames : scene.boxes).push(sb);
      if (box.open) place(id, sb.x, sb.y, depth + 1);
    }
    for (const [id, route] of Object.entries(l.edges)) {
      const edge = edgeById.get(id);
      if (!edge) continue;
      const se: SceneEdge = { ...shift(route, dx, dy), edge, showLabel: true };
      scene.edges.push(se);
      for (const v of edge.varIds)
        scene.edgesByVar.set(v, [...(scene.edgesByVar.get(v) ?? []), se]);
    }
  };
  place(root, 0, 0, 0);
  scene.frames.sort((a, b) => a.depth - b.depth);
  declutterLabels(scene, vg);
  return scene;
}

/** Edge label font (scene units) and monospace advance, as GraphEdges draws them. */
const LABEL_PX = 11;
const ADVANCE = 0.61;

function overlap(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Drop edge labels that would sit on a box or on another label of their level: fewer, legible
 * labels (the shapes are on the boxes too).
 */
export function declutterLabels(scene: Scene, vg: VisibleGraph) {
  const byLevel = new Map<string, SceneEdge[]>();
  for (const e of scene.edges) byLevel.set(e.edge.level, [...(byLevel.get(e.edge.level) ?? []), e]);
  for (const [level, edges] of byLevel) {
    const boxes = (vg.levels.get(level)?.boxes ?? [])
      .map((id) => scene.byId.get(id)!)
      .filter(Boolean);
    declutterLevel(edges, boxes);
  }
}

function declutterLevel(edges: SceneEdge[], boxes: Rect[]) {
  const placed: Rect[] = [];
  for (const e of edges) {
    const r = {
      x: e.label.x + 4,
      y: e.label.y - 3 - LABEL_PX,
      width: e.edge.label.length * LABEL_PX * ADVANCE,
      height: LABEL_PX + 2,
    };
    const hit = placed.some((p) => overlap(p, r)) || boxes.some((b) => overlap(b, r));
    e.showLabel = !hit;
    if (!hit) placed.push(r);
  }
}
