import { describe, expect, it } from 'vitest';
import type { Connection } from '../protocol/socket.svelte';
import type { ClientMessage, ServerEnvelope, ServerMessage } from '../protocol/types';
import { syntheticCard } from '../testing/synthetic';
import { Session } from './session.svelte';

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
      { name: 'stdout', text: 'ab\n' },
      { name: 'stderr', text: 'w' },
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
});
