/**
 * Web Worker that runs ELK's layered layout off the main thread (TensorBoard's main-thread
 * layout freezing tabs is the cautionary tale). Each request is a list of levels, children
 * first; a level whose content and children's sizes are unchanged comes from a cache, so
 * expanding a group lays out that group and re-packs its ancestors only.
 *
 * ELK is GWT-compiled Java: its first layouts run cold and are 3-4× slower than later ones. The
 * worker therefore lays out throwaway levels of realistic shape as soon as it starts.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { fromElk, toElk, type LevelJob, type LevelLayout } from './elk';
import { acceptable } from './fit';
import type { LayoutRequest, LayoutResponse, WarmedMessage } from './layoutMessages';

const elk = new ELK();
const cache = new Map<string, LevelLayout>();
const CACHE_MAX = 4000;

function warmJob(n: number): LevelJob {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, width: 90, height: 40 }));
  const edges = [];
  for (let i = 1; i < n; i++) {
    edges.push({ id: `a${i}`, source: `n${i - 1}`, target: `n${i}` });
    if (i > 2) edges.push({ id: `b${i}`, source: `n${i - 3}`, target: `n${i}` });
  }
  return { id: `warm${n}`, root: false, nodes, edges };
}

async function layoutAll(jobs: LevelJob[]) {
  const out: Record<string, LevelLayout> = {};
  let computed = 0;
  const size = (child: string) => out[child] ?? { width: 60, height: 40 };
  for (const job of jobs) {
    const graph = toElk(job, size);
    const key = JSON.stringify(graph);
    let l = cache.get(key);
    if (!l) {
      l = fromElk(await elk.layout(graph));
      computed += 1;
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(key, l);
    }
    out[job.id] = l;
  }
  return { layouts: out, computed };
}

const warm = (async () => {
  const t0 = performance.now();
  for (const n of [20, 40, 20, 60])
    await elk.layout(toElk(warmJob(n), () => ({ width: 1, height: 1 }))).catch(() => {});
  const done: WarmedMessage = { warmed: performance.now() - t0 };
  self.postMessage(done);
})();

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const { id, sets, fit } = ev.data;
  await warm;
  const t0 = performance.now();
  try {
    const layouts: Record<string, LevelLayout>[] = [];
    let computed = 0;
    let bare: LevelLayout | undefined;
    for (const jobs of sets) {
      const out = await layoutAll(jobs);
      layouts.push(out.layouts);
      computed += out.computed;
      const root = out.layouts[jobs[jobs.length - 1]?.id ?? ''];
      bare ??= root;
      if (fit && root && bare && !acceptable(root, bare, fit)) break;
    }
    const reply: LayoutResponse = { id, ok: true, layouts, computed, ms: performance.now() - t0 };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { id, ok: false, error: String(err), ms: performance.now() - t0 };
    self.postMessage(reply);
  }
};
