/** Short and long human renderings of value summaries for badges, tooltips and lists. */
import type { ValueSummary } from '../protocol/types';

export function num(x: number | null | undefined): string {
  if (x === null || x === undefined) return '–';
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) return x.toExponential(2);
  return String(Number(x.toPrecision(4)));
}

function previewItem(p: number | boolean | string): string {
  return typeof p === 'number' ? num(p) : String(p);
}

export function shapeText(v: ValueSummary): string {
  return `${v.dtype}[${v.shape.join(',')}]`;
}

/** A few characters for a node badge: the scalar itself, or the mean of an array. */
export function badge(v: ValueSummary): string {
  const size = v.shape.reduce((a, b) => a * b, 1);
  if (size === 1 && v.preview.length > 0) return previewItem(v.preview[0]);
  if (v.mean !== null) return `μ ${num(v.mean)}`;
  return shapeText(v);
}

/** NaN/Inf marker text, or '' when all values are finite. */
export function nonFiniteText(v: ValueSummary): string {
  const parts: string[] = [];
  if (v.nan_count) parts.push(`NaN×${v.nan_count}`);
  if (v.inf_count) parts.push(`Inf×${v.inf_count}`);
  return parts.join(' ');
}

export function previewText(v: ValueSummary): string {
  const items = v.preview.map(previewItem).join(', ');
  return `[${items}${v.truncated ? ', …' : ''}]`;
}

/** Multi-line summary for tooltips and the accessible listing. */
export function describe(v: ValueSummary): string {
  const lines = [shapeText(v)];
  if (v.min !== null) lines.push(`min ${num(v.min)}  max ${num(v.max)}`);
  if (v.mean !== null) lines.push(`mean ${num(v.mean)}  norm ${num(v.norm)}`);
  const nf = nonFiniteText(v);
  if (nf) lines.push(nf);
  lines.push(previewText(v));
  return lines.join('\n');
}

/** A byte count as people say it: "1 MiB", "640 KiB", "512 bytes". */
export function bytesText(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}
