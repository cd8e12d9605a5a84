/**
 * Search over a card's hierarchy: by Python name, jaxpr name, primitive, group name or shape,
 * whether the node is drawn or hidden in a collapsed group (the pane reveals the match). A query
 * is matched case-insensitively; `op:` / `name:` / `shape:` prefixes restrict it to one field.
 * Shapes match with or without the dtype and spaces (`f32[4,8]`, `[4, 8]`, `4,8`). Results are
 * ranked: exact name, name prefix, primitive, name substring, shape, other text; then program
 * order. Pure.
 */
import type { HNode, Hierarchy } from './tree';

export interface SearchHit {
  id: string;
  score: number;
  /** Which field matched, for the results list. */
  field: 'name' | 'primitive' | 'jaxpr' | 'shape' | 'path';
}

type Field = 'name' | 'op' | 'shape' | 'any';

function parse(q: string): { field: Field; text: string } {
  const m = /^(op|name|shape):\s*(.*)$/i.exec(q.trim());
  if (m) return { field: m[1].toLowerCase() as Field, text: m[2].trim().toLowerCase() };
  return { field: 'any', text: q.trim().toLowerCase() };
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, '');

function shapes(n: HNode): string {
  return norm(`${n.detail} ${n.jaxprDetail} ${n.io}`);
}

function scoreName(n: HNode, t: string): number {
  const names = [n.name.toLowerCase(), n.jaxprName.toLowerCase()];
  if (names[0] === t) return 100;
  if (names[1] === t) return 90;
  if (names[0].startsWith(t)) return 80;
  if (names[0].includes(t)) return 60;
  if (names[1].includes(t)) return 40;
  return 0;
}

function match(n: HNode, q: { field: Field; text: string }): Omit<SearchHit, 'id'> | null {
  const t = q.text;
  const any = q.field === 'any';
  if (any || q.field === 'name') {
    const s = scoreName(n, t);
    if (s >= 60 || s === 90 || (s && !any))
      return { score: s, field: s === 90 || s === 40 ? 'jaxpr' : 'name' };
  }
  const prim = n.primitive?.toLowerCase() ?? '';
  if (prim && (any ? prim === t : q.field === 'op' && prim.includes(t)))
    return { score: prim === t ? 70 : 55, field: 'primitive' };
  if ((any || q.field === 'shape') && shapes(n).includes(norm(t)))
    return { score: 30, field: 'shape' };
  if (any && n.path.toLowerCase().includes(t)) return { score: 10, field: 'path' };
  return null;
}

/** Nodes matching `query`, best first; at most `limit`. */
export function search(h: Hierarchy, query: string, limit = 200): SearchHit[] {
  const q = parse(query);
  if (!q.text) return [];
  const hits: (SearchHit & { order: number })[] = [];
  for (const n of h.nodes.values()) {
    if (n.id === h.root) continue;
    const m = match(n, q);
    if (m) hits.push({ id: n.id, ...m, order: n.order });
  }
  hits.sort((a, b) => b.score - a.score || a.order - b.order);
  return hits.slice(0, limit).map(({ id, score, field }) => ({ id, score, field }));
}
