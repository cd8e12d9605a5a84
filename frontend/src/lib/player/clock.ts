/**
 * The player's time source. The real clock is requestAnimationFrame; the manual clock only moves
 * when a test advances it, which makes animation tests deterministic (no sleeps, no flakes).
 */
export interface Clock {
  now(): number;
  frame(cb: (now: number) => void): number;
  cancel(handle: number): void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  frame: (cb) => requestAnimationFrame(cb),
  cancel: (h) => cancelAnimationFrame(h),
};

export class ManualClock implements Clock {
  private t = 0;
  private seq = 0;
  private queue = new Map<number, (now: number) => void>();

  now(): number {
    return this.t;
  }
  frame(cb: (now: number) => void): number {
    const h = ++this.seq;
    this.queue.set(h, cb);
    return h;
  }
  cancel(h: number) {
    this.queue.delete(h);
  }
  /** Move time forward in 16 ms frames, running the frame callbacks queued at each one. */
  advance(ms: number, frameMs = 16) {
    let left = ms;
    while (left > 0) {
      const dt = Math.min(frameMs, left);
      this.t += dt;
      left -= dt;
      const due = [...this.queue.values()];
      this.queue.clear();
      for (const cb of due) cb(this.t);
    }
  }
}
