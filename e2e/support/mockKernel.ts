/**
 * A stand-in kernel server for UI-only specs, installed with page.routeWebSocket: it answers
 * hello with a welcome and each run_request with status → stream → trace cards → run_reply,
 * replaying shared_schemas/examples (the same samples both sides validate) or synthetic cards.
 * HTTP endpoints (examples, share) are mocked with page.route where a spec needs them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, WebSocketRoute } from '@playwright/test';
import { REPO } from './env';

const EXAMPLES = join(REPO, 'shared_schemas', 'examples', 'valid');

export function sample(name: string): any {
  return JSON.parse(readFileSync(join(EXAMPLES, `${name}.json`), 'utf8'));
}

export interface RunScript {
  cards?: any[];
  stdout?: string;
  error?: any;
  /** Never answer the run (to test cancel / lost connections). */
  hang?: boolean;
  /** Send the output and cards, then never finish (a run stopped midway). */
  hangAfterOutput?: boolean;
  /** card_update messages sent after the cards (repeated calls of a card). */
  updates?: { card_id: string; call_count: number }[];
  /** Queue positions to report (status `queued`) before the run starts. */
  queue?: number[];
  /** Send each card as trace_card_chunk frames whose data has at most this many characters. */
  chunkChars?: number;
}

export interface MockOptions {
  welcome?: any;
  run?: (code: string) => RunScript;
}

export class MockKernel {
  sockets: WebSocketRoute[] = [];
  runs: { id: string; code: string; settings: any }[] = [];
  private seq = 0;

  constructor(private opts: MockOptions) {}

  static async install(page: Page, opts: MockOptions = {}): Promise<MockKernel> {
    const k = new MockKernel(opts);
    await page.routeWebSocket(/\/api\/ws$/, (ws) => k.accept(ws));
    // The examples menu loads at start; answer it so no request leaks to a real server.
    await page.route('**/api/examples', (r) =>
      r.fulfill({ json: [{ id: 'demo', title: 'Demo', description: 'a mocked example' }] }),
    );
    return k;
  }

  /** Drop every open connection, as a server restart would. */
  async dropAll() {
    for (const ws of this.sockets) await ws.close({ code: 1012, reason: 'restart' });
    this.sockets = [];
  }

  private send(ws: WebSocketRoute, parent: string | null, msg: any) {
    ws.send(JSON.stringify({ protocol_version: 2, id: `s-${++this.seq}`, parent_id: parent, msg }));
  }

  private accept(ws: WebSocketRoute) {
    this.sockets.push(ws);
    ws.onMessage((raw) => {
      const env = JSON.parse(String(raw));
      const m = env.msg;
      if (m.type === 'hello') {
        const welcome = this.opts.welcome ?? sample('server.welcome').msg;
        this.send(ws, env.id, welcome);
      } else if (m.type === 'ping') {
        this.send(ws, env.id, { type: 'pong' });
      } else if (m.type === 'cancel_request') {
        const run = m.run_id;
        this.send(ws, run, {
          type: 'status',
          run_id: run,
          state: 'cancelled',
          detail: null,
          elapsed_ms: 5,
        });
        this.send(ws, run, {
          type: 'run_reply',
          run_id: run,
          ok: false,
          duration_ms: 5,
          n_cards: 0,
          error: {
            kind: 'cancelled',
            exc_type: null,
            message: 'cancelled',
            traceback: [],
            user_line: null,
          },
        });
      } else if (m.type === 'run_request') {
        this.runs.push({ id: env.id, code: m.code, settings: m.settings });
        this.answerRun(
          ws,
          env.id,
          this.opts.run?.(m.code) ?? { cards: [sample('server.trace_card.grad').msg.card] },
        );
      }
    });
  }

  /** A trace_card frame, whole or (chunkChars) as trace_card_chunk frames. */
  private sendCard(ws: WebSocketRoute, id: string, card: any, chunkChars?: number) {
    const msg = { type: 'trace_card', run_id: id, card };
    if (!chunkChars) return this.send(ws, id, msg);
    const transfer = `s-${++this.seq}`;
    const points = Array.from(
      JSON.stringify({ protocol_version: 2, id: transfer, parent_id: id, msg }),
    );
    const pieces: string[] = [];
    for (let i = 0; i < points.length; i += chunkChars)
      pieces.push(points.slice(i, i + chunkChars).join(''));
    pieces.forEach((data, index) =>
      this.send(ws, id, {
        type: 'trace_card_chunk',
        run_id: id,
        transfer_id: transfer,
        index,
        count: pieces.length,
        data,
      }),
    );
  }

  private answerRun(ws: WebSocketRoute, id: string, script: RunScript) {
    const st = (state: string) =>
      this.send(ws, id, { type: 'status', run_id: id, state, detail: null, elapsed_ms: 1 });
    for (const ahead of script.queue ?? []) {
      const detail = `waiting for a kernel, ${ahead} ahead`;
      this.send(ws, id, {
        type: 'status',
        run_id: id,
        state: 'queued',
        detail,
        elapsed_ms: 1,
        queue_position: ahead,
      });
    }
    if (script.queue && script.hang) return;
    st('running');
    if (script.hang) return;
    if (script.stdout)
      this.send(ws, id, { type: 'stream', run_id: id, name: 'stdout', text: script.stdout });
    const cards = script.cards ?? [];
    cards.forEach((card, i) => this.sendCard(ws, id, { ...card, index: i }, script.chunkChars));
    for (const u of script.updates ?? [])
      this.send(ws, id, { type: 'card_update', run_id: id, ...u });
    if (script.hangAfterOutput) return;
    st(script.error ? 'error' : 'done');
    this.send(ws, id, {
      type: 'run_reply',
      run_id: id,
      ok: !script.error,
      duration_ms: 7,
      n_cards: cards.length,
      error: script.error ?? null,
    });
  }
}
