import { describe, expect, it } from 'vitest';
import type { Connection } from '../protocol/socket.svelte';
import type { ClientMessage, ServerEnvelope, ServerMessage } from '../protocol/types';
import { syntheticCard } from '../testing/synthetic';
import { imageSrc } from './run.svelte';
import { MAX_RUNS, Session } from './session.svelte';

class FakeConn {
  sent: { id: string; msg: ClientMessage }[] = [];
  open = true;
  seq = 0;
  nextId() {
    return `c-${++this.seq}`;
  }
  send(msg: ClientMessage, id = this.nextId()) {
    if (!this.open) return null;
    this.sent.push({ id, msg });
    return id;
  }
}

const env = (parent: string | null, msg: ServerMessage): ServerEnvelope => ({
  protocol_version: 2,
  id: `s-${Math.random()}`,
  parent_id: parent,
  msg,
});

function setup() {
  const conn = new FakeConn();
  const s = new Session(conn as unknown as Connection);
  s.code = 'print(1)';
  return { conn, s };
}

describe('Session', () => {
  it('sends a run_request with the code and settings', () => {
    const { conn, s } = setup();
    expect(s.run()).toBe(true);
    expect(conn.sent[0].msg).toMatchObject({ type: 'run_request', code: 'print(1)' });
    expect(s.running).toBe(true);
  });

  it('collects status, merged output and cards of its own run only', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    s.handle(
      env(id, { type: 'status', run_id: id, state: 'tracing', detail: null, elapsed_ms: 3 }),
    );
    s.handle(env(id, { type: 'stream', run_id: id, name: 'stdout', text: 'a' }));
    s.handle(env(id, { type: 'stream', run_id: id, name: 'stdout', text: 'b\n' }));
    s.handle(env(id, { type: 'stream', run_id: id, name: 'stderr', text: 'w' }));
    s.handle(env('c-old', { type: 'stream', run_id: 'c-old', name: 'stdout', text: 'stale' }));
    s.handle(env(id, { type: 'trace_card', run_id: id, card: syntheticCard({ eqns: 2 }) }));
    expect(s.runState).toBe('tracing');
    expect(s.output).toEqual([
      { kind: 'text', name: 'stdout', text: 'ab\n' },
      { kind: 'text', name: 'stderr', text: 'w' },
    ]);
    expect(s.cards).toHaveLength(1);
    s.handle(
      env(id, {
        type: 'run_reply',
        run_id: id,
        ok: true,
        duration_ms: 12,
        n_cards: 1,
        error: null,
      }),
    );
    expect(s.runState).toBe('done');
    expect(s.running).toBe(false);
  });

  it('applies a card_update to the card it names (a repeated call is counted, not added)', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    const card = syntheticCard({ eqns: 2 });
    s.handle(env(id, { type: 'trace_card', run_id: id, card }));
    s.handle(env(id, { type: 'card_update', run_id: id, card_id: card.card_id, call_count: 5 }));
    s.handle(
      env('c-old', { type: 'card_update', run_id: 'c-old', card_id: card.card_id, call_count: 9 }),
    );
    expect(s.cards).toHaveLength(1);
    expect(s.cards[0].call_count).toBe(5);
  });

  it('maps a timeout reply to the timeout state and keeps the error', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    const error = {
      kind: 'timeout' as const,
      exc_type: null,
      message: 'run exceeded 10 s',
      traceback: [],
      user_line: null,
    };
    s.handle(
      env(id, { type: 'run_reply', run_id: id, ok: false, duration_ms: 10000, n_cards: 0, error }),
    );
    expect(s.runState).toBe('timeout');
    expect(s.error?.message).toBe('run exceeded 10 s');
  });

  it('reports a run that could not be sent, and a connection lost mid-run', () => {
    const { conn, s } = setup();
    conn.open = false;
    expect(s.run()).toBe(false);
    expect(s.problem).toMatch(/Not connected/);
    conn.open = true;
    s.run();
    s.connectionLost();
    expect(s.problem).toMatch(/lost/);
    expect(s.running).toBe(false);
  });

  it('sends cancel_request for the current run', () => {
    const { conn, s } = setup();
    s.run();
    s.cancel();
    expect(conn.sent[1].msg).toEqual({ type: 'cancel_request', run_id: s.runId });
  });

  it('keeps the queue position while queued and clears it once the run starts', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    const status = (state: 'queued' | 'starting' | 'running', position: number | null) =>
      env(id, {
        type: 'status',
        run_id: id,
        state,
        detail: null,
        elapsed_ms: 1,
        queue_position: position,
      });
    s.handle(status('queued', 3));
    expect([s.runState, s.current!.queuePosition]).toEqual(['queued', 3]);
    s.handle(status('queued', 1));
    expect(s.current!.queuePosition).toBe(1);
    s.handle(status('starting', null));
    expect(s.current!.queuePosition).toBeNull();
    s.handle(status('queued', 0));
    s.run(); // a new run has no position of its own
    expect(s.current!.queuePosition).toBeNull();
  });
});

const reply = (id: string, ok: boolean, kind?: 'cancelled') =>
  env(id, {
    type: 'run_reply',
    run_id: id,
    ok,
    duration_ms: 5,
    n_cards: 0,
    error: kind
      ? { kind, exc_type: null, message: 'the run was cancelled', traceback: [], user_line: null }
      : null,
  });

describe('Session run log', () => {
  it('running during a run stops it, keeps its results and sends the new run after', () => {
    const { conn, s } = setup();
    s.run();
    const first = s.current!;
    const id1 = first.id!;
    s.handle(env(id1, { type: 'stream', run_id: id1, name: 'stdout', text: 'one\n' }));
    s.handle(env(id1, { type: 'trace_card', run_id: id1, card: syntheticCard({ eqns: 2 }) }));
    s.code = 'print(2)';
    expect(s.run()).toBe(true);
    // Stop the first; the second waits (the server runs one program at a time).
    expect(conn.sent.map((x) => x.msg.type)).toEqual(['run_request', 'cancel_request']);
    const second = s.current!;
    expect(second.state).toBe('waiting');
    expect(s.viewed).toBe(first); // its cards stay in view meanwhile
    s.handle(reply(id1, false, 'cancelled'));
    expect(first.state).toBe('cancelled');
    expect(first.output).toEqual([{ kind: 'text', name: 'stdout', text: 'one\n' }]);
    expect(conn.sent[2].msg).toMatchObject({ type: 'run_request', code: 'print(2)' });
    const id2 = second.id!;
    s.handle(reply(id2, true));
    expect(s.runs.map((r) => r.state)).toEqual(['cancelled', 'done']);
    expect(s.viewed).toBe(first); // the new run made no card: the last cards stay
  });

  it('a third run replaces one still waiting, and the newest is sent', () => {
    const { conn, s } = setup();
    s.run();
    const id1 = s.runId!;
    s.run();
    s.run();
    expect(s.runs[1].state).toBe('cancelled');
    expect(s.runs[1].problem).toMatch(/Replaced/);
    s.handle(reply(id1, false, 'cancelled'));
    expect(conn.sent.filter((x) => x.msg.type === 'run_request')).toHaveLength(2);
    expect(s.current!.id).toBe(conn.sent[conn.sent.length - 1].id);
  });

  it('shows the newest run once it makes a card, and keeps at most MAX_RUNS runs', () => {
    const { s } = setup();
    for (let i = 0; i < MAX_RUNS + 2; i++) {
      s.run();
      const id = s.runId!;
      s.handle(env(id, { type: 'trace_card', run_id: id, card: syntheticCard({ eqns: 1 }) }));
      expect(s.viewed).toBe(s.current);
      s.handle(reply(id, true));
    }
    expect(s.runs).toHaveLength(MAX_RUNS);
    expect(s.runs[0].seq).toBe(3);
  });

  it('never drops the run whose cards are shown, however many card-less runs follow', () => {
    const { s } = setup();
    s.run();
    const first = s.current!;
    s.handle(
      env(first.id!, { type: 'trace_card', run_id: first.id!, card: syntheticCard({ eqns: 1 }) }),
    );
    s.handle(reply(first.id!, true));
    for (let i = 0; i < MAX_RUNS + 2; i++) {
      s.run();
      s.handle(reply(s.runId!, true));
    }
    expect(s.viewed).toBe(first);
    expect(s.cards).toHaveLength(1);
    expect(s.runs).toHaveLength(MAX_RUNS);
    expect(s.runs.map((r) => r.seq)).toEqual([1, 5, 6, 7, 8]);
  });

  it('turns display messages into images in order with the text', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    s.handle(env(id, { type: 'stream', run_id: id, name: 'stdout', text: 'before\n' }));
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    s.handle(
      env(id, {
        type: 'display',
        run_id: id,
        mime: 'image/svg+xml',
        data: svg,
        width: 640,
        height: 480,
        alt: 'Figure 1: loss',
      }),
    );
    s.handle(env(id, { type: 'stream', run_id: id, name: 'stdout', text: 'after\n' }));
    expect(s.output.map((o) => o.kind)).toEqual(['text', 'image', 'text']);
    const img = s.output[1];
    expect(img.kind === 'image' && img.src).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`,
    );
    expect(imageSrc({ mime: 'image/png', data: 'AAAA' })).toBe('data:image/png;base64,AAAA');
  });

  it('an invalid card is a note in the output, not the end of the run', () => {
    const { s } = setup();
    s.run();
    const id = s.runId!;
    s.handle(
      env(id, { type: 'error', code: 'invalid_card', message: 'bad card', detail: 'values: x' }),
    );
    expect(s.running).toBe(true);
    expect(s.output[0]).toMatchObject({ name: 'stderr', text: expect.stringMatching(/dropped/) });
    s.handle(env(id, { type: 'error', code: 'internal', message: 'boom', detail: null }));
    expect(s.running).toBe(false);
    expect(s.problem).toBe('internal: boom');
  });
});

describe('Session call counts', () => {
  it('counts repeated calls of a card from card_update, and sanitizes loop_iterations', () => {
    const { conn, s } = setup();
    s.settings.loop_iterations = 5000;
    s.run();
    const id = conn.sent[0].id;
    expect(
      (conn.sent[0].msg as { settings: { loop_iterations: number } }).settings.loop_iterations,
    ).toBe(1024);
    const card = { ...syntheticCard({ eqns: 2 }), call_count: 1 };
    s.handle(env(id, { type: 'trace_card', run_id: id, card }));
    const shown = s.cards[0];
    expect(s.callCount(shown)).toBe(1);
    s.handle(env(id, { type: 'card_update', run_id: id, card_id: card.card_id, call_count: 5 }));
    expect(s.callCount(shown)).toBe(5);
    expect(s.cards[0].call_count).toBe(5);
    s.handle(
      env(id, { type: 'card_update', run_id: 'other', card_id: card.card_id, call_count: 9 }),
    );
    expect(s.callCount(shown)).toBe(5);
  });
});
