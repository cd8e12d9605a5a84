/**
 * Export of the drawn graph and of the card. The SVG is a standalone copy of the live scene:
 * the pan/zoom transform is dropped (the whole graph at scale 1), every label is present
 * (whatever the zoom), and the theme's styles are inlined from the computed style of each
 * element, so the file renders the same in a browser, an editor or a slide. PNG rasterises
 * that SVG at 2× (capped to what a canvas holds). The card exports as its wire JSON, valid
 * against the protocol's JSON Schema. DOM-dependent except `cardJson`.
 */
import type { TraceCard } from '../protocol/types';

const STYLE_PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'paint-order',
] as const;
const MAX_CANVAS = 8000;

function inline(src: Element, dst: Element) {
  const cs = getComputedStyle(src);
  const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';');
  dst.setAttribute('style', style);
  dst.removeAttribute('class');
  for (const a of [...dst.attributes]) if (a.name.startsWith('data-')) dst.removeAttribute(a.name);
  const kids = src.children;
  for (let i = 0; i < kids.length; i++) inline(kids[i], dst.children[i]);
}

/** A standalone SVG document of the scene drawn in `svg` (the whole graph, scale 1). */
export function standaloneSvg(
  svg: SVGSVGElement,
  width: number,
  height: number,
  title: string,
): string {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  inline(svg, copy);
  copy.removeAttribute('style');
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', String(w));
  copy.setAttribute('height', String(h));
  copy.setAttribute('viewBox', `0 0 ${w} ${h}`);
  copy.removeAttribute('aria-hidden');
  const world = copy.querySelector(':scope > g');
  world?.removeAttribute('transform');
  const ns = 'http://www.w3.org/2000/svg';
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', getComputedStyle(svg.parentElement ?? svg).backgroundColor || '#fff');
  const t = document.createElementNS(ns, 'title');
  t.textContent = title;
  copy.insertBefore(bg, copy.firstChild);
  copy.insertBefore(t, copy.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(copy)}`;
}

/** Rasterise an SVG document to a PNG blob at `scale` (reduced to fit a canvas). */
export async function svgToPng(
  svgText: string,
  width: number,
  height: number,
  scale = 2,
): Promise<Blob> {
  const s = Math.max(0.1, Math.min(scale, MAX_CANVAS / Math.max(width, height, 1)));
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * s);
    canvas.height = Math.ceil(height * s);
    const ctx = canvas.getContext('2d')!;
    ctx.scale(s, s);
    ctx.drawImage(img, 0, 0);
    return await new Promise((resolve, reject) =>
      canvas.toBlob(
        (b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))),
        'image/png',
      ),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The card as its wire JSON (what the server sent, validated by the protocol schema). */
export function cardJson(card: TraceCard): string {
  return JSON.stringify(card, null, 1);
}

/** A file name from a card title: `grad(loss)` → `grad-loss`. */
export function fileStem(title: string): string {
  return title.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '') || 'graph';
}

export function download(name: string, data: Blob | string, type = 'application/octet-stream') {
  const blob = typeof data === 'string' ? new Blob([data], { type }) : data;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
