/**
 * Reassembly of `trace_card_chunk` frames. The server cuts a `trace_card` frame that is too
 * large for one websocket frame into chunks whose `data`, concatenated in `index` order, is the
 * JSON text of the whole frame; this joins them so the socket layer can guard, validate and
 * route the result like any other frame. Chunks of one transfer arrive in order (one socket);
 * a gap, a changed count or a transfer over the size limit drops that transfer with a reason.
 */
import type { TraceCardChunk } from './types';

export interface ChunkLimits {
  /** Largest reassembled frame, in UTF-16 code units (the page's own memory bound). */
  maxChars: number;
  /** Transfers open at once; starting one more drops the oldest. */
  maxTransfers: number;
}

export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxChars: 64 * 1024 * 1024, maxTransfers: 4 };

export type ChunkResult =
  { kind: 'partial' } | { kind: 'complete'; frame: string } | { kind: 'dropped'; reason: string };

interface Transfer {
  count: number;
  next: number;
  size: number;
  parts: string[];
}

export class ChunkAssembler {
  #open = new Map<string, Transfer>();

  constructor(private limits: ChunkLimits = DEFAULT_CHUNK_LIMITS) {}

  /** Transfers still waiting for chunks. */
  get pending(): number {
    return this.#open.size;
  }

  push(chunk: TraceCardChunk): ChunkResult {
    const key = `${chunk.run_id}\u0000${chunk.transfer_id}`;
    let t = this.#open.get(key);
    if (!t) {
      if (chunk.index !== 0) return this.#drop(key, `chunk ${chunk.index} before chunk 0`);
      if (this.#open.size >= this.limits.maxTransfers) {
        const oldest = this.#open.keys().next().value;
        if (oldest !== undefined) this.#open.delete(oldest);
      }
      t = { count: chunk.count, next: 0, size: 0, parts: [] };
      this.#open.set(key, t);
    }
    if (chunk.count !== t.count) return this.#drop(key, 'chunk count changed');
    if (chunk.index !== t.next) return this.#drop(key, `chunk ${chunk.index}, expected ${t.next}`);
    t.size += chunk.data.length;
    if (t.size > this.limits.maxChars)
      return this.#drop(key, `transfer over ${this.limits.maxChars} characters`);
    t.parts.push(chunk.data);
    t.next += 1;
    if (t.next < t.count) return { kind: 'partial' };
    this.#open.delete(key);
    return { kind: 'complete', frame: t.parts.join('') };
  }

  /** Forget every open transfer (the connection dropped). */
  reset() {
    this.#open.clear();
  }

  #drop(key: string, reason: string): ChunkResult {
    this.#open.delete(key);
    return { kind: 'dropped', reason: `trace_card_chunk dropped: ${reason}` };
  }
}
