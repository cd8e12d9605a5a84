/**
 * Level of detail: which texts the graph draws at a zoom. A label that would be smaller than
 * 8 px on screen is not drawn at all (boxes, colours and edges stay), so a zoomed-out graph
 * reads as shapes instead of grey noise. READABLE_K is the zoom at which the smallest label
 * is 10 px: cards open at least that close. Pure.
 */
import { FONT } from './summary';

export const MIN_LABEL_PX = 8;
export const READABLE_PX = 10;
/** Smallest font the graph uses (details, edge labels, ports), in scene units. */
export const SMALLEST_FONT = FONT.detail;
export const READABLE_K = READABLE_PX / SMALLEST_FONT + 0.005;

export interface Lod {
  names: boolean;
  details: boolean;
  edgeLabels: boolean;
}

export function lodAt(k: number): Lod {
  return {
    names: FONT.name * k >= MIN_LABEL_PX,
    details: FONT.detail * k >= MIN_LABEL_PX,
    edgeLabels: FONT.detail * k >= MIN_LABEL_PX,
  };
}
