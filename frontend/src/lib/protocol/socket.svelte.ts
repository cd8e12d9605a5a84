/**
 * The websocket connection: connect, hello, reconnect with exponential back-off, keep-alive
 * pings, and a typed send. Incoming frames are guarded (guard.ts), schema-validated (problems are shown, not fatal),
 * and handed to one listener; routing by parent_id is the session's job, not the socket's.
 * `trace_card_chunk` frames are joined here (chunks.ts) and the whole `trace_card` frame then
 * goes through the same guard and validation; listeners never see chunks.
 */
import { backoffDelay, type BackoffOptions, DEFAULT_BACKOFF } from '../util/backoff';
import { ChunkAssembler } from './chunks';
import { parseServerFrame } from './guard';
import {
  PROTOCOL_VERSION,
  type ClientEnvelope,
  type ClientMessage,
  type ServerEnvelope,
  type Welcome,
} from './types';
import { serverValidator, validationError } from './validate';

export type ConnState = 'connecting' | 'open' | 'reconnecting' | 'closed';

const PING_MS = 20_000;

export class Connection {
  state = $state<ConnState>('closed');
  welcome = $state.raw<Welcome | null>(null);
  /** Failed attempts since the last successful open. */
  attempt = $state(0);
  /** When the next reconnect fires (performance.now() time), for the countdown. */
  retryAt = $state<number | null>(null);
  /** Last protocol problem noticed on an incoming frame (shown, never fatal). */
  protocolWarning = $state<string | null>(null);

  onMessage: (env: ServerEnvelope) => void = () => {};
  onOpen: () => void = () => {};
  onDrop: () => void = () => {};

  #ws: WebSocket | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #ping: ReturnType<typeof setInterval> | null = null;
  #seq = 0;
  #stopped = false;
  #chunks = new ChunkAssembler();

  constructor(
    private url: string,
    private backoff: BackoffOptions = DEFAULT_BACKOFF,
  ) {}

  static defaultUrl(): string {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${location.host}/api/ws`;
  }

  connect() {
    this.#stopped = false;
    this.#clearTimer();
    this.state = this.attempt === 0 ? 'connecting' : 'reconnecting';
    const ws = new WebSocket(this.url);
    this.#ws = ws;
    ws.onopen = () => {
      if (this.#ws !== ws) return;
      this.state = 'open';
      this.attempt = 0;
      this.retryAt = null;
      this.send({ type: 'hello', client: 'didax-playground-web/0.1' });
      this.#ping = setInterval(() => this.send({ type: 'ping' }), PING_MS);
      this.onOpen();
    };
    ws.onmessage = (ev) => {
      if (this.#ws === ws && typeof ev.data === 'string') this.#receive(ev.data);
    };
    ws.onclose = () => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      this.#chunks.reset();
      if (this.#ping) clearInterval(this.#ping);
      this.#ping = null;
      this.welcome = null;
      this.onDrop();
      if (this.#stopped) {
        this.state = 'closed';
        return;
      }
      this.#schedule();
    };
  }

  /** Skip the back-off wait and try right now. */
  reconnectNow() {
    if (this.state === 'open') return;
    this.#ws?.close();
    this.#ws = null;
    this.connect();
  }

  close() {
    this.#stopped = true;
    this.#clearTimer();
    this.#ws?.close();
    this.state = 'closed';
  }

  /** Send one message; returns its envelope id, or null when the socket is not open. */
  send(msg: ClientMessage, id = `c-${++this.#seq}`): string | null {
    if (!this.#ws || this.#ws.readyState !== WebSocket.OPEN) return null;
    const env: ClientEnvelope = { protocol_version: PROTOCOL_VERSION, id, parent_id: null, msg };
    this.#ws.send(JSON.stringify(env));
    return id;
  }

  nextId(): string {
    return `c-${++this.#seq}`;
  }

  #receive(raw: string, assembled = false) {
    const parsed = parseServerFrame(raw);
    if (!parsed.ok) {
      this.protocolWarning = parsed.error;
      return;
    }
    const type = parsed.env.msg.type;
    if (assembled && type !== 'trace_card') {
      this.protocolWarning = `reassembled chunks hold a ${type}, not a trace_card`;
      return;
    }
    const v = serverValidator();
    const valid = v(parsed.env);
    if (!valid) {
      // Keep going: a field the page does not read should not take the page down.
      this.protocolWarning = `${type}: ${validationError(v)}`;
    }
    if (parsed.env.msg.type === 'trace_card_chunk') {
      if (!valid) return; // a chunk that fails the schema cannot be placed
      const r = this.#chunks.push(parsed.env.msg);
      if (r.kind === 'complete') this.#receive(r.frame, true);
      else if (r.kind === 'dropped') this.protocolWarning = r.reason;
      return;
    }
    if (parsed.env.msg.type === 'welcome') this.welcome = parsed.env.msg;
    this.onMessage(parsed.env);
  }

  #schedule() {
    const delay = backoffDelay(this.attempt, this.backoff);
    this.attempt += 1;
    this.state = 'reconnecting';
    this.retryAt = performance.now() + delay;
    this.#timer = setTimeout(() => this.connect(), delay);
  }

  #clearTimer() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
