/**
 * Draws a heatmap once, to a tiny canvas (one pixel per cell), and caches the PNG data URL per
 * Heatmap object, so tooltips, the values panel and the graph reuse one image instead of
 * drawing per frame. Scaling up is left to CSS/SVG (`image-rendering: pixelated`).
 */
import type { Heatmap } from '../protocol/types';
import { decodeHeatmap, heatmapPixels } from './heatmap';

const cache = new WeakMap<Heatmap, string>();
let drawn = 0;

/** How many heatmaps have been drawn (not served from the cache): a test hook. */
export function heatmapsDrawn(): number {
  return drawn;
}

export function heatmapUrl(h: Heatmap): string {
  const hit = cache.get(h);
  if (hit !== undefined) return hit;
  const d = decodeHeatmap(h);
  const canvas = document.createElement('canvas');
  canvas.width = d.cols;
  canvas.height = d.rows;
  const ctx = canvas.getContext('2d');
  let url = '';
  if (ctx) {
    const img = ctx.createImageData(d.cols, d.rows);
    img.data.set(heatmapPixels(d));
    ctx.putImageData(img, 0, 0);
    url = canvas.toDataURL('image/png');
  }
  drawn += 1;
  cache.set(h, url);
  return url;
}
