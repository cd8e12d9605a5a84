/** Ring buffer of per-frame figures (interval between frames, work done in a frame). */
export interface Stats {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

export class FrameStats {
  private buf: number[] = [];
  constructor(private cap = 2000) {}

  add(ms: number) {
    this.buf.push(ms);
    if (this.buf.length > this.cap) this.buf.shift();
  }
  clear() {
    this.buf = [];
  }
  summary(): Stats {
    const n = this.buf.length;
    if (!n) return { count: 0, mean: 0, p50: 0, p95: 0, max: 0 };
    const s = [...this.buf].sort((a, b) => a - b);
    const q = (p: number) => s[Math.min(n - 1, Math.floor(p * n))];
    return {
      count: n,
      mean: s.reduce((a, b) => a + b, 0) / n,
      p50: q(0.5),
      p95: q(0.95),
      max: s[n - 1],
    };
  }
}
