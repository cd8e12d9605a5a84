/**
 * First line of defence for incoming frames: JSON, the envelope, the protocol version and a
 * known `type`. Full schema validation (validate.ts) runs after this when the generated JSON
 * Schema is available; this guard alone decides whether a frame is routed at all.
 */
import { PROTOCOL_VERSION, type ServerEnvelope, type ServerMessage } from './types';

const SERVER_TYPES: ReadonlySet<ServerMessage['type']> = new Set([
  'welcome',
  'status',
  'stream',
  'trace_card',
  'run_reply',
  'error',
  'pong',
]);

export type Parsed = { ok: true; env: ServerEnvelope } | { ok: false; error: string };

export function parseServerFrame(raw: string): Parsed {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'frame is not JSON' };
  }
  if (!data || typeof data !== 'object') return { ok: false, error: 'frame is not an object' };
  const env = data as Record<string, unknown>;
  if (env.protocol_version !== PROTOCOL_VERSION)
    return { ok: false, error: `protocol_version ${String(env.protocol_version)} unsupported` };
  if (typeof env.id !== 'string') return { ok: false, error: 'envelope without id' };
  if (env.parent_id !== null && typeof env.parent_id !== 'string')
    return { ok: false, error: 'parent_id must be a string or null' };
  const msg = env.msg as { type?: unknown } | null;
  if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string')
    return { ok: false, error: 'envelope without msg.type' };
  if (!SERVER_TYPES.has(msg.type as ServerMessage['type']))
    return { ok: false, error: `unknown server message type ${msg.type}` };
  return { ok: true, env: data as ServerEnvelope };
}
