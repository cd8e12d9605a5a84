import { describe, expect, it } from 'vitest';
import type { Step, ValueSummary } from '../protocol/types';
import { syntheticCard } from '../testing/synthetic';
import { backwardStart, frameAt, gradMarks } from './timeline';

const steps: Step[] = [
  { index: 0, phase: 'forward', eqn_id: null, var_ids: ['a'], label: 'in' },
  { index: 1, phase: 'forward', eqn_id: 'e0', var_ids: ['b'], label: 'b = sin a' },
  { index: 2, phase: 'forward', eqn_id: 'e1', var_ids: ['c'], label: 'c = mul b b' },
  { index: 3, phase: 'backward', eqn_id: 'e1', var_ids: ['c', 'b'], label: 'ct mul' },
  { index: 4, phase: 'backward', eqn_id: 'e0', var_ids: ['a'], label: 'ct sin' },
];

function vs(norm: number | null, extra: Partial<ValueSummary> = {}): ValueSummary {
  return {
    shape: [],
    dtype: 'float32',
    min: null,
    max: null,
    mean: null,
    norm,
    nan_count: 0,
    inf_count: 0,
    preview: [],
    truncated: false,
    ...extra,
  };
}

describe('frameAt', () => {
  it('is empty before the first step', () => {
    const f = frameAt(steps, -1);
    expect(f.phase).toBe('idle');
    expect(f.current).toBeNull();
    expect(f.values.size).toBe(0);
  });

  it('is the union of steps 0..k', () => {
    const f = frameAt(steps, 2);
    expect(f.phase).toBe('forward');
    expect([...f.values]).toEqual(['a', 'b', 'c']);
    expect(f.eqns.get('e1')).toBe('forward');
    expect(f.cotangents.size).toBe(0);
  });

  it('turns equations backward as their cotangents arrive', () => {
    const f3 = frameAt(steps, 3);
    expect(f3.eqns.get('e1')).toBe('backward');
    expect(f3.eqns.get('e0')).toBe('forward');
    expect([...f3.cotangents]).toEqual(['c', 'b']);
    const f4 = frameAt(steps, 99);
    expect(f4.step).toBe(4);
    expect(f4.eqns.get('e0')).toBe('backward');
  });

  it('finds the start of the backward pass', () => {
    expect(backwardStart(steps)).toBe(3);
    expect(backwardStart(steps.slice(0, 3))).toBe(3);
    const card = syntheticCard({ eqns: 5 });
    expect(backwardStart(card.timeline)).toBe(6);
  });
});

describe('gradMarks', () => {
  it('log-scales magnitudes between the smallest and largest', () => {
    const m = gradMarks({ a: vs(0.01), b: vs(1), c: vs(100), z: vs(0) });
    expect(m.get('a')!.t).toBeCloseTo(0);
    expect(m.get('b')!.t).toBeCloseTo(0.5);
    expect(m.get('c')!.t).toBeCloseTo(1);
    expect(m.get('z')!.t).toBe(0);
  });

  it('flags non-finite cotangents at full strength', () => {
    const m = gradMarks({ a: vs(1), b: vs(null, { nan_count: 2 }) });
    expect(m.get('b')).toEqual({ t: 1, nonFinite: true });
    expect(m.get('a')!.nonFinite).toBe(false);
  });

  it('falls back to min/max when the norm is missing', () => {
    const m = gradMarks({ a: vs(null, { min: -4, max: 1 }), b: vs(0.4) });
    expect(m.get('a')!.t).toBeCloseTo(1);
  });
});
