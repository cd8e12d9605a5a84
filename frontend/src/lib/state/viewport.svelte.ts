/**
 * The graph pane's camera: pan/zoom transform, the pane's size, and the views it chooses. A
 * card opens at a READABLE zoom (every label at least 10 px on screen) rather than squeezed to
 * fit: when the overview is larger than the pane, it starts at the top (the inputs) and the user
 * pans, with the minimap showing where they are.
 */
import type { Rect } from '../graph/elk';
import { READABLE_K } from '../graph/lod';

export interface Transform {
  x: number;
  y: number;
  k: number;
}

const MIN_K = 0.04;
const MAX_K = 4;
export const MARGIN = 12;

export class Viewport {
  transform = $state<Transform>({ x: 0, y: 0, k: 1 });
  width = $state(0);
  height = $state(0);

  resize(width: number, height: number) {
    this.width = width;
    this.height = height;
  }

  zoomBy(factor: number, cx = this.width / 2, cy = this.height / 2) {
    const { x, y, k } = this.transform;
    const nk = Math.min(MAX_K, Math.max(MIN_K, k * factor));
    this.transform = { k: nk, x: cx - ((cx - x) * nk) / k, y: cy - ((cy - y) * nk) / k };
  }

  panBy(dx: number, dy: number) {
    this.transform = { ...this.transform, x: this.transform.x + dx, y: this.transform.y + dy };
  }

  /** Zoom that fits a width × height scene (capped at 1.25). */
  fitK(width: number, height: number): number {
    if (!this.width || !this.height || !width || !height) return 1;
    const k = Math.min((this.width - 2 * MARGIN) / width, (this.height - 2 * MARGIN) / height);
    return Math.min(1.25, Math.max(MIN_K, k));
  }

  fit(width: number, height: number) {
    const k = this.fitK(width, height);
    this.transform = {
      k,
      x: (this.width - width * k) / 2,
      y: Math.max(MARGIN, (this.height - height * k) / 2),
    };
  }

  /** The first view of a scene: fitted when that is readable, else readable from the top. */
  initial(width: number, height: number) {
    const fit = this.fitK(width, height);
    if (fit >= READABLE_K) return this.fit(width, height);
    const k = READABLE_K;
    const x = width * k <= this.width ? (this.width - width * k) / 2 : MARGIN;
    this.transform = { k, x, y: MARGIN };
  }

  /** Pan (keeping the zoom, raised to readable) so that a box is centred. */
  centre(box: Rect, readable = true) {
    const k = readable ? Math.max(this.transform.k, READABLE_K) : this.transform.k;
    this.transform = {
      k,
      x: this.width / 2 - (box.x + box.width / 2) * k,
      y: this.height / 2 - (box.y + box.height / 2) * k,
    };
  }

  /** Is a box entirely on screen? */
  shows(box: Rect): boolean {
    const { x, y, k } = this.transform;
    const left = box.x * k + x;
    const top = box.y * k + y;
    return (
      left >= 0 &&
      top >= 0 &&
      left + box.width * k <= this.width &&
      top + box.height * k <= this.height
    );
  }

  /** Is the whole scene (width × height) on screen? */
  showsAll(width: number, height: number): boolean {
    return this.shows({ x: 0, y: 0, width, height });
  }

  /** Where a scene point is on screen. */
  toScreen(px: number, py: number): { x: number; y: number } {
    const { x, y, k } = this.transform;
    return { x: px * k + x, y: py * k + y };
  }

  /**
   * Keep a box where it was on screen (its top-left at `at`), then pan as little as needed to
   * bring the rest of it in: a group the user just expanded opens in place, towards where there
   * is room, with its title bar staying in sight when it is larger than the pane.
   */
  keep(box: Rect, at: { x: number; y: number }) {
    const { k } = this.transform;
    let x = at.x - box.x * k;
    let y = at.y - box.y * k;
    const fit = (pos: number, size: number, view: number) => {
      const lo = pos + size * k - (view - MARGIN);
      if (size * k > view - 2 * MARGIN) return MARGIN - pos;
      return lo > 0 ? -lo : pos < MARGIN ? MARGIN - pos : 0;
    };
    x += fit(box.x * k + x, box.width, this.width);
    y += fit(box.y * k + y, box.height, this.height);
    this.transform = { k, x, y };
  }

  /** Centre a box unless it is already fully visible at a readable zoom. */
  reveal(box: Rect) {
    if (this.transform.k >= READABLE_K && this.shows(box)) return;
    this.centre(box);
  }

  /** The part of the scene on screen, in scene coordinates (for the minimap). */
  visibleRect(): Rect {
    const { x, y, k } = this.transform;
    return { x: -x / k, y: -y / k, width: this.width / k, height: this.height / k };
  }

  /** Centre the view on a scene point (minimap clicks). */
  lookAt(px: number, py: number) {
    const { k } = this.transform;
    this.transform = { k, x: this.width / 2 - px * k, y: this.height / 2 - py * k };
  }
}
