/**
 * The values panel's content for a frame, as data: what the current step computed (forward:
 * the equation's operands and results, with tangents in forward mode), or what it sent
 * (backward: each contribution, where it went, the running sum it made there, any broadcast
 * reduction or indexing landing), and after the last step every input's whole gradient.
 * Pure; the panel component only draws these rows.
 */
import type { EqnData, TraceCard, ValueSummary, VarData } from '../protocol/types';
import { partialSentence, reductionText } from './flowText';
import type { Frame } from './timeline';

export interface DetailRow {
  key: string;
  varId: string;
  name: string;
  role: 'input' | 'operand' | 'result' | 'sent' | 'seed' | 'gradient';
  value: ValueSummary | null;
  tangent: ValueSummary | null;
  /** Backward: the running-sum sentence at the receiving variable. */
  sentence: string | null;
  reduction: string | null;
  landing: string | null;
  complete: boolean;
}

export interface StepDetails {
  title: string;
  rows: DetailRow[];
}

export function varName(v: VarData | undefined, fallback = '?'): string {
  if (!v) return fallback;
  return v.user_name ? `${v.user_name} (${v.name})` : v.name;
}

type Vars = Map<string, VarData>;

function valueRow(card: TraceCard, vars: Vars, id: string, role: DetailRow['role']): DetailRow {
  return {
    key: `${role}:${id}`,
    varId: id,
    name: varName(vars.get(id), id),
    role,
    value: card.values[id] ?? null,
    tangent: card.tangents?.[id] ?? null,
    sentence: null,
    reduction: null,
    landing: null,
    complete: true,
  };
}

function forwardDetails(card: TraceCard, frame: Frame, eqns: Map<string, EqnData>, vars: Vars) {
  const s = frame.current!;
  const eqn = s.eqn_id ? eqns.get(s.eqn_id) : undefined;
  if (!eqn) return { title: s.label, rows: s.var_ids.map((v) => valueRow(card, vars, v, 'input')) };
  const ops = eqn.invars.filter(
    (a, i, all): a is VarData =>
      'id' in a && 'name' in a && all.findIndex((b) => 'id' in b && b.id === a.id) === i,
  );
  const rows = [
    ...ops.map((v) => valueRow(card, vars, v.id, 'operand')),
    ...s.var_ids.map((v) => valueRow(card, vars, v, 'result')),
  ];
  return { title: s.label, rows };
}

function backwardDetails(frame: Frame, eqns: Map<string, EqnData>, vars: Vars): StepDetails {
  const s = frame.current!;
  const eqn = s.eqn_id ? eqns.get(s.eqn_id) : undefined;
  const rows = frame.arriving.map((c): DetailRow => {
    const p = frame.partials.get(c.var_id)!;
    const name = varName(vars.get(c.var_id), c.var_id);
    return {
      key: `sent:${c.var_id}:${c.k}`,
      varId: c.var_id,
      name,
      role: c.from_eqn ? 'sent' : 'seed',
      value: c.value,
      tangent: null,
      sentence: partialSentence(name, p, true),
      reduction: reductionText(c),
      landing: c.landing ?? null,
      complete: p.complete,
    };
  });
  const outs = eqn ? eqn.outvars.map((v) => varName(v)).join(', ') : '';
  const title = eqn
    ? `${s.label}: the cotangent of ${outs} flows back to what ${eqn.primitive} read`
    : `${s.label}: the output's cotangent starts the backward pass`;
  return { title, rows };
}

/** Every input's whole gradient, except those the last step's own rows just stated. */
function gradientRows(card: TraceCard, frame: Frame, vars: Vars): DetailRow[] {
  const stated = new Set(frame.arriving.map((c) => c.var_id));
  return card.jaxpr.invars
    .filter((v) => frame.partials.has(v.id) && !stated.has(v.id))
    .map((v) => {
      const p = frame.partials.get(v.id)!;
      return {
        key: `gradient:${v.id}`,
        varId: v.id,
        name: varName(v),
        role: 'gradient',
        value: p.sum,
        tangent: null,
        sentence: partialSentence(varName(v), p, false),
        reduction: null,
        landing: null,
        complete: p.complete,
      };
    });
}

export function stepDetails(
  card: TraceCard,
  frame: Frame | null,
  eqns: Map<string, EqnData>,
  vars: Vars,
): StepDetails | null {
  if (!frame?.current) return null;
  const d =
    frame.phase === 'forward'
      ? forwardDetails(card, frame, eqns, vars)
      : backwardDetails(frame, eqns, vars);
  if (frame.phase === 'backward' && frame.step === card.timeline.length - 1)
    d.rows.push(...gradientRows(card, frame, vars));
  return d;
}
