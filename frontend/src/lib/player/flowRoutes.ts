/**
 * Where a data edge `var → equation` is drawn in the graph pane's scene. The visible graph
 * routes one use of a variable through every level between its producer and its consumer:
 * out of each enclosing expanded group by an out-port, across the common level, into each
 * group by an in-port (graph/visible.ts). Here that route is rebuilt segment by segment from
 * the scene's edges and joined into one polyline, so a contribution's dot can travel the whole
 * way. Null when both ends sit inside one collapsed box (nothing to draw). Pure.
 */
import type { Scene, SceneEdge } from '../graph/scene';
import type { Hierarchy } from '../graph/tree';
import type { VisibleGraph } from '../graph/visible';
import type { Point, RouteOf } from './flowMarks';

function chain(h: Hierarchy, id: string): string[] {
  const out = [id];
  for (let p = h.nodes.get(id)?.parent; p; p = h.nodes.get(p)?.parent) out.push(p);
  return out;
}

/**
 * The drawn segments of one use of `varId`, from box `from` to box `to`, in the direction of
 * the data: a depth-first walk over the scene edges carrying the variable, where an edge into
 * an out-port continues from the port's group in the enclosing level, and an edge into an
 * expanded group continues from one of that group's in-ports. Only structural facts of the
 * visible graph are used (a port belongs to its group's level), not how ids are spelled.
 */
export function segmentsOf(
  vg: VisibleGraph,
  scene: Scene,
  varId: string,
  from: string,
  to: string,
): SceneEdge[] | null {
  const edges = scene.edgesByVar.get(varId) ?? [];
  const fromBox = (box: string) => edges.filter((e) => e.edge.source === box);
  const next = (e: SceneEdge): SceneEdge[] => {
    const t = vg.boxes.get(e.edge.target);
    if (t?.port?.dir === 'out') return fromBox(t.level);
    if (t?.open)
      return edges.filter((x) => {
        const s = vg.boxes.get(x.edge.source);
        return s?.port?.dir === 'in' && s.level === t.id;
      });
    return [];
  };
  const walk = (cands: SceneEdge[], path: SceneEdge[]): SceneEdge[] | null => {
    for (const e of cands) {
      if (path.includes(e) || path.length > 32) continue;
      const p = [...path, e];
      if (e.edge.target === to) return p;
      const found = walk(next(e), p);
      if (found) return found;
    }
    return null;
  };
  return walk(fromBox(from), []);
}

/** A RouteOf over a laid-out scene: the use `var → equation` as one polyline. */
export function sceneRoutes(h: Hierarchy, vg: VisibleGraph, scene: Scene): RouteOf {
  // One array per use for the scene's lifetime: marks built from it keep their identity (and
  // their path data, see flowMarks.ts) from step to step.
  const memo = new Map<string, Point[] | null>();
  return (varId, eqnId) => {
    const key = `${varId}>${eqnId}`;
    if (!memo.has(key)) memo.set(key, route(varId, eqnId));
    return memo.get(key)!;
  };
  function route(varId: string, eqnId: string): Point[] | null {
    const src = h.producer.get(varId);
    const dst = h.eqnNode.get(eqnId);
    const a = src ? vg.rep.get(src) : undefined;
    const b = dst ? vg.rep.get(dst) : undefined;
    if (!a || !b || a === b || chain(h, b).includes(a) || chain(h, a).includes(b)) return null;
    const segs = segmentsOf(vg, scene, varId, a, b);
    if (!segs) return null;
    const points: Point[] = segs.flatMap((e) => e.points);
    return points.length >= 2 ? points : null;
  }
}
