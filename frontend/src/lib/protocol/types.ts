/**
 * The page's single import point for protocol types: re-exports of the TypeScript generated from
 * the pydantic models (shared_schemas/generated/messages.gen.ts, never edited by hand), plus
 * the few aliases and helpers the page wants. Changing the protocol means regenerating that
 * file; nothing here restates a message shape.
 */
export type {
  Atom,
  Aval,
  CancelRequest,
  CardKind,
  CardUpdate,
  Display,
  ClientEnvelope,
  ClientMessage,
  Contribution,
  Cost,
  EqnData,
  ErrorMessage,
  Example,
  ExampleSummary,
  Frame,
  GroupData,
  Heatmap,
  Hello,
  JaxprData,
  Limits,
  LiteralData,
  LoopIteration,
  LoopRecord,
  Notice,
  Ping,
  Pong,
  RowLink,
  RunError,
  RunReply,
  RunRequest,
  RunSettings,
  RunState,
  SandboxInfo,
  ServerEnvelope,
  ServerMessage,
  ShareCreated,
  SharedProgram,
  ShareView,
  SourceLoc,
  Span,
  Stage,
  StageName,
  Status,
  Step,
  Stream,
  SubJaxpr,
  TraceCard,
  TraceCardChunk,
  TraceCardMessage,
  ValueSummary,
  VarData,
  Welcome,
} from '$schemas/generated/messages.gen';
export { PROTOCOL_VERSION, SERVER_MESSAGE_TYPES } from '$schemas/generated/messages.gen';

import type { Atom, LiteralData, RunSettings } from '$schemas/generated/messages.gen';

/** RunSettings with every default filled in, as the page keeps them. */
export type FullRunSettings = Required<RunSettings>;

export function isLiteral(a: Atom): a is LiteralData {
  return (a as LiteralData).literal === true;
}
