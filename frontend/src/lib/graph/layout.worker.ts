/**
 * Web Worker that runs ELK's layered layout off the main thread (TensorBoard's main-thread
 * layout freezing tabs is the cautionary tale): a thin shell around levels.ts. Each request is
 * one or more lists of levels (candidate overviews are laid out in one round trip, stopping at
 * the first fit.ts does not take); levels come from a cache when unchanged, and when the user
 * expands a group, the levels around it are stretched rather than laid out again.
 *
 * ELK is GWT-compiled Java: its first layouts run cold and are 3-4× slower than later ones. The
 * worker therefore lays out throwaway levels of realistic shape as soon as it starts.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { toElk, type LevelJob, type LevelLayout } from './elk';
import { acceptable } from './fit';
import type { LayoutRequest, LayoutResponse, WarmedMessage } from './layoutMessages';
import { Levels } from './levels';

const elk = new ELK();
const levels = new Levels(elk);

function warmJob(n: number): LevelJob {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, width: 90, height: 40 }));
  const edges = [];
  for (let i = 1; i < n; i++) {
    edges.push({ id: `a${i}`, source: `n${i - 1}`, target: `n${i}` });
    if (i > 2) edges.push({ id: `b${i}`, source: `n${i - 3}`, target: `n${i}` });
  }
  return { id: `warm${n}`, root: false, nodes, edges };
}

const warm = (async () => {
  const t0 = performance.now();
  for (const n of [20, 40, 20, 60])
    await elk.layout(toElk(warmJob(n), () => ({ width: 1, height: 1 }))).catch(() => {});
  const done: WarmedMessage = { warmed: performance.now() - t0 };
  self.postMessage(done);
})();

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const { id, sets, fit, stretch: mayStretch = false } = ev.data;
  await warm;
  const t0 = performance.now();
  try {
    const layouts: Record<string, LevelLayout>[] = [];
    let computed = 0;
    let stretched = 0;
    let bare: LevelLayout | undefined;
    for (const jobs of sets) {
      const out = await levels.layout(jobs, mayStretch);
      layouts.push(out.layouts);
      computed += out.computed;
      stretched += out.stretched;
      const root = out.layouts[jobs[jobs.length - 1]?.id ?? ''];
      bare ??= root;
      if (fit && root && bare && !acceptable(root, bare, fit)) break;
    }
    const reply: LayoutResponse = {
      id,
      ok: true,
      layouts,
      computed,
      stretched,
      ms: performance.now() - t0,
    };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { id, ok: false, error: String(err), ms: performance.now() - t0 };
    self.postMessage(reply);
  }
};
