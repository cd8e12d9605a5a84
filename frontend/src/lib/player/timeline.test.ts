import { describe, expect, it } from 'vitest';
import type { Step, ValueSummary } from '../protocol/types';
import { syntheticCard } from '../testing/synthetic';
import { fanOutCard, fanOutGrad, jvpCard, scanCard } from '../testing/flowCards';
import { backwardStart, edgeKey, frameAt, gradMarks, hasTangents } from './timeline';

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

describe('partial sums at a fan-out (sin(x) * x**2)', () => {
  const card = fanOutCard(1.5);
  const x = card.jaxpr.invars[0].id;
  const back = backwardStart(card.timeline);
  const partialAt = (k: number) => frameAt(card, k).partials.get(x);

  it('shows nothing at x before its first contribution arrives', () => {
    for (let k = -1; k < back + 2; k++) expect(partialAt(k)).toBeUndefined();
  });

  it('shows the first contribution as 1 of 2, then the sum as 2 of 2', () => {
    const first = partialAt(back + 2)!;
    expect(first.k).toBe(1);
    expect(first.of).toBe(2);
    expect(first.complete).toBe(false);
    expect(first.before).toBeNull();
    expect(first.sum.preview[0]).toBeCloseTo(2 * 1.5 * Math.sin(1.5), 5);
    const total = partialAt(back + 3)!;
    expect(total.k).toBe(2);
    expect(total.complete).toBe(true);
    expect(total.before!.preview[0]).toBeCloseTo(first.sum.preview[0] as number, 6);
    expect(total.last!.value.preview[0]).toBeCloseTo(1.5 * 1.5 * Math.cos(1.5), 5);
    expect(total.sum.preview[0]).toBeCloseTo(fanOutGrad(1.5), 5);
  });

  it('lists the contributions the current step sends, by edge', () => {
    const f = frameAt(card, back + 1);
    expect(f.phase).toBe('backward');
    expect(f.arriving.map((c) => c.from_eqn)).toEqual(['e2', 'e2']);
    expect(f.sent.has(edgeKey(card.jaxpr.eqns[0].outvars[0].id, 'e2'))).toBe(true);
    // x -> sin has carried nothing yet, though x's other edge will.
    expect(f.sent.has(edgeKey(x, 'e0'))).toBe(false);
    const end = frameAt(card, 99);
    expect(end.sent.has(edgeKey(x, 'e0'))).toBe(true);
    expect(end.sent.has(edgeKey(x, 'e1'))).toBe(true);
    expect(frameAt(card, back).arriving.map((c) => c.from_eqn)).toEqual([null]);
  });

  it('ends with every input holding its whole cotangent', () => {
    const end = frameAt(card, card.timeline.length - 1);
    for (const v of card.jaxpr.invars) {
      const p = end.partials.get(v.id)!;
      expect(p.complete).toBe(true);
      expect(p.sum).toEqual(card.cotangents[v.id]);
    }
  });

  it('falls back to the recorded totals for v1 cards (no contributions)', () => {
    const v1 = frameAt({ timeline: steps, cotangents: { a: vs(2, { preview: [2] }) } }, 4);
    expect(v1.partials.get('a')).toMatchObject({ k: 1, of: 1, complete: true, last: null });
  });
});

describe('forward mode and loops', () => {
  it('reveals tangents with values', () => {
    const card = jvpCard();
    expect(hasTangents(card)).toBe(true);
    const f = frameAt(card, 1);
    expect([...f.tangents]).toEqual([...f.values]);
    expect(frameAt(card, 0).tangents.size).toBe(1);
  });

  it('tracks the iteration a loop shows, forward then in reverse', () => {
    const card = scanCard(4, 4);
    const scan = card.loops![0].eqn_id;
    const iters = card.timeline.map((_, k) => frameAt(card, k).iterations.get(scan));
    const fwd = iters.filter((i) => i?.phase === 'forward').map((i) => i!.iteration);
    expect([...new Set(fwd)]).toEqual([0, 1, 2, 3]);
    const bwd = card.timeline
      .filter((s) => s.phase === 'backward' && s.iteration !== null)
      .map((s) => s.iteration);
    expect(bwd).toEqual([3, 2, 1, 0]);
    expect(iters[iters.length - 1]).toEqual({ iteration: 0, phase: 'backward' });
  });
});
