import { describe, expect, it } from 'vitest';
import type { TraceCard } from '../protocol/types';
import heads from '../testing/recorded/heads.json';
import { buildHierarchy } from './hierarchy';
import { readableFn } from './names';
import { foldSeries } from './series';
import { eqnsUnder, type HKind, type HNode, type Hierarchy } from './tree';

// Recorded by didax from testing/recorded/heads.py (values, timeline and stages dropped):
// attention() calls head() four times from a list comprehension, slicing its weights per call.
const card = heads as unknown as TraceCard;

function names(h: Hierarchy, id: string): string[] {
  return h.nodes.get(id)!.children.map((c) => h.nodes.get(c)!.name);
}

describe('series and comprehensions on a recorded card', () => {
  const h = buildHierarchy(card);
  const all = [...h.nodes.values()];
  const attention = all.find((n) => n.name === 'attention')!;

  it('keeps a comprehension’s equations in the function that wrote it', () => {
    expect(card.groups!.map((g) => g.name)).toContain('<listcomp>');
    expect(all.some((n) => n.name.includes('<listcomp>'))).toBe(false);
    expect(all.some((n) => (n.fn ?? '').includes('<'))).toBe(false);
    expect(readableFn('attention.<locals>.<listcomp>')).toBe('attention');
    expect(readableFn('outer.<locals>.inner')).toBe('outer.inner');
    expect(readableFn('<module>')).toBe('<module>');
  });

  it('folds calls with their per-call argument indexing into one series', () => {
    const series = all.find((n) => n.name === 'head ×4')!;
    expect(series.parent).toBe(attention.id);
    expect(series.detail).toMatch(/^4 calls · \d+ ops$/);
    expect(names(h, series.id)).toEqual(['head #1', 'head #2', 'head #3', 'head #4']);
    for (const m of series.children) {
      const kids = h.nodes.get(m)!.children.map((c) => h.nodes.get(c)!);
      // p["w"][h], p["b"][h]: slices before the call, then the call itself.
      expect(kids.at(-1)!.name).toBe('head');
      expect(kids.slice(0, -1).every((k) => k.kind === 'eqn')).toBe(true);
      expect(kids.slice(0, -1).map((k) => k.primitive)).toContain('slice');
    }
    expect(eqnsUnder(h, h.root)).toHaveLength(card.jaxpr.eqns.length);
  });
});

/** A bare level of leaves (primitive names) and calls ('call:name') under a root. */
function level(items: string[]): Hierarchy {
  const nodes = new Map<string, HNode>();
  const node = (id: string, kind: HKind, name: string, extra: Partial<HNode> = {}): HNode => ({
    id,
    kind,
    name,
    jaxprName: name,
    detail: '',
    jaxprDetail: '',
    io: '',
    parent: 'root',
    children: [],
    eqnId: null,
    primitive: null,
    varIds: [],
    line: null,
    fn: null,
    eqnCount: 0,
    depth: 0,
    scopeKind: null,
    phase: null,
    path: '',
    order: 0,
    width: 0,
    height: 0,
    ...extra,
  });
  const root = node('root', 'root', 'f', { parent: null });
  nodes.set('root', root);
  items.forEach((it, i) => {
    const call = it.startsWith('call:');
    const n = call
      ? node(`c${i}`, 'scope', it.slice(5), { scopeKind: 'call' })
      : node(`e${i}`, 'eqn', it, { primitive: it });
    nodes.set(n.id, n);
    root.children.push(n.id);
  });
  return {
    nodes,
    vars: new Map(),
    root: 'root',
    edges: [],
    eqnNode: new Map(),
    producer: new Map(),
    eqnCount: 0,
  };
}

describe('foldSeries', () => {
  it('folds touching calls, renaming them by position', () => {
    const h = level(['add', 'call:block', 'call:block', 'call:block', 'mul']);
    foldSeries(h, h.nodes.get('root')!);
    expect(names(h, 'root')).toEqual(['add', 'block ×3', 'mul']);
    expect(names(h, h.nodes.get('root')!.children[1])).toEqual([
      'block #1',
      'block #2',
      'block #3',
    ]);
  });

  it('gives the equations after each call to it when only the last call is followed by them', () => {
    const h = level(['call:f', 'exp', 'call:f', 'exp', 'call:f', 'exp', 'add']);
    foldSeries(h, h.nodes.get('root')!);
    expect(names(h, 'root')).toEqual(['f ×3', 'add']);
    const members = h.nodes.get(h.nodes.get('root')!.children[0])!.children;
    expect(members.map((m) => names(h, m))).toEqual([
      ['f', 'exp'],
      ['f', 'exp'],
      ['f', 'exp'],
    ]);
  });

  it('leaves calls apart when what separates them differs, or there are fewer than three', () => {
    const h = level(['call:f', 'exp', 'call:f', 'log', 'call:f', 'call:g', 'call:g']);
    foldSeries(h, h.nodes.get('root')!);
    expect(names(h, 'root')).toEqual(['f', 'exp', 'f', 'log', 'f', 'g', 'g']);
  });
});
