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

export function levelJobs(vg: VisibleGraph, root: string): LevelJob[] {
  return vg.order.map((id) => {
    const level = vg.levels.get(id)!;
    return {
      id,
      root: id === root,
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
      const se: SceneEdge = { ...shift(route, dx, dy), edge };
      scene.edges.push(se);
      for (const v of edge.varIds)
        scene.edgesByVar.set(v, [...(scene.edgesByVar.get(v) ?? []), se]);
    }
  };
  place(root, 0, 0, 0);
  scene.frames.sort((a, b) => a.depth - b.depth);
  return scene;
}
