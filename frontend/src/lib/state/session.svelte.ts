/**
 * One editing session: the code, run settings, and the last few runs (run.svelte.ts), each with
 * what it produced. Messages are routed to their run by `run_id` / `parent_id`, so frames of an
 * older run can never leak into a newer one, and no result is dropped: running again while a
 * run is going stops that run first (its output and cards stay, marked cancelled) and sends the
 * new run once the server has answered the old one (the server runs one program at a time).
 *
 * `viewed` is the run whose cards the graph, jaxpr and stages show: the newest run once it has
 * a card or has finished, so a restart does not blank the panes while the new run starts.
 */
import type { Connection } from '../protocol/socket.svelte';
import type {
  ErrorMessage,
  FullRunSettings,
  RunError,
  RunReply,
  ServerEnvelope,
  TraceCard,
} from '../protocol/types';
import { Run, type OutputItem, type RunPhase } from './run.svelte';

export const DEFAULT_SETTINGS: FullRunSettings = {
  enable_x64: false,
  timeout_s: 10,
  compile: true,
  max_cards: 32,
  loop_iterations: 64,
};

/** Runs kept for the run log (older finished ones are dropped). */
export const MAX_RUNS = 5;

/** Number inputs can be emptied or typed out of range: send what the schema accepts. */
export function sanitized(s: FullRunSettings): FullRunSettings {
  const n = Math.round(Number(s.loop_iterations));
  const loop_iterations = Number.isFinite(n) ? Math.min(1024, Math.max(1, n)) : 64;
  const t = Number(s.timeout_s);
  const timeout_s = Number.isFinite(t) && t > 0 ? Math.min(600, t) : DEFAULT_SETTINGS.timeout_s;
  return { ...s, loop_iterations, timeout_s };
}

export class Session {
  code = $state('');
  settings = $state<FullRunSettings>({ ...DEFAULT_SETTINGS });
  /** Oldest first; the last one is the current run. */
  runs = $state.raw<Run[]>([]);
  viewedSeq = $state<number | null>(null);
  /** Bumped on every new run so views can reset (selection, player). */
  generation = $state(0);

  /** A card arrived for the viewed run. */
  onCard: (card: TraceCard) => void = () => {};
  /** The viewed run changed (a new run's first card or end, or the person picked a run). */
  onView: (run: Run) => void = () => {};
  /** The current run finished. */
  onFinished: (reply: RunReply | null) => void = () => {};

  #seq = 0;

  constructor(private conn: Connection) {}

  get current(): Run | null {
    return this.runs[this.runs.length - 1] ?? null;
  }

  get viewed(): Run | null {
    return this.runs.find((r) => r.seq === this.viewedSeq) ?? null;
  }

  get running(): boolean {
    const r = this.current;
    return !!r && !r.finished;
  }

  // The current run's fields, as the panes read them.
  get runId(): string | null {
    return this.current?.id ?? null;
  }
  get runState(): RunPhase | 'idle' {
    return this.current?.state ?? 'idle';
  }
  get output(): OutputItem[] {
    return this.current?.output ?? [];
  }
  get reply(): RunReply | null {
    return this.current?.reply ?? null;
  }
  get problem(): string | null {
    return this.current?.problem ?? null;
  }
  get error(): RunError | null {
    return this.current?.error ?? null;
  }
  /** The viewed run's cards. */
  get cards(): TraceCard[] {
    return this.viewed?.cards ?? [];
  }

  /** How many times the program called the card's function with these argument types. */
  callCount(card: TraceCard): number {
    const counts = this.runs.find((r) => r.cards.some((c) => c.card_id === card.card_id));
    return counts?.callCounts.get(card.card_id) ?? card.call_count ?? 1;
  }

  /**
   * Run the editor's code. A run still going is stopped first and kept; the new one is sent when
   * the server has answered the stop. False when it could not be sent (not connected).
   */
  run(): boolean {
    const active = this.runs.filter((r) => !r.finished);
    const run = new Run(++this.#seq, this.code, sanitized($state.snapshot(this.settings)));
    this.generation += 1;
    this.#keep(run);
    for (const r of active) {
      if (r.id === null) r.abandon('Replaced by a newer run before it started.');
      else this.#stop(r);
    }
    return this.#inFlight() ? true : this.#send(run);
  }

  /** Stop the current run (its output and cards so far stay, marked cancelled). */
  cancel() {
    const r = this.current;
    if (!r || r.finished) return;
    if (r.id === null) r.abandon('Stopped before it started.');
    else this.#stop(r);
  }

  view(run: Run) {
    if (this.viewedSeq === run.seq) return;
    this.viewedSeq = run.seq;
    this.onView(run);
  }

  /** The connection dropped: runs in flight will never be answered. */
  connectionLost() {
    for (const r of this.runs) {
      if (r.finished) continue;
      r.fail(
        r.id === null
          ? 'Not sent: the connection to the server was lost.'
          : 'The connection to the server was lost during the run.',
      );
    }
  }

  handle(env: ServerEnvelope) {
    const m = env.msg;
    if (m.type === 'error') {
      const run = env.parent_id === null ? this.current : this.#byId(env.parent_id);
      if (run) this.#serverError(run, m);
      return;
    }
    if (!('run_id' in m)) return;
    const run = this.#byId(m.run_id);
    if (!run) return;
    run.handle(m);
    if (m.type === 'trace_card') {
      if (run === this.current && run.cards.length === 1) this.view(run);
      if (run === this.viewed) this.onCard(m.card);
    } else if (m.type === 'run_reply') {
      this.#finished(run);
    }
  }

  #byId(id: string): Run | null {
    return this.runs.find((r) => r.id === id) ?? null;
  }

  /** Add a run to the log, dropping the oldest finished ones, never the run whose cards show. */
  #keep(run: Run) {
    const runs = [...this.runs, run];
    for (let i = 0; runs.length > MAX_RUNS && i < runs.length - 1;) {
      if (runs[i].finished && runs[i].seq !== this.viewedSeq) runs.splice(i, 1);
      else i++;
    }
    this.runs = runs;
  }

  #send(run: Run): boolean {
    const id = this.conn.nextId();
    const sent = this.conn.send(
      { type: 'run_request', code: run.code, settings: run.settings },
      id,
    );
    if (sent === null) {
      run.fail('Not connected to the kernel server — the run was not sent.');
      this.#finished(run);
      return false;
    }
    run.id = id;
    run.state = 'sending';
    return true;
  }

  #stop(run: Run) {
    if (run.stopRequested || run.id === null) return;
    run.stopRequested = true;
    this.conn.send({ type: 'cancel_request', run_id: run.id });
  }

  /** A run that was sent and has not been answered yet. */
  #inFlight(): boolean {
    return this.runs.some((r) => r.id !== null && !r.finished);
  }

  #finished(run: Run) {
    if (run === this.current) {
      if (this.viewed !== run && (run.cards.length > 0 || !this.viewed?.cards.length)) {
        this.view(run);
      }
      this.onFinished(run.reply);
      return;
    }
    // A stopped run was answered: send the run that waited for it.
    const next = this.current;
    if (next && next.id === null && !next.finished && !this.#inFlight()) this.#send(next);
  }

  #serverError(run: Run, m: ErrorMessage) {
    if (m.code === 'invalid_card') {
      // The card is dropped and the run goes on: say so in its output, in order.
      run.handle({
        type: 'stream',
        run_id: run.id ?? '',
        name: 'stderr',
        text: `[a trace card was dropped: ${m.detail ?? m.message}]\n`,
      });
      return;
    }
    if (run.finished) return;
    run.fail(`${m.code}: ${m.message}`);
    this.#finished(run);
  }
}
