/**
 * The page's single import point for protocol types.
 *
 * PROVISIONAL: shared_schemas/generated/messages.gen.ts (generated from the pydantic models) has
 * not landed yet, so the shapes below transcribe shared_schemas/PROTOCOL.md v1. When the generated
 * file lands this module becomes a list of re-exports from `$schemas/generated/messages.gen` and
 * nothing else; the rest of the page only imports from here, so that is a one-file switch.
 */

export const PROTOCOL_VERSION = 1;

export interface Envelope<M> {
  protocol_version: number;
  id: string;
  parent_id: string | null;
  msg: M;
}

// ---- client → server ----
export interface RunSettings {
  enable_x64: boolean;
  timeout_s: number;
  compile: boolean;
  max_cards: number;
}
export interface Hello {
  type: 'hello';
  client: string;
}
export interface RunRequest {
  type: 'run_request';
  code: string;
  settings: RunSettings;
}
export interface CancelRequest {
  type: 'cancel_request';
  run_id: string;
}
export interface Ping {
  type: 'ping';
}
export type ClientMessage = Hello | RunRequest | CancelRequest | Ping;

// ---- server → client ----
export interface SandboxInfo {
  mode: 'full' | 'rlimits_only';
  description: string;
}
export interface Limits {
  max_code_bytes: number;
  run_timeout_s: number;
  max_output_bytes: number;
}
export interface Welcome {
  type: 'welcome';
  session_id: string;
  server_version: string;
  sandbox: SandboxInfo;
  limits: Limits;
  examples_url: string;
}
export type RunState =
  | 'queued'
  | 'starting'
  | 'tracing'
  | 'compiling'
  | 'running'
  | 'done'
  | 'error'
  | 'cancelled'
  | 'timeout';
export interface Status {
  type: 'status';
  run_id: string;
  state: RunState;
  detail: string | null;
  elapsed_ms: number;
}
export interface Stream {
  type: 'stream';
  run_id: string;
  name: 'stdout' | 'stderr';
  text: string;
}
export interface TraceCardMessage {
  type: 'trace_card';
  run_id: string;
  card: TraceCard;
}
export interface Frame {
  filename: string;
  lineno: number;
  name: string;
  line: string;
  user: boolean;
}
export interface RunError {
  kind:
    | 'exception'
    | 'syntax'
    | 'timeout'
    | 'memory'
    | 'output_limit'
    | 'kernel_crashed'
    | 'cancelled'
    | 'internal';
  exc_type: string | null;
  message: string;
  traceback: Frame[];
  user_line: number | null;
}
export interface RunReply {
  type: 'run_reply';
  run_id: string;
  ok: boolean;
  duration_ms: number;
  n_cards: number;
  error: RunError | null;
}
export interface ErrorMessage {
  type: 'error';
  code:
    | 'malformed_message'
    | 'unknown_type'
    | 'invalid_message'
    | 'code_too_large'
    | 'busy'
    | 'not_found'
    | 'internal'
    | 'protocol_version';
  message: string;
  detail: string | null;
}
export interface Pong {
  type: 'pong';
}
export type ServerMessage =
  Welcome | Status | Stream | TraceCardMessage | RunReply | ErrorMessage | Pong;

// ---- trace cards ----
export type CardKind =
  | 'grad'
  | 'value_and_grad'
  | 'vjp'
  | 'jvp'
  | 'linearize'
  | 'vmap'
  | 'jit'
  | 'make_jaxpr'
  | 'jacfwd'
  | 'jacrev'
  | 'hessian'
  | 'show';
export interface SourceLoc {
  file: string;
  line: number;
  function: string;
  user: boolean;
}
export interface Aval {
  shape: number[];
  dtype: string;
  weak_type: boolean;
  short: string;
}
export interface VarData {
  id: string;
  name: string;
  aval: Aval;
}
export interface LiteralData {
  literal: true;
  value: string;
  aval: Aval;
}
export type Atom = VarData | LiteralData;
export interface Span {
  start: number;
  end: number;
}
export interface SubJaxpr {
  param: string;
  jaxpr: JaxprData;
}
export interface EqnData {
  id: string;
  primitive: string;
  params: Record<string, string>;
  invars: Atom[];
  outvars: VarData[];
  source: SourceLoc | null;
  span: Span;
  subjaxprs: SubJaxpr[];
  primal_eqn: string | null;
}
export interface JaxprData {
  id: string;
  text: string;
  constvars: VarData[];
  invars: VarData[];
  outvars: Atom[];
  eqns: EqnData[];
  effects: string[];
}
export type StageName =
  | 'jvp'
  | 'partial_eval_known'
  | 'partial_eval_unknown'
  | 'linear'
  | 'transpose'
  | 'vmap'
  | 'stablehlo'
  | 'hlo'
  | 'cost_analysis';
export interface Cost {
  flops: number;
  transcendentals: number;
  bytes_accessed: number;
}
export interface Stage {
  name: StageName;
  title: string;
  language: 'jaxpr' | 'mlir' | 'hlo' | 'json';
  text: string;
  jaxpr: JaxprData | null;
  cost: Cost | null;
}
export interface ValueSummary {
  shape: number[];
  dtype: string;
  min: number | null;
  max: number | null;
  mean: number | null;
  norm: number | null;
  nan_count: number;
  inf_count: number;
  preview: (number | boolean | string)[];
  truncated: boolean;
}
export interface Step {
  index: number;
  phase: 'forward' | 'backward';
  eqn_id: string | null;
  var_ids: string[];
  label: string;
}
export interface TraceCard {
  card_id: string;
  index: number;
  kind: CardKind;
  title: string;
  fun_name: string;
  call_site: SourceLoc | null;
  jaxpr: JaxprData;
  stages: Stage[];
  values: Record<string, ValueSummary>;
  cotangents: Record<string, ValueSummary>;
  timeline: Step[];
  outputs: ValueSummary[];
  error: string | null;
}

export type ServerEnvelope = Envelope<ServerMessage>;
export type ClientEnvelope = Envelope<ClientMessage>;

export function isLiteral(a: Atom): a is LiteralData {
  return (a as LiteralData).literal === true;
}
