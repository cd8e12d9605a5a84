/**
 * Share links that need no server: the code compressed with deflate-raw (CompressionStream,
 * built into browsers and node) and base64url-encoded into the URL fragment, `#code=...`.
 * The fragment never reaches a server, so a link works even when the share store is down.
 * View state (card, step) rides along in the same fragment: a link can point at
 * "card 2, backward step 7", which no other playground can share.
 */

import { ShareError } from './errors';

export interface ViewState {
  card?: number;
  step?: number;
  /** Stage tab by name (`stablehlo`, `hlo`, …). */
  stage?: string;
}

export interface LinkTarget {
  /** Server share id from a `/s/<id>` path (or `?s=<id>`). */
  shareId: string | null;
  /** Inline code from `#code=<deflated base64url>`. */
  code: string | null;
  view: ViewState;
}

export function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream) {
  const out = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function compressCode(code: string): Promise<string> {
  const bytes = new TextEncoder().encode(code);
  return toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')));
}

export async function decompressCode(token: string): Promise<string> {
  const bytes = await pipe(fromBase64Url(token), new DecompressionStream('deflate-raw'));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

function viewParams(view: ViewState): string {
  const parts: string[] = [];
  if (view.card !== undefined) parts.push(`card=${view.card}`);
  if (view.step !== undefined) parts.push(`step=${view.step}`);
  if (view.stage) parts.push(`stage=${encodeURIComponent(view.stage)}`);
  return parts.join('&');
}

/** `origin/path#code=...&card=..&step=..` */
export async function codeLink(base: string, code: string, view: ViewState = {}): Promise<string> {
  const extra = viewParams(view);
  return `${base}#code=${await compressCode(code)}${extra ? '&' + extra : ''}`;
}

/** `origin` + the server's share path (`/s/<id>`) + `#card=..&step=..` */
export function serverLink(origin: string, path: string, view: ViewState = {}): string {
  const extra = viewParams(view);
  return `${origin}${path}${extra ? '#' + extra : ''}`;
}

function intParam(p: URLSearchParams, key: string): number | undefined {
  const v = p.get(key);
  if (v === null || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}

const SHARE_PATH = /\/(?:s|embed)\/([A-Za-z0-9_-]+)\/?$/;

/** Is this the embed view (`/embed/<share id>`: editor, graph and player only)? */
export function isEmbedPath(pathname: string): boolean {
  return /^\/embed\//.test(pathname);
}

/** Read a share target from a location's path, search and hash. Code stays compressed here. */
export function parseLocation(
  pathname: string,
  search: string,
  hash: string,
): LinkTarget & { codeToken: string | null } {
  const q = new URLSearchParams(search);
  const fromPath = SHARE_PATH.exec(pathname)?.[1] ?? null;
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  const view: ViewState = {};
  const card = intParam(h, 'card');
  const step = intParam(h, 'step');
  if (card !== undefined) view.card = card;
  if (step !== undefined) view.step = step;
  const stage = h.get('stage');
  if (stage && /^[a-z_]{1,40}$/.test(stage)) view.stage = stage;
  return { shareId: fromPath ?? q.get('s'), code: null, codeToken: h.get('code'), view };
}

/**
 * Full decode of a location, including decompressing an inline `#code=`. A token that is not
 * base64url, not deflate or not UTF-8 (a link cut short in copying) is a ShareError 'garbled'.
 */
export async function readLocation(
  pathname: string,
  search: string,
  hash: string,
): Promise<LinkTarget> {
  const t = parseLocation(pathname, search, hash);
  let code: string | null = null;
  if (t.codeToken !== null) {
    try {
      code = await decompressCode(t.codeToken);
    } catch (err) {
      throw new ShareError('garbled', String(err instanceof Error ? err.message : err));
    }
  }
  return { shareId: t.shareId, code, view: t.view };
}
