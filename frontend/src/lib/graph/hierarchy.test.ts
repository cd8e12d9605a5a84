import { describe, expect, it } from 'vitest';
import { syntheticCard, syntheticProgram } from '../testing/synthetic';
import { buildHierarchy } from './hierarchy';
import { pythonNames, pytreeHead, pytreePrefix, pytreeRoot, pytreeSteps } from './names';
import { chunkRuns } from './regroup';
import { ancestors, eqnsUnder, groupIds, isGroup, type Hierarchy } from './tree';
import { countBoxes, initialExpansion, visibleGraph } from './visible';

function leaves(h: Hierarchy) {
  return [...h.nodes.values()].filter((n) => !isGroup(n));
}

describe('buildHierarchy', () => {
  it('holds every equation exactly once, with inputs and outputs', () => {
    const card = syntheticCard({ eqns: 12 });
    const h = buildHierarchy(card);
    expect(h.eqnCount).toBe(12);
    expect(eqnsUnder(h, h.root).sort()).toEqual(card.jaxpr.eqns.map((e) => e.id).sort());
    expect(leaves(h).filter((n) => n.kind === 'input')).toHaveLength(2);
    expect(leaves(h).filter((n) => n.kind === 'output')).toHaveLength(1);
    const uses = card.jaxpr.eqns.reduce((a, e) => a + e.invars.length, 0) + 1;
    expect(h.edges).toHaveLength(uses);
  });

  it('nests equations by the recorded groups, backward pass under its transform group', () => {
    const { card } = syntheticProgram({ layers: 2 });
    const h = buildHierarchy(card);
    const top = h.nodes.get(h.root)!.children.map((c) => h.nodes.get(c)!);
    expect(top.map((n) => n.name)).toEqual(expect.arrayContaining(['params', 'x', 'y', 'loss']));
    // The transform group around the backward `loss` reads as that call, backward.
    const back = top.find((n) => n.jaxprName === 'transpose(jvp(loss)) / loss')!;
    expect(back.name).toBe('loss');
    expect(back.phase).toBe('backward');
    expect(back.detail).toMatch(/^backward · \d+ ops$/);
    const softmax = [...h.nodes.values()].find((n) => n.name === 'softmax')!;
    const path = ancestors(h, softmax.id).map((a) => h.nodes.get(a)!.name);
    expect(path.slice(0, 3)).toEqual(['attention', 'block', 'loss']);
    expect(softmax.path).toBe('loss / block / attention');
    expect(softmax.detail).toBe('5 ops');
    expect(softmax.io).toBe('f32[8,16] → f32[8,16]');
  });

  it('shows Python names on nodes and keeps jaxpr names as the alternative', () => {
    const { card } = syntheticProgram({ layers: 1 });
    const h = buildHierarchy(card);
    const q = [...h.nodes.values()].find((n) => n.name === 'q')!;
    expect(q.kind).toBe('eqn');
    expect(q.jaxprName).toBe('dot_general');
    expect(q.detail).toBe('dot_general · f32[8,16]');
    expect(q.jaxprDetail).toMatch(/^[a-z]+:f32\[8,16\]/);
    const params = [...h.nodes.values()].find((n) => n.kind === 'args' && n.name === 'params')!;
    expect(params.children.map((c) => h.nodes.get(c)!.name)).toContain("params['blocks'][0]['Wq']");
    expect(params.detail).toBe('8 arrays');
  });

  it('makes an equation holding a sub-jaxpr a group around it', () => {
    const card = syntheticCard({ eqns: 6, nested: 3 });
    const h = buildHierarchy(card);
    const pjit = h.nodes.get(`n:${card.jaxpr.eqns[5].id}`)!;
    expect(pjit.kind).toBe('call');
    expect(pjit.name).toBe('jit(inner)');
    expect(pjit.eqnCount).toBe(4);
    expect(pjit.children.map((c) => h.nodes.get(c)!.kind)).toEqual([
      'input',
      'eqn',
      'eqn',
      'eqn',
      'output',
    ]);
  });

  it('cuts a long flat run into chunks by source line, every level within budget', () => {
    const card = syntheticCard({ eqns: 300 });
    const h = buildHierarchy(card);
    expect(h.nodes.get(h.root)!.children.length).toBeLessThanOrEqual(25);
    for (const g of groupIds(h)) expect(h.nodes.get(g)!.children.length).toBeLessThanOrEqual(30);
    const chunk = [...h.nodes.values()].find((n) => n.kind === 'chunk')!;
    expect(chunk.name).toMatch(/^f · lines? \d+/);
    expect(eqnsUnder(h, h.root)).toHaveLength(300);
  });

  it('disambiguates a rebound Python name with subscripts', () => {
    const { card } = syntheticProgram({ layers: 2 });
    const names = [...pythonNames(card.jaxpr).values()];
    expect(names).toContain('x');
    expect(names).toContain('x₂');
    expect(names.filter((n) => n === 'x')).toHaveLength(1);
  });
});

describe('pytree arguments', () => {
  it('group by path, one step deeper while a group is crowded', () => {
    const { card } = syntheticProgram({ layers: 4 });
    const h = buildHierarchy(card);
    const params = [...h.nodes.values()].find((n) => n.kind === 'args' && n.name === 'params')!;
    const kids = params.children.map((c) => h.nodes.get(c)!);
    expect(kids.map((k) => k.name)).toEqual([0, 1, 2, 3].map((i) => `params['blocks'][${i}]`));
    expect(kids[0].children.map((c) => h.nodes.get(c)!.name)).toContain(
      "params['blocks'][0]['Wq']",
    );
    expect(kids[0].detail).toBe('8 arrays');
  });

  it('reads paths step by step', () => {
    expect(pytreeSteps("params['layers'][0].w")).toEqual(['params', "['layers']", '[0]', '.w']);
    expect(pytreePrefix("params['layers'][0].w", 1)).toBe("params['layers']");
    expect(pytreePrefix('x', 3)).toBe('x');
  });
});

describe('series', () => {
  it('folds three or more consecutive calls of one function into one box', () => {
    const { card } = syntheticProgram({ layers: 4 });
    const h = buildHierarchy(card);
    const series = [...h.nodes.values()].filter((n) => n.name === 'block ×4');
    expect(series).toHaveLength(2); // forward and backward
    expect(series[0].detail).toMatch(/^4 calls · \d+ ops$/);
    expect(series[0].children.map((c) => h.nodes.get(c)!.name)).toEqual([
      'block #1',
      'block #2',
      'block #3',
      'block #4',
    ]);
    const inner = [...h.nodes.values()].find(
      (n) => n.name === 'softmax' && n.path.includes('backward'),
    )!;
    expect(inner.path).toMatch(/^loss \(backward\) \/ block ×4 \/ block #\d \/ attention$/);
    const two = buildHierarchy(syntheticProgram({ layers: 2 }).card);
    expect([...two.nodes.values()].some((n) => n.name.startsWith('block ×'))).toBe(false);
  });
});

describe('overview', () => {
  it('opens a 2,000-equation program at ≤ 25 boxes, expanding the biggest groups that fit', () => {
    const { card } = syntheticProgram({ layers: 4, fanout: 3 });
    const h = buildHierarchy(card);
    const open = initialExpansion(h);
    const vg = visibleGraph(h, open);
    expect(vg.boxCount).toBe(countBoxes(h, open));
    expect(vg.boxCount).toBeLessThanOrEqual(25);
    expect([...open].map((id) => h.nodes.get(id)!.name)).toEqual(['loss', 'block ×4']);
  });

  it('draws values crossing an open group through ports, and none across closed ones', () => {
    const { card } = syntheticProgram({ layers: 1 });
    const h = buildHierarchy(card);
    const loss = [...h.nodes.values()].find((n) => n.kind === 'scope' && n.name === 'loss')!;
    const closed = visibleGraph(h, new Set());
    expect([...closed.boxes.values()].some((b) => b.port)).toBe(false);
    const open = visibleGraph(h, new Set([loss.id]));
    const ports = [...open.boxes.values()].filter((b) => b.port && b.level === loss.id);
    expect(ports.some((p) => p.port!.dir === 'in' && p.port!.label === 'x')).toBe(true);
    // The weights of one `params` box enter through one port.
    const weights = ports.find((p) => p.port!.label.startsWith('params ×'))!;
    expect(weights.port!.varIds.length).toBeGreaterThan(1);
    for (const e of open.edges) expect(open.boxes.get(e.source)!.level).toBe(e.level);
  });
});

describe('helpers', () => {
  it('pytree roots and heads', () => {
    expect(pytreeRoot("params['W1']")).toBe('params');
    expect(pytreeRoot('params[0][1]')).toBe('params');
    expect(pytreeHead('result[0][1]')).toBe('result[0]');
    expect(pytreeHead('x')).toBe('x');
  });

  it('chunk runs cover the range, at most max chunks, cutting where the score is high', () => {
    const score = (i: number) => (i % 10 === 0 ? 5 : 0);
    const runs = chunkRuns(score, 100, 8);
    expect(runs[0][0]).toBe(0);
    expect(runs.at(-1)![1]).toBe(100);
    expect(runs.length).toBeLessThanOrEqual(8);
    for (let i = 1; i < runs.length; i++) expect(runs[i][0]).toBe(runs[i - 1][1]);
    expect(runs.slice(0, -1).every(([, b]) => b % 10 === 0)).toBe(true);
  });
});
