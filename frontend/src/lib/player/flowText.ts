/**
 * The words and numbers the player prints about gradient flow: a variable's running partial
 * sum ("∇ 0.9093 (1 of 2)", then "∇ 0.9093 + (-0.8323) = 0.077 (2 of 2)"), a contribution on
 * an edge, a broadcast reduction ("Σ over axis 0: f32[4,3] → f32[3]"), and forward-mode
 * tangents ("ẋ = 1"). A partial sum is always labelled as one (k of n). Pure; imports the
 * protocol types and util/format only.
 */
import type { Contribution, ValueSummary } from '../protocol/types';
import { badge, num } from '../util/format';
import type { PartialSum } from './timeline';

const DTYPES: Record<string, string> = {
  float16: 'f16',
  bfloat16: 'bf16',
  float32: 'f32',
  float64: 'f64',
  int8: 'i8',
  int16: 'i16',
  int32: 'i32',
  int64: 'i64',
  uint8: 'u8',
  uint32: 'u32',
  bool: 'bool',
  complex64: 'c64',
  complex128: 'c128',
};

export function shortDtype(dtype: string): string {
  return DTYPES[dtype] ?? dtype;
}

export function shortAval(dtype: string, shape: number[]): string {
  return `${shortDtype(dtype)}[${shape.join(',')}]`;
}

/** A value as the graph prints it: the scalar itself, or the mean of an array ("μ 0.12"). */
export function printed(v: ValueSummary): string {
  return badge(v);
}

/** A term of a printed sum: negative scalars get parentheses, "0.9 + (-0.8)". */
function term(v: ValueSummary): string {
  const s = printed(v);
  return s.startsWith('-') ? `(${s})` : s;
}

/** "(1 of 2)" while a sum is partial or came from several edges; "" for a single contribution. */
export function countText(p: PartialSum): string {
  return p.of > 1 ? `(${p.k} of ${p.of})` : '';
}

/**
 * What the variable's badge says. On the step where a contribution lands on a variable that
 * already held one, the addition itself is shown; otherwise the running sum with its count.
 */
export function partialText(p: PartialSum, arrivingNow: boolean): string {
  const count = countText(p);
  const tail = count ? ` ${count}` : '';
  if (arrivingNow && p.before && p.last)
    return `∇ ${term(p.before)} + ${term(p.last.value)} = ${printed(p.sum)}${tail}`;
  return `∇ ${printed(p.sum)}${tail}`;
}

/** One sentence for the values panel: "∇ x = 0.9093 + (-0.8323) = 0.077, 2 of 2: total". */
export function partialSentence(name: string, p: PartialSum, arrivingNow: boolean): string {
  const sum =
    arrivingNow && p.before && p.last
      ? `${term(p.before)} + ${term(p.last.value)} = ${printed(p.sum)}`
      : printed(p.sum);
  const status =
    p.of <= 1
      ? 'its whole cotangent'
      : p.complete
        ? `${p.k} of ${p.of} contributions: the total`
        : `${p.k} of ${p.of} contributions so far: a partial sum`;
  return `∇ ${name} = ${sum} (${status})`;
}

/** "Σ over axis 0: f32[4,3] → f32[3]" for a contribution reduced back to its operand's shape. */
export function reductionText(c: Contribution): string | null {
  if (!c.reduced_from || (c.reduced_axes ?? []).length === 0) return null;
  const axes = c.reduced_axes ?? [];
  const dt = c.value.dtype;
  const what = axes.length === 1 ? `axis ${axes[0]}` : `axes ${axes.join(', ')}`;
  return `Σ over ${what}: ${shortAval(dt, c.reduced_from)} → ${shortAval(dt, c.value.shape)}`;
}

/** The short chip drawn on an edge while a contribution travels along it. */
export function contributionChip(c: Contribution): string {
  return printed(c.value);
}

/** "ẋ = 1" beside a primal value in forward mode. */
export function tangentText(v: ValueSummary): string {
  return `ẋ = ${printed(v)}`;
}

/** Forward badge: "1.5" or "1.5, ẋ = 1" when the tangent is known. */
export function forwardText(value: ValueSummary, tangent: ValueSummary | null): string {
  return tangent ? `${printed(value)}, ${tangentText(tangent)}` : printed(value);
}

/** A plain number for statistics lines. */
export { num };

/**
 * The card's title with its whole composition: the recorder's title when it already names
 * every transform (`jit(grad(loss))`), else one built from `transforms`, outermost first.
 */
export function cardTitle(card: {
  title: string;
  fun_name: string;
  transforms?: string[];
}): string {
  const ts = card.transforms ?? [];
  if (ts.length < 2 || ts.every((t) => card.title.includes(`${t}(`))) return card.title;
  return ts.reduceRight((inner, t) => `${t}(${inner})`, card.fun_name);
}

const SIGNIFICANT: Record<string, number> = { float16: 4, bfloat16: 3, float32: 7 };

/**
 * A scalar printed in full, as its dtype holds it: a float32 shows 7 significant digits
 * (3.151644), not the 17 of the float64 that carried it over JSON (3.1516437530517578).
 */
export function scalarText(v: ValueSummary): string {
  const x = v.preview[0];
  if (typeof x !== 'number' || Number.isInteger(x)) return String(x);
  const digits = SIGNIFICANT[v.dtype];
  return digits ? String(Number(x.toPrecision(digits))) : String(x);
}
