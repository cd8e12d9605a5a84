/**
 * Keyboard navigation over the drawn graph. Up/Down follow edges (to the nearest producer /
 * consumer on the same level, by horizontal distance), Left/Right move between siblings of a
 * level (nearest box of the same row, else the previous / next in program order), Home goes
 * to the first box. Enter and Escape (expand, collapse / go up) are the pane's, since they
 * change the expansion. Ports are skipped: the cursor lands on boxes that stand for tree nodes.
 * Pure.
 */
import type { Scene, SceneBox } from './scene';
import type { VisibleGraph } from './visible';

export type NavKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'Home';

function centre(b: SceneBox) {
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

function nearest(from: SceneBox, cands: SceneBox[]): SceneBox | null {
  let best: SceneBox | null = null;
  let d = Infinity;
  const c = centre(from);
  for (const b of cands) {
    const p = centre(b);
    const dist = Math.abs(p.x - c.x) + 0.5 * Math.abs(p.y - c.y);
    if (dist < d) {
      d = dist;
      best = b;
    }
  }
  return best;
}

/** Boxes reached from `id` along its level's edges, skipping through ports to the level above. */
function along(vg: VisibleGraph, scene: Scene, id: string, down: boolean): SceneBox[] {
  const box = vg.boxes.get(id);
  if (!box) return [];
  const level = vg.levels.get(box.level)!;
  const out: SceneBox[] = [];
  for (const e of level.edges) {
    const [from, to] = down ? [e.source, e.target] : [e.target, e.source];
    if (from !== id) continue;
    const next = vg.boxes.get(to);
    if (!next) continue;
    // A port leads out of the group: continue from the group's frame on the level above.
    const target = next.port ? along(vg, scene, box.level, down) : [scene.byId.get(to)!];
    out.push(...target.filter((b) => b && b.box.node));
  }
  return out;
}

function siblings(vg: VisibleGraph, scene: Scene, id: string): SceneBox[] {
  const box = vg.boxes.get(id);
  if (!box) return [];
  return vg.levels
    .get(box.level)!
    .boxes.map((b) => scene.byId.get(b))
    .filter((b): b is SceneBox => !!b && !!b.box.node);
}

function sideways(vg: VisibleGraph, scene: Scene, cur: SceneBox, right: boolean): SceneBox | null {
  const sibs = siblings(vg, scene, cur.box.id);
  const c = centre(cur);
  const row = sibs.filter((b) => Math.abs(centre(b).y - c.y) < cur.height && b !== cur);
  const side = row.filter((b) => (right ? centre(b).x > c.x : centre(b).x < c.x));
  if (side.length) return nearest(cur, side);
  const order = sibs.sort((a, b) => (a.box.node!.order ?? 0) - (b.box.node!.order ?? 0));
  const i = order.indexOf(cur);
  return order[i + (right ? 1 : -1)] ?? null;
}

/** The box the cursor moves to, or null to stay. */
export function navigate(
  vg: VisibleGraph,
  scene: Scene,
  current: string | null,
  key: NavKey,
): string | null {
  const cur = current ? scene.byId.get(current) : undefined;
  if (!cur || key === 'Home') {
    const first = [...scene.boxes]
      .filter((b) => b.box.node)
      .sort((a, b) => a.y - b.y || a.x - b.x)[0];
    return first?.box.id ?? null;
  }
  if (key === 'ArrowDown' || key === 'ArrowUp') {
    const next = nearest(cur, along(vg, scene, cur.box.id, key === 'ArrowDown'));
    return next?.box.id ?? null;
  }
  return sideways(vg, scene, cur, key === 'ArrowRight')?.box.id ?? null;
}
