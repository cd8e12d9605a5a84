/**
 * Web Worker that runs ELK's layered layout off the main thread (TensorBoard's main-thread
 * layout freezing tabs is the cautionary tale). Messages are typed in layoutMessages.ts; the
 * worker answers each request with the same id, the layout, and how long ELK took.
 *
 * ELK is GWT-compiled Java: its first layouts run cold and are 3-4× slower than later ones. The
 * worker therefore lays out a throwaway graph of realistic shape as soon as it starts, so the
 * user's first card gets warm code.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import { fromElk, toElk } from './elk';
import type { LayoutRequest, LayoutResponse, WarmedMessage } from './layoutMessages';
import type { GraphModel, GraphNode } from './model';

const elk = new ELK();

function warmGraph(n: number): GraphModel {
  const node = (id: string, parent: string | null, kind: GraphNode['kind'] = 'eqn'): GraphNode => ({
    id,
    kind,
    label: id,
    detail: '',
    eqnId: kind === 'eqn' ? id : null,
    varIds: [],
    parent,
    depth: parent ? 1 : 0,
    line: null,
    innerEqns: 0,
    collapsed: false,
    width: 80,
    height: 34,
  });
  const nodes = [node('g', null, 'group'), node('s', 'g', 'group')];
  for (let i = 0; i < n; i++) nodes.push(node(`n${i}`, i >= n - 10 ? 's' : null));
  const edges = [];
  for (let i = 1; i < n; i++) {
    edges.push({ id: `a${i}`, source: `n${i - 1}`, target: `n${i}`, varId: '', label: '' });
    if (i > 2)
      edges.push({ id: `b${i}`, source: `n${i - 3}`, target: `n${i}`, varId: '', label: '' });
  }
  return { nodes, edges, eqnCount: n, hidden: {} };
}

const warm = (async () => {
  const t0 = performance.now();
  for (const n of [60, 150]) await elk.layout(toElk(warmGraph(n))).catch(() => {});
  const done: WarmedMessage = { warmed: performance.now() - t0 };
  self.postMessage(done);
})();

self.onmessage = async (ev: MessageEvent<LayoutRequest>) => {
  const { id, graph } = ev.data;
  await warm;
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
