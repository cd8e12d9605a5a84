/**
 * HTTP side of the backend: examples and the share store. Bodies are typed by the generated
 * shared_schemas models (ExampleSummary, Example, ShareCreated, SharedProgram) but still read
 * defensively, since a proxy or an old server may answer with anything; every failure is an
 * Error with a message fit for the page.
 */
import type { Example, ExampleSummary, SharedProgram, ShareView } from '../protocol/types';
import { ShareError } from './errors';

export type ExampleInfo = ExampleSummary;
export interface Share {
  id: string;
  /** Server-relative link path, e.g. `/s/<id>`. */
  url: string;
}

async function json(res: Response): Promise<unknown> {
  if (!res.ok) throw new Error(`${res.url.replace(location.origin, '')}: HTTP ${res.status}`);
  return res.json();
}

function str(x: unknown, fallback = ''): string {
  return typeof x === 'string' ? x : fallback;
}

function asExampleInfo(x: unknown): ExampleInfo | null {
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  const id = str(o.id);
  if (!id) return null;
  return { id, title: str(o.title, id), description: str(o.description ?? o.summary) };
}

export async function listExamples(): Promise<ExampleInfo[]> {
  const data = await json(await fetch('/api/examples'));
  const list = Array.isArray(data)
    ? data
    : ((data as { examples?: unknown[] } | null)?.examples ?? []);
  return list.map(asExampleInfo).filter((e): e is ExampleInfo => e !== null);
}

export async function getExample(id: string): Promise<Example> {
  const data = (await json(await fetch(`/api/examples/${encodeURIComponent(id)}`))) as Record<
    string,
    unknown
  >;
  const info = asExampleInfo(data) ?? { id, title: id, description: '' };
  const code = str(data.code);
  if (!code) throw new Error(`example ${id} has no code`);
  return { ...info, code };
}

export async function createShare(
  code: string,
  settings: Record<string, unknown>,
  view?: ShareView,
): Promise<Share> {
  const res = await fetch('/api/share', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(view ? { code, settings, view } : { code, settings }),
  });
  const data = (await json(res)) as Record<string, unknown>;
  const id = str(data.id);
  if (!id) throw new Error('share store answered without an id');
  return { id, url: str(data.url, `/s/${encodeURIComponent(id)}`) };
}

function asView(x: unknown): ShareView | null {
  if (!x || typeof x !== 'object') return null;
  const o = x as Record<string, unknown>;
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);
  return {
    card: int(o.card),
    step: int(o.step),
    stage: typeof o.stage === 'string' ? o.stage : null,
  };
}

/** A stored share; failures are ShareErrors (not_found, unreachable, server). */
export async function loadShare(
  id: string,
): Promise<
  Pick<SharedProgram, 'code'> & { settings: Record<string, unknown>; view: ShareView | null }
> {
  let res: Response;
  try {
    res = await fetch(`/api/share/${encodeURIComponent(id)}`);
  } catch (err) {
    throw new ShareError('unreachable', String(err));
  }
  if (res.status === 404 || res.status === 400 || res.status === 422) {
    throw new ShareError('not_found', `share ${id}: HTTP ${res.status}`);
  }
  let data: Record<string, unknown>;
  try {
    data = (await json(res)) as Record<string, unknown>;
  } catch (err) {
    throw new ShareError('server', String(err));
  }
  if (typeof data?.code !== 'string') throw new ShareError('server', 'shared program has no code');
  const code = data.code;
  const settings =
    data.settings && typeof data.settings === 'object'
      ? (data.settings as Record<string, unknown>)
      : {};
  return { code, settings, view: asView(data.view) };
}
