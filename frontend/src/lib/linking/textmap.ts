/**
 * Maps between the text panes and the structured card, never by parsing text. Jaxpr listings
 * use the equations' character spans (sent by the kernel); StableHLO and HLO rows use the
 * row links the engine records (`Stage.rows`: text row → user line, primal equation, op name,
 * from the StableHLO locations and XLA's op metadata).
 */
import type { JaxprData, RowLink } from '../protocol/types';

export interface EqnSpan {
  id: string;
  start: number;
  end: number;
}

/**
 * Spans of every equation in the root text. Nested equations are located in the root text when
 * their span already points there (text matches), otherwise by finding their own text inside
 * the enclosing equation's span; ones that cannot be placed fall back to the enclosing equation.
 */
export function eqnSpans(root: JaxprData): EqnSpan[] {
  const out: EqnSpan[] = [];
  const text = root.text;
  const visit = (j: JaxprData, within: EqnSpan | null) => {
    for (const e of j.eqns) {
      let span: EqnSpan | null = null;
      const own = j.text.slice(e.span.start, e.span.end);
      if (j === root || text.slice(e.span.start, e.span.end) === own) {
        span = { id: e.id, start: e.span.start, end: e.span.end };
      } else if (within && own.trim()) {
        const at = text.indexOf(own.trim(), within.start);
        if (at >= 0 && at < within.end) span = { id: e.id, start: at, end: at + own.trim().length };
      }
      if (span) out.push(span);
      for (const s of e.subjaxprs) visit(s.jaxpr, span ?? within);
    }
  };
  visit(root, null);
  return out;
}

/** For each line of `text`, the innermost equation whose span covers the line's first glyph. */
export function lineEqns(text: string, spans: EqnSpan[]): (string | null)[] {
  const lines = text.split('\n');
  const out: (string | null)[] = [];
  let offset = 0;
  for (const line of lines) {
    const first = offset + (line.length - line.trimStart().length);
    let best: EqnSpan | null = null;
    for (const s of spans) {
      if (s.start <= first && first < s.end && (!best || s.end - s.start < best.end - best.start))
        best = s;
    }
    out.push(line.trim() ? (best?.id ?? null) : null);
    offset += line.length + 1;
  }
  return out;
}

export interface StageRows {
  /** Per text row: `row:<i>` when the row has a link, else null. */
  ids: (string | null)[];
  links: Map<string, RowLink>;
}

/** A StableHLO / HLO stage's row links (Stage.rows, recorded by the engine) by row. */
export function stageRows(lineCount: number, rows: RowLink[]): StageRows {
  const ids: (string | null)[] = new Array(lineCount).fill(null);
  const links = new Map<string, RowLink>();
  for (const r of rows) {
    if (r.row >= lineCount) continue;
    const id = `row:${r.row}`;
    ids[r.row] = id;
    links.set(id, r);
  }
  return { ids, links };
}
