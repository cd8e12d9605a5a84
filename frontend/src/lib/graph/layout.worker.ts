/**
 * Web Worker that runs ELK's layered layout off the main thread (TensorBoard's main-thread
 * layout freezing tabs is the cautionary tale). Messages are typed in layoutMessages.ts; the
 * worker answers each request with the same id, the layout, and how long ELK took.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { fromElk, toElk } from './elk';
import type { LayoutRequest, LayoutResponse } from './layoutMessages';

const elk = new ELK();

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const { id, graph } = ev.data;
  const t0 = performance.now();
  try {
    const out = await elk.layout(toElk(graph));
    const layout = fromElk(out);
    const reply: LayoutResponse = { id, ok: true, layout, ms: performance.now() - t0 };
    self.postMessage(reply);
  } catch (err) {
    const reply: LayoutResponse = { id, ok: false, error: String(err), ms: performance.now() - t0 };
    self.postMessage(reply);
  }
};
