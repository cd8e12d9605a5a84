/**
 * `window.__didax`: the hook end-to-end tests and benchmarks drive the page through (after
 * rust-playground's `window.rustPlayground.setCode`). Filling the editor through the hook is
 * exact and fast where typing would fight auto-indent; the manual clock makes animation steps
 * deterministic; the perf getters expose what the page measured about itself.
 */
import { ManualClock } from './player/clock';
import type { Stats } from './player/frameStats';
import type { GraphTimings } from './state/graphview.svelte';
import type { Workspace } from './state/workspace.svelte';
import { heatmapsDrawn } from './values/heatmapImage';

export interface DidaxHook {
  setCode(code: string): void;
  getCode(): string;
  run(): void;
  selectCard(i: number): void;
  useManualClock(): void;
  advance(ms: number): void;
  graphTimings(): GraphTimings | null;
  /** ms the layout worker's warm-up took, null while it runs. */
  layoutWarmMs(): number | null;
  playerStats(): { intervals: Stats; work: Stats };
  resetPlayerStats(): void;
  /** How many heatmap images were drawn (each value's is drawn once, then cached). */
  heatmapsDrawn(): number;
  workspace: Workspace;
}

declare global {
  interface Window {
    __didax?: DidaxHook;
  }
}

export function installHook(ws: Workspace) {
  let manual: ManualClock | null = null;
  window.__didax = {
    setCode: (code) => ws.setCode(code),
    getCode: () => ws.session.code,
    run: () => ws.run(),
    selectCard: (i) => ws.selectCard(i),
    useManualClock: () => {
      manual = new ManualClock();
      ws.player.setClock(manual);
    },
    advance: (ms) => {
      if (!manual) throw new Error('call useManualClock() first');
      manual.advance(ms);
    },
    graphTimings: () => ws.graph.timings,
    layoutWarmMs: () => ws.graph.warmMs,
    playerStats: () => ({
      intervals: ws.player.intervals.summary(),
      work: ws.player.work.summary(),
    }),
    resetPlayerStats: () => {
      ws.player.intervals.clear();
      ws.player.work.clear();
    },
    heatmapsDrawn,
    workspace: ws,
  };
}
