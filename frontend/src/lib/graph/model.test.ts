import { describe, expect, it } from 'vitest';
import { syntheticCard } from '../testing/synthetic';
import { buildGraph, countEqns, defaultCollapsed, indexEqns } from './model';

describe('buildGraph', () => {
  it('has one node per equation, input and output, and an edge per variable use', () => {
    const card = syntheticCard({ eqns: 12 });
    const g = buildGraph(card.jaxpr);
    const eqnNodes = g.nodes.filter((n) => n.eqnId !== null);
    expect(g.eqnCount).toBe(12);
    expect(eqnNodes).toHaveLength(12);
    expect(g.nodes.filter((n) => n.kind === 'input')).toHaveLength(2);
    expect(g.nodes.filter((n) => n.kind === 'output')).toHaveLength(1);
    const uses = card.jaxpr.eqns.reduce((a, e) => a + e.invars.length, 0) + 1;
    expect(g.edges).toHaveLength(uses);
    const ids = new Set(g.nodes.map((n) => n.id));
    for (const e of g.edges) {
      expect(ids.has(e.source)).toBe(true);
      expect(ids.has(e.target)).toBe(true);
      expect(e.label).toBe('f32[3]');
    }
  });

  it('draws an expanded sub-jaxpr as a group holding its own nodes', () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    const g = buildGraph(card.jaxpr);
    const pjit = g.nodes.find((n) => n.label === 'pjit')!;
    expect(pjit.kind).toBe('group');
    expect(pjit.innerEqns).toBe(3);
    const sub = g.nodes.filter((n) => n.parent === pjit.id);
    expect(sub).toHaveLength(1);
    const inside = g.nodes.filter((n) => n.parent === sub[0].id);
    expect(inside.filter((n) => n.eqnId)).toHaveLength(3);
    expect(inside.every((n) => n.depth === 1)).toBe(true);
    expect(g.nodes.filter((n) => n.eqnId && n.depth === 0)).toHaveLength(6);
  });

  it('collapses a group into one node and maps the hidden equations to it', () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    const pjitId = card.jaxpr.eqns[5].id;
    const g = buildGraph(card.jaxpr, new Set([pjitId]));
    const node = g.nodes.find((n) => n.eqnId === pjitId)!;
    expect(node.kind).toBe('eqn');
    expect(node.collapsed).toBe(true);
    expect(g.nodes.some((n) => n.parent === node.id)).toBe(false);
    const inner = card.jaxpr.eqns[5].subjaxprs[0].jaxpr.eqns.map((e) => e.id);
    for (const id of inner) expect(g.hidden[id]).toBe(node.id);
  });

  it('collapses groups by default only when the graph would be too big', () => {
    const small = syntheticCard({ eqns: 6, nested: 3 });
    expect(defaultCollapsed(small.jaxpr).size).toBe(0);
    const big = syntheticCard({ eqns: 20, nested: 15 });
    expect([...defaultCollapsed(big.jaxpr, 10)]).toEqual([big.jaxpr.eqns[19].id]);
  });

  it('counts and indexes nested equations', () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    expect(countEqns(card.jaxpr)).toBe(9);
    expect(indexEqns(card.jaxpr).size).toBe(9);
  });
});
