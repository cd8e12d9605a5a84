import ELK from 'elkjs/lib/elk.bundled.js';
import { describe, expect, it } from 'vitest';
import { syntheticCard } from '../testing/synthetic';
import { fromElk, pathOf, toElk } from './elk';
import { buildGraph } from './model';

const elk = new ELK();

function overlaps(a: { x: number; y: number; width: number; height: number }, b: typeof a) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

describe('ELK layout of a card graph', () => {
  it('places every node, routes every edge, and nests groups inside their parents', async () => {
    const g = buildGraph(syntheticCard({ eqns: 10, nested: 4 }).jaxpr);
    const layout = fromElk(await elk.layout(toElk(g)));
    for (const n of g.nodes) expect(layout.nodes[n.id], n.id).toBeDefined();
    for (const e of g.edges) expect(layout.edges[e.id]?.points.length, e.id).toBeGreaterThan(1);
    for (const n of g.nodes.filter((x) => x.parent)) {
      const c = layout.nodes[n.id];
      const p = layout.nodes[n.parent!];
      expect(c.x).toBeGreaterThanOrEqual(p.x);
      expect(c.y + c.height).toBeLessThanOrEqual(p.y + p.height + 0.5);
    }
    const top = g.nodes.filter((n) => !n.parent).map((n) => layout.nodes[n.id]);
    for (let i = 0; i < top.length; i++)
      for (let j = i + 1; j < top.length; j++) expect(overlaps(top[i], top[j])).toBe(false);
  });

  it('keeps program order top to bottom along a dependency chain', async () => {
    const card = syntheticCard({ eqns: 8 });
    const g = buildGraph(card.jaxpr);
    const layout = fromElk(await elk.layout(toElk(g)));
    const ys = card.jaxpr.eqns.map((e) => layout.nodes[`n:${e.id}`].y);
    for (let i = 1; i < ys.length; i++) expect(ys[i]).toBeGreaterThan(ys[i - 1]);
  });

  it('lays out a 300-equation jaxpr (time printed, budget checked in e2e/perf)', async () => {
    const g = buildGraph(syntheticCard({ eqns: 300 }).jaxpr);
    const t0 = performance.now();
    const layout = fromElk(await elk.layout(toElk(g)));
    const ms = performance.now() - t0;
    console.log(
      `[perf] ELK in node: ${g.nodes.length} nodes, ${g.edges.length} edges, ${ms.toFixed(0)} ms`,
    );
    expect(Object.keys(layout.nodes)).toHaveLength(g.nodes.length);
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
