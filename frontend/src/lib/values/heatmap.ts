/**
 * Heatmap thumbnails of recorded arrays (ValueSummary.heatmap): decoding the wire's hex cells
 * back to values, and colouring them — a diverging blue–grey–red scale centred on zero for
 * signed data, a sequential scale otherwise, and a loud magenta for a cell holding NaN/Inf.
 * Pure (no DOM): drawing to a canvas once per value lives in heatmapImage.ts.
 */
import type { Heatmap } from '../protocol/types';

export interface DecodedHeatmap {
  rows: number;
  cols: number;
  /** Row-major cell values in data units; NaN marks a non-finite cell. */
  values: Float64Array;
  lo: number;
  hi: number;
  /** True when the data straddles zero (diverging colours). */
  signed: boolean;
  nonFinite: number;
}

export function decodeHeatmap(h: Heatmap): DecodedHeatmap {
  const n = h.rows * h.cols;
  const values = new Float64Array(n);
  let nonFinite = 0;
  for (let i = 0; i < n; i++) {
    const s = h.cells.slice(2 * i, 2 * i + 2);
    const b = s === '--' || s.length < 2 ? NaN : parseInt(s, 16);
    if (Number.isNaN(b)) {
      values[i] = NaN;
      nonFinite += 1;
    } else values[i] = h.lo + (b / 255) * (h.hi - h.lo);
  }
  return {
    rows: h.rows,
    cols: h.cols,
    values,
    lo: h.lo,
    hi: h.hi,
    signed: h.lo < 0 && h.hi > 0,
    nonFinite,
  };
}

export type RGB = [number, number, number];

export const NONFINITE_RGB: RGB = [255, 0, 220];
const NEG: RGB = [33, 102, 172];
const MID: RGB = [200, 200, 200];
const POS: RGB = [203, 24, 29];
/** Sequential stops (dark blue → teal → yellow), readable on dark and light backgrounds. */
const SEQ: RGB[] = [
  [48, 18, 89],
  [41, 88, 140],
  [32, 145, 140],
  [92, 200, 99],
  [253, 231, 37],
];

function mix(a: RGB, b: RGB, t: number): RGB {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t)) as RGB;
}

/** Colour of one value on the heatmap's scale. */
export function colourOf(v: number, lo: number, hi: number, signed: boolean): RGB {
  if (!Number.isFinite(v)) return NONFINITE_RGB;
  if (signed) {
    const m = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
    const t = Math.max(-1, Math.min(1, v / m));
    return t < 0 ? mix(MID, NEG, -t) : mix(MID, POS, t);
  }
  const t = hi > lo ? Math.max(0, Math.min(1, (v - lo) / (hi - lo))) : 0.5;
  const x = t * (SEQ.length - 1);
  const i = Math.min(SEQ.length - 2, Math.floor(x));
  return mix(SEQ[i], SEQ[i + 1], x - i);
}

/** RGBA pixels, one per cell, row-major (what a canvas ImageData wants). */
export function heatmapPixels(d: DecodedHeatmap): Uint8ClampedArray {
  const px = new Uint8ClampedArray(d.rows * d.cols * 4);
  d.values.forEach((v, i) => {
    const [r, g, b] = colourOf(v, d.lo, d.hi, d.signed);
    px.set([r, g, b, 255], 4 * i);
  });
  return px;
}

/** Display size in CSS pixels: the longer side `max`, cells square, never thinner than `min`. */
export function thumbSize(
  rows: number,
  cols: number,
  max = 64,
  min = 10,
): { w: number; h: number } {
  const cell = Math.max(1, Math.floor(max / Math.max(rows, cols)));
  return { w: Math.max(min, cols * cell), h: Math.max(min, rows * cell) };
}

/** A short accessible description: "heatmap 4×3, -1.2 to 0.8 (blue negative, red positive)". */
export function heatmapLabel(h: Heatmap): string {
  const scale = h.lo < 0 && h.hi > 0 ? ' (blue negative, red positive)' : '';
  const block = h.block[0] > 1 || h.block[1] > 1 ? `, ${h.block[0]}×${h.block[1]} per cell` : '';
  const slice = h.slice ? ` of slice ${h.slice}` : '';
  const fmt = (x: number) => String(Number(x.toPrecision(3)));
  return `heatmap${slice} ${h.rows}×${h.cols}${block}, ${fmt(h.lo)} to ${fmt(h.hi)}${scale}`;
}
