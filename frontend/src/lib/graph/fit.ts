/**
 * Which candidate overview a card opens with. Candidates are the card's overview with more or
 * fewer of its groups expanded, smallest first. A candidate is taken when, at the readable zoom
 * (every label at least 10 px), it is no wider than the pane (or than the bare top level, when
 * even that is wider) and at most GROW pane heights tall (or GROW times the bare top level):
 * a first view may scroll down a little, as a page does, but never sideways, and a card whose
 * top level is one box ("model", 2,000 ops) opens at what that box holds. Pure; the layout
 * worker stops at the first candidate that is not taken, the page picks the last one that is.
 */
export interface FitSpec {
  width: number;
  height: number;
  /** The readable zoom. */
  k: number;
  margin: number;
}

/** How many pane heights (or bare-top-level heights) a first view may take. */
export const GROW = 1.5;

export function acceptable(
  size: { width: number; height: number },
  bare: { width: number; height: number },
  f: FitSpec,
): boolean {
  const w = Math.max(f.width - 2 * f.margin, bare.width * f.k);
  const h = Math.max(f.height - 2 * f.margin, bare.height * f.k) * GROW;
  return size.width * f.k <= w + 0.5 && size.height * f.k <= h + 0.5;
}
