/**
 * Expanding a group lays out only that group: the levels around it are not laid out again but
 * stretched. When a box of an already laid-out level grows by (dw, dh), everything right of its
 * right edge moves right by dw and everything below its bottom edge moves down by dh (boxes by
 * their top-left corner, edge routes point by point). That keeps every other box where the
 * reader last saw it relative to its neighbours (iongraph's argument for stable layouts), and it
 * cannot make boxes overlap: two boxes apart along an axis stay apart, since the one further
 * along moves at least as far; and a box beside the grown one is either past its edge (moves
 * with it) or on its other side (the growth goes right and down only). A dimension that shrank
 * (an expanded frame narrower than its collapsed box) moves nothing. When nothing grew (a
 * collapse), the level is laid out again by ELK (usually from the cache: the layout before the
 * growth). Pure.
 */
import type { ElkNode } from 'elkjs/lib/elk-api';
import type { LevelLayout, Point } from './elk';

export interface Growth {
  id: string;
  dw: number;
  dh: number;
}

const EPS = 0.01;

/**
 * How `next` (a level's ELK graph) differs from `prev` when only some boxes changed size and
 * at least one grew: the size changes, or null when anything else differs (boxes, edges,
 * options) or nothing grew (a collapse: laid out again, usually from the cache).
 */
export function growths(prev: ElkNode, next: ElkNode): Growth[] | null {
  const a = prev.children ?? [];
  const b = next.children ?? [];
  if (a.length !== b.length) return null;
  if (JSON.stringify(prev.layoutOptions) !== JSON.stringify(next.layoutOptions)) return null;
  if (JSON.stringify(prev.edges) !== JSON.stringify(next.edges)) return null;
  const out: Growth[] = [];
  for (let i = 0; i < a.length; i++) {
    const [p, n] = [a[i], b[i]];
    if (p.id !== n.id || JSON.stringify(p.layoutOptions) !== JSON.stringify(n.layoutOptions))
      return null;
    const dw = (n.width ?? 0) - (p.width ?? 0);
    const dh = (n.height ?? 0) - (p.height ?? 0);
    if (Math.abs(dw) > EPS || Math.abs(dh) > EPS) out.push({ id: n.id, dw, dh });
  }
  return out.some((g) => g.dw > EPS || g.dh > EPS) ? out : null;
}

/** `layout` with each grown box made larger and the plane stretched past its right/bottom. */
export function stretch(layout: LevelLayout, grown: Growth[]): LevelLayout {
  const nodes = Object.fromEntries(Object.entries(layout.nodes).map(([k, r]) => [k, { ...r }]));
  const edges = Object.fromEntries(
    Object.entries(layout.edges).map(([k, e]) => [
      k,
      { points: e.points.map((p) => ({ ...p })), label: { ...e.label } },
    ]),
  );
  let { width, height } = layout;
  for (const g of grown) {
    const r = nodes[g.id];
    if (!r) continue;
    const right = r.x + r.width - EPS;
    const bottom = r.y + r.height - EPS;
    // A dimension that shrank moves nothing (the box just takes less room there).
    const [dx, dy] = [Math.max(0, g.dw), Math.max(0, g.dh)];
    const move = (p: Point) => {
      if (p.x >= right) p.x += dx;
      if (p.y >= bottom) p.y += dy;
    };
    for (const [id, n] of Object.entries(nodes)) if (id !== g.id) move(n);
    for (const e of Object.values(edges)) {
      e.points.forEach(move);
      move(e.label);
    }
    r.width += g.dw;
    r.height += g.dh;
    width += dx;
    height += dy;
  }
  return { width, height, nodes, edges };
}
