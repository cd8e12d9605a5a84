import { describe, expect, it } from 'vitest';
import { parseServerFrame } from './guard';

const env = (msg: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ protocol_version: 2, id: 's-1', parent_id: 'c-1', msg, ...extra });

describe('parseServerFrame', () => {
  it('accepts a well-formed server message', () => {
    const r = parseServerFrame(env({ type: 'pong' }));
    expect(r.ok).toBe(true);
  });

  it.each([
    ['not json', '{', /not JSON/],
    ['array', '[]', /without id|protocol_version/],
    ['wrong version', env({ type: 'pong' }, { protocol_version: 3 }), /protocol_version 3/],
    [
      'no id',
      JSON.stringify({ protocol_version: 2, parent_id: null, msg: { type: 'pong' } }),
      /without id/,
    ],
    ['bad parent', env({ type: 'pong' }, { parent_id: 5 }), /parent_id/],
    ['no type', env({}), /msg.type/],
    ['client type', env({ type: 'run_request' }), /unknown server message type run_request/],
  ])('rejects %s', (_, raw, msg) => {
    const r = parseServerFrame(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(msg);
  });
});
