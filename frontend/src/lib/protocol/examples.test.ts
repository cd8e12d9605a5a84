/**
 * Conformance with the shared sample messages: each file in shared_schemas/examples is checked
 * against the envelope of its direction (its name says which) in the generated JSON Schema with
 * ajv — valid ones pass, invalid ones fail — and server-direction valid samples also pass the
 * page's frame guard. The page's own outgoing messages are checked against ClientEnvelope.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import schema from '$schemas/generated/protocol.schema.json';
import { parseServerFrame } from './guard';
import { makeValidator, type Direction } from './validate';
import { PROTOCOL_VERSION } from './types';
import { DEFAULT_SETTINGS } from '../state/session.svelte';

const root = join(__dirname, '../../../../shared_schemas/examples');
const validators: Record<Direction, ReturnType<typeof makeValidator>> = {
  ServerEnvelope: makeValidator(schema, 'ServerEnvelope'),
  ClientEnvelope: makeValidator(schema, 'ClientEnvelope'),
};

function samples(kind: 'valid' | 'invalid'): [string, Direction, unknown][] {
  const dir = join(root, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [
      f,
      f.startsWith('server.') ? 'ServerEnvelope' : 'ClientEnvelope',
      JSON.parse(readFileSync(join(dir, f), 'utf8')),
    ]);
}

const valid = samples('valid');
const invalid = samples('invalid');

describe('shared_schemas examples', () => {
  it('exist in both directions', () => {
    expect(valid.some(([, d]) => d === 'ServerEnvelope')).toBe(true);
    expect(valid.some(([, d]) => d === 'ClientEnvelope')).toBe(true);
    expect(invalid.length).toBeGreaterThan(0);
  });

  it.each(valid)('valid: %s passes %s', (_, dir, msg) => {
    const v = validators[dir];
    expect(v(msg), JSON.stringify(v.errors)).toBe(true);
  });

  it.each(invalid)('invalid: %s fails %s', (_, dir, msg) => {
    expect(validators[dir](msg)).toBe(false);
  });

  it.each(valid.filter(([, d]) => d === 'ServerEnvelope'))('guard accepts %s', (_, __, msg) => {
    const r = parseServerFrame(JSON.stringify(msg));
    expect(r.ok, r.ok ? '' : r.error).toBe(true);
  });
});

describe('messages the page sends', () => {
  it.each([
    ['hello', { type: 'hello', client: 'didax-playground-web/0.1' }],
    ['run_request', { type: 'run_request', code: 'print(1)', settings: DEFAULT_SETTINGS }],
    ['cancel_request', { type: 'cancel_request', run_id: 'c-1' }],
    ['ping', { type: 'ping' }],
  ])('%s is a valid ClientEnvelope', (_, msg) => {
    const env = { protocol_version: PROTOCOL_VERSION, id: 'c-1', parent_id: null, msg };
    const v = validators.ClientEnvelope;
    expect(v(env), JSON.stringify(v.errors)).toBe(true);
  });
});
