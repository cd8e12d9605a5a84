import { describe, expect, it } from 'vitest';
import { syntheticCard, syntheticProgram } from '../testing/synthetic';
import { layoutScene } from '../testing/layoutScene';
import { pathOf } from './elk';
import { buildHierarchy } from './hierarchy';
import { groupIds } from './tree';
import { initialExpansion, visibleGraph } from './visible';

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

function inside(c: { x: number; y: number; width: number; height: number }, p: typeof c) {
  return (
    c.x >= p.x &&
    c.y >= p.y &&
    c.x + c.width <= p.x + p.width + 0.5 &&
    c.y + c.height <= p.y + p.height + 0.5
  );
}

// Real ELK on a shared 2-core machine: generous per-test time (no timing is asserted here).
describe('level-by-level layout', { timeout: 60_000 }, () => {
  it('places every box inside its frame, without overlaps among siblings', async () => {
    const { card } = syntheticProgram({ layers: 2 });
    const h = buildHierarchy(card);
    const scene = await layoutScene(h, new Set(groupIds(h)));
    const vg = visibleGraph(h, new Set(groupIds(h)));
    expect(scene.byId.size).toBe(vg.boxes.size);
    for (const b of [...scene.frames, ...scene.boxes]) {
      const frame = scene.byId.get(b.box.level);
      if (frame) expect(inside(b, frame), b.box.id).toBe(true);
    }
    for (const level of vg.levels.values()) {
      const boxes = level.boxes.map((id) => scene.byId.get(id)!);
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i], boxes[j])).toBe(false);
    }
    for (const e of scene.edges) expect(e.points.length).toBeGreaterThan(1);
  });

  it('keeps program order top to bottom along a dependency chain', async () => {
    const card = syntheticCard({ eqns: 8 });
    const h = buildHierarchy(card);
    const scene = await layoutScene(h, new Set());
    const ys = card.jaxpr.eqns.map((e) => scene.byId.get(`n:${e.id}`)!.y);
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThan(ys[i - 1]);
  });

  it('lays out the overview of a 2,000-equation program (time printed; budget in e2e/perf)', async () => {
    const { card } = syntheticProgram({ layers: 4, fanout: 3 });
    const t0 = performance.now();
    const h = buildHierarchy(card);
    const scene = await layoutScene(h, initialExpansion(h));
    const ms = performance.now() - t0;
    const boxes = [...scene.frames, ...scene.boxes].filter((b) => b.box.node).length;
    console.log(`[perf] node: ${h.eqnCount} eqns → ${boxes} boxes in ${ms.toFixed(0)} ms`);
    expect(h.eqnCount).toBeGreaterThan(1900);
    expect(boxes).toBeLessThanOrEqual(25);
  });

  it('renders a route as an SVG path', () => {
    expect(
      pathOf([
        { x: 0, y: 0 },
        { x: 1.25, y: 2 },
      ]),
    ).toBe('M0.0,0.0L1.3,2.0');
  });
});
