import { describe, expect, it } from 'vitest';
import { syntheticCard } from '../testing/synthetic';
import { layoutScene } from '../testing/layoutScene';
import { buildHierarchy } from './hierarchy';
import { navigate } from './nav';
import { visibleGraph } from './visible';

describe('keyboard navigation', { timeout: 60_000 }, () => {
  it('follows edges down and up, and walks siblings left/right', async () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    const h = buildHierarchy(card);
    const open = new Set([`n:${card.jaxpr.eqns[5].id}`]);
    const vg = visibleGraph(h, open);
    const scene = await layoutScene(h, open);
    const first = navigate(vg, scene, null, 'Home')!;
    expect(scene.byId.get(first)!.box.node!.kind).toBe('input');
    const e0 = `n:${card.jaxpr.eqns[0].id}`;
    const down = navigate(vg, scene, e0, 'ArrowDown')!;
    expect(h.edges.some((e) => e.source === e0 && e.target === down)).toBe(true);
    expect(navigate(vg, scene, down, 'ArrowUp')).toBe(e0);
    const side = navigate(vg, scene, e0, 'ArrowRight');
    expect(side === null || vg.boxes.get(side)!.level === vg.boxes.get(e0)!.level).toBe(true);
  });
});
