import { describe, expect, it } from 'vitest';
import { arr, summarize } from '../testing/flowCards';
import {
  colourOf,
  decodeHeatmap,
  heatmapLabel,
  heatmapPixels,
  NONFINITE_RGB,
  thumbSize,
} from './heatmap';

describe('heatmaps', () => {
  it('decodes cells back to values within one level of 255', () => {
    const a = arr([2, 3], [-1, 0, 1, 2, 3, 4]);
    const h = summarize(a).heatmap!;
    expect(h.rows).toBe(2);
    expect(h.cols).toBe(3);
    const d = decodeHeatmap(h);
    expect(d.signed).toBe(true);
    d.values.forEach((v, i) => expect(Math.abs(v - a.data[i])).toBeLessThanOrEqual(5 / 255));
  });

  it('marks non-finite cells and colours them apart', () => {
    const h = summarize(arr([4], [1, NaN, Infinity, 2])).heatmap!;
    expect(h.cells.slice(2, 6)).toBe('----');
    const d = decodeHeatmap(h);
    expect(d.nonFinite).toBe(2);
    const px = heatmapPixels(d);
    expect([...px.slice(4, 7)]).toEqual(NONFINITE_RGB);
    expect(px.length).toBe(16);
  });

  it('uses a diverging scale centred on zero for signed data', () => {
    const zero = colourOf(0, -2, 1, true);
    const neg = colourOf(-2, -2, 1, true);
    const pos = colourOf(1, -2, 1, true);
    expect(neg[2]).toBeGreaterThan(neg[0]); // blue
    expect(pos[0]).toBeGreaterThan(pos[2]); // red, at half strength since |hi| < |lo|
    expect(zero[0]).toBe(zero[2]); // neutral
    const seqLo = colourOf(0, 0, 1, false);
    const seqHi = colourOf(1, 0, 1, false);
    expect(seqHi[1]).toBeGreaterThan(seqLo[1]);
  });

  it('sizes thumbnails with square cells and describes them', () => {
    expect(thumbSize(4, 3)).toEqual({ w: 48, h: 64 });
    expect(thumbSize(1, 8)).toEqual({ w: 64, h: 10 });
    expect(heatmapLabel(summarize(arr([2, 2], [-1, 0, 1, 2])).heatmap!)).toBe(
      'heatmap 2×2, -1 to 2 (blue negative, red positive)',
    );
  });
});
