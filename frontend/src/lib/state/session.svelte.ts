/**
 * One editing session: the code, run settings, and what the current run has produced so far
 * (status, streamed output, trace cards in program order, the final reply). Messages are routed
 * here by `parent_id`, so frames of an older, cancelled run can never leak into the current one.
 */
import type { Connection } from '../protocol/socket.svelte';
import type {
  ErrorMessage,
  FullRunSettings,
  RunError,
  RunReply,
  RunState,
  ServerEnvelope,
  TraceCard,
} from '../protocol/types';

export interface OutputChunk {
  name: 'stdout' | 'stderr';
  text: string;
}

export const DEFAULT_SETTINGS: FullRunSettings = {
  enable_x64: false,
  timeout_s: 10,
  compile: true,
  max_cards: 32,
  loop_iterations: 64,
};

export class Session {
  code = $state('');
  settings = $state<FullRunSettings>({ ...DEFAULT_SETTINGS });
  runId = $state<string | null>(null);
  runState = $state<RunState | 'idle' | 'sending'>('idle');
  statusDetail = $state<string | null>(null);
  elapsedMs = $state(0);
  cards = $state.raw<TraceCard[]>([]);
  output = $state.raw<OutputChunk[]>([]);
  reply = $state.raw<RunReply | null>(null);
  /** A server `error` message or a local problem (not connected, connection lost). */
  problem = $state<string | null>(null);
  /** Bumped on every new run so views can reset (selection, player). */
  generation = $state(0);

  onCard: (card: TraceCard) => void = () => {};
  onFinished: (reply: RunReply) => void = () => {};

  constructor(private conn: Connection) {}

  get running(): boolean {
    return this.runId !== null && this.reply === null && this.problem === null;
  }

  get error(): RunError | null {
    return this.reply?.error ?? null;
  }

  run(): boolean {
    if (this.running) this.cancel();
    const id = this.conn.nextId();
    const sent = this.conn.send(
      { type: 'run_request', code: this.code, settings: $state.snapshot(this.settings) },
      id,
    );
    this.generation += 1;
    this.cards = [];
    this.output = [];
    this.reply = null;
    this.statusDetail = null;
    this.elapsedMs = 0;
    if (sent === null) {
      this.runId = null;
      this.runState = 'idle';
      this.problem = 'Not connected to the kernel server — the run was not sent.';
      return false;
    }
    this.problem = null;
    this.runId = id;
    this.runState = 'sending';
    return true;
  }

  cancel() {
    if (!this.runId || this.reply) return;
    this.conn.send({ type: 'cancel_request', run_id: this.runId });
  }

  /** The connection dropped: a run in flight will never be answered. */
  connectionLost() {
    if (this.running) {
      this.problem = 'The connection to the server was lost during the run.';
      this.runState = 'error';
    }
  }

  handle(env: ServerEnvelope) {
    const m = env.msg;
    if (m.type === 'error') {
      if (env.parent_id === null || env.parent_id === this.runId) this.#serverError(m);
      return;
    }
    if (!('run_id' in m) || m.run_id !== this.runId) return;
    switch (m.type) {
      case 'status':
        this.runState = m.state;
        this.statusDetail = m.detail;
        this.elapsedMs = m.elapsed_ms;
        break;
      case 'stream':
        this.#append(m.name, m.text);
        break;
      case 'trace_card':
        this.cards = [...this.cards, m.card];
        this.onCard(m.card);
        break;
      case 'card_update':
        // The same function was called again with the same argument types: one card, counted.
        this.cards = this.cards.map((c) =>
          c.card_id === m.card_id ? { ...c, call_count: m.call_count } : c,
        );
        break;
      case 'run_reply':
        this.reply = m;
        this.elapsedMs = m.duration_ms;
        if (m.ok) this.runState = 'done';
        else if (m.error?.kind === 'timeout') this.runState = 'timeout';
        else if (m.error?.kind === 'cancelled') this.runState = 'cancelled';
        else this.runState = 'error';
        this.onFinished(m);
        break;
    }
  }

  #append(name: OutputChunk['name'], text: string) {
    const last = this.output[this.output.length - 1];
    // Merge consecutive chunks of one stream so a chatty loop stays one DOM node.
    if (last && last.name === name) {
      this.output = [...this.output.slice(0, -1), { name, text: last.text + text }];
    } else {
      this.output = [...this.output, { name, text }];
    }
  }

  #serverError(m: ErrorMessage) {
    this.problem = `${m.code}: ${m.message}`;
    if (this.running || this.runState === 'sending') this.runState = 'error';
  }
}
