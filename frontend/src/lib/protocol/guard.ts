/**
 * First line of defence for incoming frames: JSON, the envelope, the protocol version and a
 * known `type`. Full schema validation (validate.ts) runs after this; this guard alone decides
 * whether a frame is routed at all.
 */
import { PROTOCOL_VERSION, SERVER_MESSAGE_TYPES, type ServerEnvelope } from './types';

const SERVER_TYPES: ReadonlySet<string> = new Set(SERVER_MESSAGE_TYPES);

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
  if (!SERVER_TYPES.has(msg.type))
    return { ok: false, error: `unknown server message type ${msg.type}` };
  return { ok: true, env: data as ServerEnvelope };
}
