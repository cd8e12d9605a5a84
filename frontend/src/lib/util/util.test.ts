import { describe, expect, it } from 'vitest';
import type { ValueSummary } from '../protocol/types';
import { backoffDelay } from './backoff';
import { badge, bytesText, describe as describeValue, nonFiniteText, num } from './format';

describe('backoffDelay', () => {
  it('doubles from base to max with equal jitter', () => {
    const lo = (a: number) => backoffDelay(a, { base: 100, max: 1000 }, () => 0);
    const hi = (a: number) => backoffDelay(a, { base: 100, max: 1000 }, () => 1);
    expect([lo(0), lo(1), lo(2), lo(3), lo(10)]).toEqual([50, 100, 200, 400, 500]);
    expect([hi(0), hi(1), hi(4), hi(10)]).toEqual([100, 200, 1000, 1000]);
  });
});

const v = (extra: Partial<ValueSummary>): ValueSummary => ({
  shape: [3],
  dtype: 'float32',
  min: -1,
  max: 2,
  mean: 0.5,
  norm: 2.449,
  nan_count: 0,
  inf_count: 0,
  preview: [-1, 0.5, 2],
  truncated: false,
  ...extra,
});

describe('value formatting', () => {
  it('formats numbers compactly', () => {
    expect(num(0)).toBe('0');
    expect(num(1 / 3)).toBe('0.3333');
    expect(num(123456)).toBe('1.23e+5');
    expect(num(NaN)).toBe('nan');
    expect(num(-Infinity)).toBe('-inf');
    expect(num(null)).toBe('–');
  });

  it('badges scalars by value and arrays by mean', () => {
    expect(badge(v({ shape: [], preview: [1.5] }))).toBe('1.5');
    expect(badge(v({}))).toBe('μ 0.5');
  });

  it('reports non-finite counts', () => {
    expect(nonFiniteText(v({}))).toBe('');
    expect(nonFiniteText(v({ nan_count: 2, inf_count: 1 }))).toBe('NaN×2 Inf×1');
    expect(describeValue(v({ truncated: true }))).toContain('[-1, 0.5, 2, …]');
  });
});

describe('bytesText', () => {
  it('says sizes the way limits are stated', () => {
    expect(bytesText(1 << 20)).toBe('1 MiB');
    expect(bytesText(3 << 19)).toBe('1.5 MiB');
    expect(bytesText(640 * 1024)).toBe('640 KiB');
    expect(bytesText(100)).toBe('100 bytes');
  });
});
