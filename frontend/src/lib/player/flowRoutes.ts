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

const byIdMemo = new WeakMap<Scene, Map<string, SceneEdge>>();

function edgesById(scene: Scene): Map<string, SceneEdge> {
  let m = byIdMemo.get(scene);
  if (!m) byIdMemo.set(scene, (m = new Map(scene.edges.map((e) => [e.edge.id, e]))));
  return m;
}

function chain(h: Hierarchy, id: string): string[] {
  const out = [id];
  for (let p = h.nodes.get(id)?.parent; p; p = h.nodes.get(p)?.parent) out.push(p);
  return out;
}

/** Segment keys (level|source|target) of one use, in the direction of the data. */
export function segmentKeys(h: Hierarchy, vg: VisibleGraph, src: string, dst: string, v: string) {
  const ra = vg.rep.get(src);
  const rb = vg.rep.get(dst);
  if (!ra || !rb) return null;
  const a = chain(h, ra);
  const b = chain(h, rb);
  if (a[0] === b[0]) return null;
  const inB = new Set(b);
  const ia = a.findIndex((x) => inB.has(x));
  const ib = ia < 0 ? -1 : b.indexOf(a[ia]);
  if (ia <= 0 || ib <= 0) return null;
  const port = (level: string, dir: string) => `p:${level}:${dir}:${v}`;
  const keys: string[] = [];
  for (let k = 0; k < ia - 1; k++) keys.push(`${a[k + 1]}|${a[k]}|${port(a[k + 1], 'out')}`);
  keys.push(`${a[ia]}|${a[ia - 1]}|${b[ib - 1]}`);
  for (let k = ib - 2; k >= 0; k--) keys.push(`${b[k + 1]}|${port(b[k + 1], 'in')}|${b[k]}`);
  return keys;
}

/** A RouteOf over a laid-out scene. */
export function sceneRoutes(h: Hierarchy, vg: VisibleGraph, scene: Scene): RouteOf {
  const edges = edgesById(scene);
  return (varId, eqnId) => {
    const src = h.producer.get(varId);
    const dst = h.eqnNode.get(eqnId);
    if (!src || !dst) return null;
    const keys = segmentKeys(h, vg, src, dst, varId);
    if (!keys) return null;
    const points: Point[] = [];
    for (const k of keys) {
      const e = edges.get(k);
      if (!e) return null;
      points.push(...e.points);
    }
    return points.length >= 2 ? points : null;
  };
}
