/**
 * Promise front for the layout worker. Only the newest request per client matters: a stale
 * answer (the user switched cards or toggled a group meanwhile) is dropped by the caller
 * comparing ids, so a slow layout can never overwrite a newer one.
 */
import type { LevelJob, LevelLayout } from './elk';
import type { LayoutRequest, LayoutResponse, WarmedMessage } from './layoutMessages';

export interface LayoutOutcome {
  /** One per requested set of levels. */
  layouts: Record<string, LevelLayout>[];
  /** Levels ELK ran on (the rest came from the worker's cache or were stretched). */
  computed: number;
  /** Levels stretched around an expanded child rather than laid out again. */
  stretched: number;
  /** Time ELK itself took inside the worker. */
  elkMs: number;
  /** Round trip including structured cloning both ways. */
  totalMs: number;
}

export class LayoutClient {
  private worker: Worker | null = null;
  /** How long the worker's ELK warm-up took, once it has finished (null before). */
  warmMs: number | null = null;
  private seq = 0;
  private pending = new Map<
    number,
    { resolve: (o: LayoutOutcome) => void; reject: (e: Error) => void; t0: number }
  >();

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (ev: MessageEvent<LayoutResponse | WarmedMessage>) => {
      if ('warmed' in ev.data) {
        this.warmMs = ev.data.warmed;
        return;
      }
      const p = this.pending.get(ev.data.id);
      if (!p) return;
      this.pending.delete(ev.data.id);
      if (ev.data.ok)
        p.resolve({
          layouts: ev.data.layouts,
          computed: ev.data.computed,
          stretched: ev.data.stretched,
          elkMs: ev.data.ms,
          totalMs: performance.now() - p.t0,
        });
      else p.reject(new Error(ev.data.error));
    };
    w.onerror = (ev) => {
      for (const p of this.pending.values()) p.reject(new Error(ev.message || 'layout worker'));
      this.pending.clear();
    };
    this.worker = w;
    return w;
  }

  /** Spawn the worker now rather than on the first layout. */
  start() {
    this.ensure();
  }

  layout(
    sets: LevelJob[][],
    opts: { fit?: LayoutRequest['fit']; stretch?: boolean } = {},
  ): Promise<LayoutOutcome> {
    const id = ++this.seq;
    // Jobs are built fresh from plain card data (never rune proxies), so they clone.
    const req: LayoutRequest = { id, sets, ...opts };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, t0: performance.now() });
      this.ensure().postMessage(req);
    });
  }

  dispose() {
    this.worker?.terminate();
    this.worker = null;
  }
}
