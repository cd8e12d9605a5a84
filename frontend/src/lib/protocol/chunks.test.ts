import { afterEach, describe, expect, it } from 'vitest';
import schema from '$schemas/generated/protocol.schema.json';
import { syntheticCard } from '../testing/synthetic';
import { ChunkAssembler } from './chunks';
import { Connection } from './socket.svelte';
import type { ServerEnvelope, TraceCardChunk } from './types';
import { makeValidator } from './validate';

const validate = makeValidator(schema, 'ServerEnvelope');
const FRAME_BYTES = 8 * 1024;
const SLOW = 60_000; // ajv compiles the whole schema once; the machine may be busy
const utf8 = (s: string) => new TextEncoder().encode(s).length;

/** UTF-8 bytes of one code point escaped inside a JSON string. */
function escapedBytes(p: string): number {
  const c = p.codePointAt(0)!;
  if (p === '"' || p === '\\') return 2;
  if (c < 0x20) return 6;
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/** A big trace_card frame with characters outside the BMP (surrogate pairs in JS strings). */
function bigFrame(eqns = 120): string {
  const card = syntheticCard({ eqns });
  card.title = 'grad(lo😀ss) — “quoted” \\ \n';
  const env: ServerEnvelope = {
    protocol_version: 2,
    id: 's-7',
    parent_id: 'c-3',
    msg: { type: 'trace_card', run_id: 'c-3', card },
  };
  return JSON.stringify(env);
}

/** Cut a frame the way the server does: pieces end on code points, each chunk frame within
 * FRAME_BYTES of UTF-8. */
function chunkFrames(text: string, transfer = 's-7', run = 'c-3'): string[] {
  const pieces: string[] = [];
  let piece: string[] = [];
  let size = 0;
  for (const p of Array.from(text)) {
    // code points, so a surrogate pair is never split; size as escaped inside a JSON string
    const bytes = escapedBytes(p);
    if (size + bytes > FRAME_BYTES - 400) {
      pieces.push(piece.join(''));
      piece = [];
      size = 0;
    }
    piece.push(p);
    size += bytes;
  }
  if (piece.length) pieces.push(piece.join(''));
  return pieces.map((data, index) =>
    JSON.stringify({
      protocol_version: 2,
      id: `${transfer}.${index}`,
      parent_id: run,
      msg: {
        type: 'trace_card_chunk',
        run_id: run,
        transfer_id: transfer,
        index,
        count: pieces.length,
        data,
      },
    }),
  );
}

const chunkOf = (frame: string) => (JSON.parse(frame) as { msg: TraceCardChunk }).msg;

describe('ChunkAssembler', () => {
  it(
    'joins bounded, schema-valid chunks back into the exact frame',
    () => {
      const whole = bigFrame();
      const frames = chunkFrames(whole);
      expect(frames.length).toBeGreaterThan(3);
      const a = new ChunkAssembler();
      let result = null;
      for (const f of frames) {
        expect(utf8(f)).toBeLessThanOrEqual(FRAME_BYTES);
        expect(validate(JSON.parse(f))).toBe(true);
        result = a.push(chunkOf(f));
      }
      expect(result).toEqual({ kind: 'complete', frame: whole });
      expect(validate(JSON.parse(whole))).toBe(true);
      expect(a.pending).toBe(0);
    },
    SLOW,
  );

  it('keeps transfers of different runs apart', () => {
    const one = chunkFrames(bigFrame(60), 's-1', 'c-1').map(chunkOf);
    const two = chunkFrames(bigFrame(90), 's-2', 'c-2').map(chunkOf);
    const a = new ChunkAssembler();
    a.push(one[0]);
    a.push(two[0]);
    expect(a.pending).toBe(2);
    const rest = [...one.slice(1), ...two.slice(1)].map((c) => a.push(c));
    expect(rest.filter((r) => r.kind === 'complete')).toHaveLength(2);
  });

  it.each([
    ['a gap', (c: TraceCardChunk[]) => [c[0], c[2]], /chunk 2, expected 1/],
    ['a start without chunk 0', (c: TraceCardChunk[]) => [c[1]], /before chunk 0/],
    ['a changed count', (c: TraceCardChunk[]) => [c[0], { ...c[1], count: 99 }], /count/],
  ])('drops a transfer with %s', (_, pick, reason) => {
    const a = new ChunkAssembler();
    const results = pick(chunkFrames(bigFrame()).map(chunkOf)).map((c) => a.push(c));
    const last = results[results.length - 1];
    expect(last.kind).toBe('dropped');
    if (last.kind === 'dropped') expect(last.reason).toMatch(reason);
    expect(a.pending).toBe(0);
  });

  it('bounds what it holds: size and number of open transfers', () => {
    const chunks = chunkFrames(bigFrame()).map(chunkOf);
    const small = new ChunkAssembler({ maxChars: 20_000, maxTransfers: 4 });
    const results = chunks.map((c) => small.push(c));
    expect(results.some((r) => r.kind === 'dropped' && /over 20000/.test(r.reason))).toBe(true);
    const few = new ChunkAssembler({ maxChars: 1e9, maxTransfers: 2 });
    for (const id of ['t1', 't2', 't3']) few.push({ ...chunks[0], transfer_id: id });
    expect(few.pending).toBe(2);
    expect(few.push({ ...chunks[1], transfer_id: 't1' }).kind).toBe('dropped'); // the oldest went
  });
});

class FakeSocket {
  static OPEN = 1;
  static last: FakeSocket | null = null;
  readyState = 1;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(public url: string) {
    FakeSocket.last = this;
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {}
}

describe('Connection with chunked cards', () => {
  const realSocket = globalThis.WebSocket;
  afterEach(() => {
    globalThis.WebSocket = realSocket;
  });

  it(
    'hands listeners one validated trace_card, never the chunks',
    () => {
      globalThis.WebSocket = FakeSocket as unknown as typeof WebSocket;
      const conn = new Connection('ws://test/api/ws');
      const got: ServerEnvelope[] = [];
      conn.onMessage = (env) => got.push(env);
      conn.connect();
      const ws = FakeSocket.last!;
      ws.onopen?.();
      const whole = bigFrame();
      for (const f of chunkFrames(whole)) ws.onmessage?.({ data: f });
      expect(got.map((e) => e.msg.type)).toEqual(['trace_card']);
      expect(got[0]).toEqual(JSON.parse(whole));
      expect(conn.protocolWarning).toBeNull();
      // a lone middle chunk is dropped with a visible reason, nothing is delivered
      ws.onmessage?.({ data: chunkFrames(whole)[1] });
      expect(got).toHaveLength(1);
      expect(conn.protocolWarning).toMatch(/before chunk 0/);
      conn.close();
    },
    SLOW,
  );
});
