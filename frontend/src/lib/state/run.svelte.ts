/**
 * One run of a program: the code and settings it was sent with, its state, and what it produced
 * in the order the program produced it (stdout and stderr chunks, images), its trace cards and
 * its final reply. The session keeps the last few runs, so a run that was stopped or replaced
 * stays visible beside the one that followed it.
 */
import type {
  Display,
  FullRunSettings,
  RunError,
  RunReply,
  RunState,
  ServerMessage,
  TraceCard,
} from '../protocol/types';

export interface TextItem {
  kind: 'text';
  name: 'stdout' | 'stderr';
  text: string;
}

export interface ImageItem {
  kind: 'image';
  mime: Display['mime'];
  /** A data: URL (SVG is shown through <img>, so it can never run script). */
  src: string;
  width: number;
  height: number;
  alt: string;
}

export type OutputItem = TextItem | ImageItem;

/** `waiting`: queued behind a run being stopped; `sending`: sent, no status yet. */
export type RunPhase = RunState | 'waiting' | 'sending';

export function imageSrc(m: Pick<Display, 'mime' | 'data'>): string {
  return m.mime === 'image/png'
    ? `data:image/png;base64,${m.data}`
    : `data:image/svg+xml;charset=utf-8,${encodeURIComponent(m.data)}`;
}

/** Append a stream chunk, merging it into the previous chunk of the same stream. */
export function appendText(out: OutputItem[], name: TextItem['name'], text: string) {
  const last = out[out.length - 1];
  if (last && last.kind === 'text' && last.name === name) {
    return [...out.slice(0, -1), { ...last, text: last.text + text }];
  }
  return [...out, { kind: 'text' as const, name, text }];
}

export class Run {
  /** The envelope id of the run_request, once sent. */
  id = $state<string | null>(null);
  state = $state<RunPhase>('waiting');
  statusDetail = $state<string | null>(null);
  /** While queued: how many runs wait ahead of this one (status.queue_position). */
  queuePosition = $state<number | null>(null);
  elapsedMs = $state(0);
  cards = $state.raw<TraceCard[]>([]);
  /** Latest call count per card id from `card_update` messages. */
  callCounts = $state.raw<Map<string, number>>(new Map());
  output = $state.raw<OutputItem[]>([]);
  reply = $state.raw<RunReply | null>(null);
  /** A server `error` for this run, or a local problem (not connected, connection lost). */
  problem = $state<string | null>(null);
  /** The person stopped it (Stop, or Ctrl+Enter started another run over it). */
  stopRequested = $state(false);

  constructor(
    /** 1, 2, 3… within the page visit, as the run log numbers them. */
    readonly seq: number,
    readonly code: string,
    readonly settings: FullRunSettings,
  ) {}

  get finished(): boolean {
    return this.reply !== null || this.problem !== null;
  }

  get error(): RunError | null {
    return this.reply?.error ?? null;
  }

  get truncated(): boolean {
    return this.reply?.output_truncated === true;
  }

  /** Whether this run's cards come from a run that was stopped before it finished. */
  get cancelled(): boolean {
    return this.state === 'cancelled';
  }

  fail(problem: string) {
    this.problem = problem;
    this.state = 'error';
  }

  /** Never sent: stopped, or replaced by a newer run, while it waited. */
  abandon(reason: string) {
    this.problem = reason;
    this.state = 'cancelled';
  }

  /** Apply one server message of this run (routing by run id is the session's job). */
  handle(m: ServerMessage) {
    switch (m.type) {
      case 'status':
        this.state = m.state;
        this.statusDetail = m.detail;
        this.queuePosition = m.state === 'queued' ? (m.queue_position ?? null) : null;
        this.elapsedMs = m.elapsed_ms;
        break;
      case 'stream':
        this.output = appendText(this.output, m.name, m.text);
        break;
      case 'display':
        this.output = [
          ...this.output,
          {
            kind: 'image',
            mime: m.mime,
            src: imageSrc(m),
            width: m.width,
            height: m.height,
            alt: m.alt,
          },
        ];
        break;
      case 'trace_card':
        this.cards = [...this.cards, m.card];
        break;
      case 'card_update':
        // The same function was called again with the same argument types: one card, counted.
        this.callCounts = new Map(this.callCounts).set(m.card_id, m.call_count);
        this.cards = this.cards.map((c) =>
          c.card_id === m.card_id ? { ...c, call_count: m.call_count } : c,
        );
        break;
      case 'run_reply':
        this.reply = m;
        this.elapsedMs = m.duration_ms;
        this.state = m.ok
          ? 'done'
          : m.error?.kind === 'timeout'
            ? 'timeout'
            : m.error?.kind === 'cancelled'
              ? 'cancelled'
              : 'error';
        break;
    }
  }
}
