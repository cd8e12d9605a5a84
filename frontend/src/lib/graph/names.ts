/**
 * The names the page shows for a card's values. The engine records the user's Python name of a
 * variable (`VarData.user_name`: `params['W1']`, `h`, `result[0]`); the jaxpr's own name (`a`,
 * `bq`) stays available as the secondary label. A Python name bound more than once (a loop
 * rebinding `x`) gets a subscript from its second binding on (`x`, `x₂`, `x₃`), in program
 * order, so the listing and the graph never show two different values under one name.
 * Pure: no DOM.
 */
import { isLiteral, type Atom, type JaxprData, type VarData } from '../protocol/types';

export type NameMode = 'python' | 'jaxpr';

const SUB = '₀₁₂₃₄₅₆₇₈₉';

function subscript(n: number): string {
  return String(n)
    .split('')
    .map((d) => SUB[Number(d)])
    .join('');
}

/** var id → Python name (disambiguated), for every variable of the card that has one. */
export function pythonNames(root: JaxprData): Map<string, string> {
  const out = new Map<string, string>();
  const seen = new Map<string, number>();
  const bind = (v: VarData) => {
    if (!v.user_name || out.has(v.id)) return;
    const n = (seen.get(v.user_name) ?? 0) + 1;
    seen.set(v.user_name, n);
    out.set(v.id, n === 1 ? v.user_name : `${v.user_name}${subscript(n)}`);
  };
  const visit = (j: JaxprData) => {
    for (const v of [...j.constvars, ...j.invars]) bind(v);
    for (const e of j.eqns) {
      for (const s of e.subjaxprs) visit(s.jaxpr);
      for (const v of e.outvars) bind(v);
    }
  };
  visit(root);
  return out;
}

/** How one variable (or literal) reads in a mode. */
export function atomName(a: Atom, names: Map<string, string>, mode: NameMode): string {
  if (isLiteral(a)) return a.value;
  if (mode === 'python') return names.get(a.id) ?? a.name;
  return a.name;
}

/**
 * The pytree root of a Python name, for grouping a function's flattened arguments:
 * `params['W1']` → `params`, `params[0][1]` → `params`, `x` → `x`.
 */
export function pytreeRoot(name: string): string {
  const m = /^[^[.]+/.exec(name);
  return m ? m[0] : name;
}

/** The first path step below the root: `result[0][1]` → `result[0]`. */
export function pytreeHead(name: string): string {
  const m = /^[^[.]+(\[[^\]]*\]|\.[A-Za-z_]\w*)?/.exec(name);
  return m ? m[0] : name;
}

/** The path steps of a Python name: `params['layers'][0].w` → params, ['layers'], [0], .w */
export function pytreeSteps(name: string): string[] {
  const root = pytreeRoot(name);
  const rest = name.slice(root.length).match(/\[[^\]]*\]|\.[A-Za-z_]\w*/g) ?? [];
  return [root, ...rest];
}

/** The name cut after `depth` + 1 path steps: depth 0 is the root, 1 the first step below it. */
export function pytreePrefix(name: string, depth: number): string {
  return pytreeSteps(name)
    .slice(0, depth + 1)
    .join('');
}

/** Frames Python makes for comprehensions, not functions the user wrote. */
export const COMPREHENSION = /^<(listcomp|genexpr|dictcomp|setcomp)>$/;

/**
 * A function's name as a reader knows it: `attention.<locals>.<listcomp>` → `attention`,
 * `outer.<locals>.inner` → `outer.inner` (Python's qualified names of nested functions).
 */
export function readableFn(fn: string): string {
  const parts = fn.split('.').filter((p) => p !== '<locals>' && !COMPREHENSION.test(p));
  return parts.join('.') || fn;
}
