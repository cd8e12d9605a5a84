/**
 * HTTP side of the backend: examples and the share store. The answers are read defensively
 * (these endpoints are plain JSON over HTTP, outside the websocket protocol's generated types),
 * and every failure is an Error with a message fit for the page.
 */

export interface ExampleInfo {
  id: string;
  title: string;
  description: string;
}
export interface Example extends ExampleInfo {
  code: string;
}
export interface SharedProgram {
  code: string;
  settings: Record<string, unknown>;
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
): Promise<string> {
  const res = await fetch('/api/share', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, settings }),
  });
  const data = (await json(res)) as Record<string, unknown>;
  const id = str(data.id);
  if (!id) throw new Error('share store answered without an id');
  return id;
}

export async function loadShare(id: string): Promise<SharedProgram> {
  const data = (await json(await fetch(`/api/share/${encodeURIComponent(id)}`))) as Record<
    string,
    unknown
  >;
  if (typeof data.code !== 'string') throw new Error('shared program has no code');
  const code = data.code;
  const settings =
    data.settings && typeof data.settings === 'object'
      ? (data.settings as Record<string, unknown>)
      : {};
  return { code, settings };
}
