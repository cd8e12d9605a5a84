import { describe, expect, it } from 'vitest';
import {
  codeLink,
  compressCode,
  decompressCode,
  fromBase64Url,
  isEmbedPath,
  parseLocation,
  readLocation,
  serverLink,
  toBase64Url,
} from './link';

const CODE = `import jax\nimport jax.numpy as jnp\n\n# ünïcødé ✓ λ\nprint(jax.grad(lambda x: jnp.sin(x) ** 2)(1.0))\n`;

describe('base64url', () => {
  it('round-trips every byte value without padding or URL-unsafe characters', () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    const s = toBase64Url(bytes);
    expect(s).not.toMatch(/[+/=]/);
    expect([...fromBase64Url(s)]).toEqual([...bytes]);
  });
});

describe('#code= links', () => {
  it('compresses and restores code exactly', async () => {
    const token = await compressCode(CODE);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decompressCode(token)).toBe(CODE);
  });

  it('is shorter than the code for typical programs', async () => {
    const long = CODE.repeat(20);
    expect((await compressCode(long)).length).toBeLessThan(long.length / 3);
  });

  it('carries the view state and reads it back', async () => {
    const link = await codeLink('http://h/', CODE, { card: 2, step: 7 });
    const url = new URL(link);
    expect(url.hash.startsWith('#code=')).toBe(true);
    const t = await readLocation(url.pathname, url.search, url.hash);
    expect(t).toEqual({ shareId: null, code: CODE, view: { card: 2, step: 7 } });
  });

  it('rejects a corrupted token', async () => {
    await expect(decompressCode('not-deflate')).rejects.toThrow();
  });
});

describe('server links', () => {
  it('use the server path and put the view in the fragment', () => {
    const link = serverLink('http://h', '/s/Ab3_x', { card: 1 });
    expect(link).toBe('http://h/s/Ab3_x#card=1');
    const url = new URL(link);
    const t = parseLocation(url.pathname, url.search, url.hash);
    expect(t.shareId).toBe('Ab3_x');
    expect(t.view).toEqual({ card: 1 });
    expect(t.codeToken).toBeNull();
  });

  it('reads the embed path and the stage tab', () => {
    const t = parseLocation('/embed/abc_123', '', '#card=1&step=4&stage=hlo');
    expect(t.shareId).toBe('abc_123');
    expect(t.view).toEqual({ card: 1, step: 4, stage: 'hlo' });
    expect(isEmbedPath('/embed/abc_123')).toBe(true);
    expect(isEmbedPath('/s/abc_123')).toBe(false);
    expect(parseLocation('/', '', '#stage=<x>').view).toEqual({});
  });

  it('also reads ?s= and ignores malformed view numbers', () => {
    expect(parseLocation('/', '?s=abc', '').shareId).toBe('abc');
    expect(parseLocation('/', '', '#card=x&step=3').view).toEqual({ step: 3 });
    expect(parseLocation('/', '', '').shareId).toBeNull();
  });
});
