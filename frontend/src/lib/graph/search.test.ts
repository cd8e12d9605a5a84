import { describe, expect, it } from 'vitest';
import { syntheticProgram } from '../testing/synthetic';
import { buildHierarchy } from './hierarchy';
import { search } from './search';

const h = buildHierarchy(syntheticProgram({ layers: 2 }).card);
const names = (q: string) => search(h, q).map((x) => h.nodes.get(x.id)!.name);

describe('search', () => {
  it('finds Python names first, exact before prefix before substring', () => {
    expect(names('softmax')[0]).toBe('softmax');
    expect(names('scores')).toEqual(['scores', 'scores₂']);
    expect(names('sco').every((n) => n.startsWith('sco'))).toBe(true);
  });

  it('finds by primitive, by shape, and by field prefix', () => {
    const tanh = search(h, 'tanh');
    expect(tanh.length).toBeGreaterThan(0);
    expect(
      tanh.every(
        (x) => h.nodes.get(x.id)!.primitive === 'tanh' || h.nodes.get(x.id)!.name.includes('tanh'),
      ),
    ).toBe(true);
    expect(search(h, 'op:rsq').every((x) => h.nodes.get(x.id)!.primitive === 'rsqrt')).toBe(true);
    expect(search(h, 'shape:[8, 16]').length).toBeGreaterThan(10);
    expect(search(h, 'f32[9,9]')).toHaveLength(0);
  });

  it('matches hidden nodes and Python names with pytree paths', () => {
    const hit = search(h, "params['blocks'][1]['W2']");
    expect(hit[0].score).toBe(100);
    expect(h.nodes.get(hit[0].id)!.kind).toBe('input');
  });

  it('finds nothing for an empty query', () => {
    expect(search(h, '  ')).toEqual([]);
  });
});
