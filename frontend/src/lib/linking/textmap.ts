/**
 * Maps between the text panes and the structured card. Jaxpr listings use the equations'
 * character spans (sent by the kernel, never recovered by parsing); StableHLO and HLO texts are
 * linked through the source locations XLA keeps on each op (`loc("file":L:C)` in MLIR,
 * `source_line=L` metadata in HLO), which is the same user line an equation records.
 */
import type { JaxprData } from '../protocol/types';

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

const MLIR_ALIAS = /^#(loc\d*)\s*=\s*loc\((.*)\)\s*$/;
const FILE_LINE = /"([^"]*)":(\d+):\d+/;
const LOC_REF = /loc\((#loc\d*|"[^"]*":\d+:\d+)[^)]*\)\s*$/;
const HLO_LINE = /source_line=(\d+)/;

/** For each line of an MLIR (StableHLO) or HLO text, the user source line its op came from. */
export function hloSourceLines(text: string, language: string): (number | null)[] {
  const lines = text.split('\n');
  if (language === 'hlo') {
    return lines.map((l) => {
      const m = HLO_LINE.exec(l);
      return m ? Number(m[1]) : null;
    });
  }
  const alias = new Map<string, string>();
  for (const l of lines) {
    const m = MLIR_ALIAS.exec(l.trim());
    if (m) alias.set(m[1], m[2]);
  }
  const resolve = (body: string, depth = 0): number | null => {
    const direct = FILE_LINE.exec(body);
    if (direct) return Number(direct[2]);
    if (depth > 8) return null;
    for (const ref of body.match(/#loc\d*/g) ?? []) {
      const r = alias.get(ref.slice(1));
      const line = r ? resolve(r, depth + 1) : null;
      if (line !== null) return line;
    }
    return null;
  };
  return lines.map((l) => {
    if (MLIR_ALIAS.test(l.trim())) return null;
    const m = LOC_REF.exec(l);
    return m ? resolve(m[1]) : null;
  });
}
