import { describe, expect, it } from 'vitest';
import type { LevelLayout } from '../graph/elk';
import { buildHierarchy } from '../graph/hierarchy';
import { compose, levelJobs } from '../graph/scene';
import { visibleGraph } from '../graph/visible';
import { isGroup } from '../graph/tree';
import type { TraceCard } from '../protocol/types';
import { fanOutCard } from '../testing/flowCards';
import { syntheticProgram } from '../testing/syntheticProgram';
import { sceneRoutes } from './flowRoutes';

/** Lay every level out on a diagonal, edges straight from box centre to box centre. */
function fakeScene(card: TraceCard, expandAll: boolean) {
  const h = buildHierarchy(card);
  const open = new Set(
    expandAll ? [...h.nodes.values()].filter((n) => isGroup(n)).map((n) => n.id) : [],
  );
  const vg = visibleGraph(h, open);
  const layouts: Record<string, LevelLayout> = {};
  for (const job of levelJobs(vg, h.root)) {
    const nodes: LevelLayout['nodes'] = {};
    job.nodes.forEach((n, i) => (nodes[n.id] = { x: 40 * i, y: 70 * i, width: 30, height: 20 }));
    const c = (id: string) => ({ x: nodes[id].x + 15, y: nodes[id].y + 10 });
    const edges: LevelLayout['edges'] = {};
    for (const e of job.edges)
      edges[e.id] = { points: [c(e.source), c(e.target)], label: c(e.source) };
    layouts[job.id] = { width: 40 * job.nodes.length, height: 70 * job.nodes.length, nodes, edges };
  }
  return { h, vg, scene: compose(vg, h.root, layouts) };
}

describe('scene routes of data edges', () => {
  for (const [name, card, all] of [
    ['fan-out', fanOutCard(), false],
    ['nested program, overview', syntheticProgram({ layers: 1, fanout: 2 }).card, false],
    ['nested program, all expanded', syntheticProgram({ layers: 1, fanout: 2 }).card, true],
  ] as const) {
    it(`joins every drawn use of a variable end to end (${name})`, () => {
      const { h, vg, scene } = fakeScene(card as TraceCard, all);
      const route = sceneRoutes(h, vg, scene);
      let drawn = 0;
      let crossing = 0;
      for (const e of h.edges) {
        const a = vg.rep.get(e.source)!;
        const b = vg.rep.get(e.target)!;
        const eqn = h.nodes.get(e.target)!.eqnId;
        if (!eqn || h.eqnNode.get(eqn) !== e.target) continue;
        if (a === b || !scene.byId.has(a) || !scene.byId.has(b)) continue;
        const pts = route(e.varId, eqn);
        expect(pts, `${e.varId} -> ${eqn}`).not.toBeNull();
        drawn += 1;
        if (pts!.length > 2) crossing += 1;
        const sa = scene.byId.get(a)!;
        const pts2 = pts!;
        const sb = scene.byId.get(b)!;
        expect(pts2[0]).toEqual({ x: sa.x + 15, y: sa.y + 10 });
        expect(pts2[pts2.length - 1]).toEqual({ x: sb.x + 15, y: sb.y + 10 });
      }
      expect(drawn).toBeGreaterThan(0);
      // Expanded groups route uses through their ports: several segments joined.
      if (all) expect(crossing).toBeGreaterThan(0);
    });
  }
});
