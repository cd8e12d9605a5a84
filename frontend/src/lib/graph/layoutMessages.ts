/** Typed messages between the page and layout.worker.ts. */
import type { LevelJob, LevelLayout } from './elk';
import type { FitSpec } from './fit';

/**
 * Lay out each set of levels, children before parents (a parent takes its children's sizes).
 * Several sets are the candidate overviews of a card, answered in one round trip (levels they
 * share are laid out once).
 */
export interface LayoutRequest {
  id: number;
  sets: LevelJob[][];
  /**
   * The sets are candidate overviews, smallest first: stop after the first one fit.ts does not
   * accept for a width × height pane at zoom `k` (the larger ones would not be either).
   */
  fit?: FitSpec;
  /** A level that differs from its last layout only by grown children is stretched. */
  stretch?: boolean;
}
export type LayoutResponse =
  | {
      id: number;
      ok: true;
      layouts: Record<string, LevelLayout>[];
      ms: number;
      /** Levels ELK actually ran on (the others came from the worker's cache or a stretch). */
      computed: number;
      /** Levels stretched around a grown child instead of laid out again. */
      stretched: number;
    }
  | { id: number; ok: false; error: string; ms: number };
/** Sent once by the worker when its warm-up layouts are done, with how long they took. */
export interface WarmedMessage {
  warmed: number;
}
