/**
 * Deterministic synthetic trace cards of any size, shaped like what the kernel records: a
 * jaxpr with spans into its pretty text, source lines, an optional nested pjit, forward values,
 * cotangents, a forward-then-backward timeline and stages. Used by unit tests, the UI-only
 * end-to-end specs and the 300-equation performance spec. No imports beyond protocol types.
 */
import type {
  Aval,
  EqnData,
  JaxprData,
  Step,
  TraceCard,
  ValueSummary,
  VarData,
} from '../protocol/types';

const PRIMS = ['mul', 'add', 'sin', 'tanh', 'sub', 'exp', 'cos', 'neg'];
const UNARY = new Set(['sin', 'tanh', 'exp', 'cos', 'neg']);

function aval(n: number): Aval {
  return { shape: [n], dtype: 'float32', weak_type: false, short: `f32[${n}]` };
}

function summary(seed: number, n: number, bad = false): ValueSummary {
  const preview = Array.from({ length: Math.min(n, 16) }, (_, i) =>
    Number(Math.sin(seed * 1.7 + i).toFixed(4)),
  );
  const mean = preview.reduce((a, b) => a + b, 0) / preview.length;
  return {
    shape: [n],
    dtype: 'float32',
    min: Math.min(...preview),
    max: Math.max(...preview),
    mean,
    norm: Math.sqrt(preview.reduce((a, b) => a + b * b, 0)) * (1 + (seed % 7)),
    nan_count: bad ? 1 : 0,
    inf_count: 0,
    preview,
    truncated: n > 16,
  };
}

function name(i: number): string {
  let s = '';
  let k = i;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return s;
}

export interface SyntheticOptions {
  eqns: number;
  /** Put the last `nested` equations inside a pjit sub-jaxpr. */
  nested?: number;
  /** Make one cotangent non-finite to exercise NaN badges. */
  nanAt?: number;
  width?: number;
}

/** A card whose top-level jaxpr has exactly `eqns` equations. */
export function syntheticCard(opts: SyntheticOptions, index = 0): TraceCard {
  const width = opts.width ?? 3;
  const nested = Math.min(opts.nested ?? 0, Math.max(0, opts.eqns - 1));
  let vid = 0;
  let nid = 0;
  const newVar = (): VarData => ({ id: `v${vid++}`, name: name(nid++), aval: aval(width) });
  const x = newVar();
  const y = newVar();
  const values: Record<string, ValueSummary> = {};
  const cotangents: Record<string, ValueSummary> = {};
  const order: { eqn: EqnData; outs: VarData[] }[] = [];
  let eid = 0;

  const chain = (
    inputs: VarData[],
    count: number,
    line0: number,
  ): { eqns: EqnData[]; out: VarData } => {
    const pool = [...inputs];
    const eqns: EqnData[] = [];
    for (let i = 0; i < count; i++) {
      const prim = PRIMS[(eid + i) % PRIMS.length];
      const a = pool[pool.length - 1];
      const b = pool[Math.max(0, pool.length - 1 - ((i % 3) + 1))];
      const out = newVar();
      const eqn: EqnData = {
        id: `e${eid++}`,
        primitive: prim,
        params: {},
        invars: UNARY.has(prim) ? [a] : [a, b],
        outvars: [out],
        source: { file: '<user>', line: line0 + (i % 20), function: 'f', user: true },
        span: { start: 0, end: 0 },
        subjaxprs: [],
        primal_eqn: null,
      };
      eqns.push(eqn);
      order.push({ eqn, outs: [out] });
      pool.push(out);
    }
    return { eqns, out: pool[pool.length - 1] };
  };

  const top = chain([x, y], opts.eqns - (nested ? 1 : 0), 3);
  let result = top.out;
  if (nested) {
    const ia = newVar();
    const inner = chain([ia], nested, 30);
    const innerJaxpr: JaxprData = {
      id: 'j1',
      text: '',
      constvars: [],
      invars: [ia],
      outvars: [inner.out],
      eqns: inner.eqns,
      effects: [],
    };
    const out = newVar();
    const pj: EqnData = {
      id: `e${eid++}`,
      primitive: 'pjit',
      params: { name: 'inner' },
      invars: [result],
      outvars: [out],
      source: { file: '<user>', line: 30, function: 'f', user: true },
      span: { start: 0, end: 0 },
      subjaxprs: [{ param: 'jaxpr', jaxpr: innerJaxpr }],
      primal_eqn: null,
    };
    top.eqns.push(pj);
    order.push({ eqn: pj, outs: [out] });
    result = out;
    values[ia.id] = summary(ia.id.length, width);
  }
  const jaxpr: JaxprData = {
    id: 'j0',
    text: '',
    constvars: [],
    invars: [x, y],
    outvars: [result],
    eqns: top.eqns,
    effects: [],
  };
  layoutText(jaxpr);

  // Values for every variable; cotangents for every primal variable.
  for (const v of [x, y]) values[v.id] = summary(Number(v.id.slice(1)), width);
  let k = 0;
  for (const { outs } of order) for (const v of outs) values[v.id] = summary(k++, width);
  for (const id of Object.keys(values))
    cotangents[id] = summary(Number(id.slice(1)) + 3, width, opts.nanAt === Number(id.slice(1)));

  const timeline: Step[] = [];
  timeline.push({
    index: 0,
    phase: 'forward',
    eqn_id: null,
    var_ids: [x.id, y.id],
    label: 'inputs',
  });
  for (const { eqn, outs } of order) {
    timeline.push({
      index: timeline.length,
      phase: 'forward',
      eqn_id: eqn.id,
      var_ids: outs.map((v) => v.id),
      label: `${outs.map((v) => v.name).join(',')} = ${eqn.primitive}`,
    });
  }
  for (const { eqn, outs } of [...order].reverse()) {
    timeline.push({
      index: timeline.length,
      phase: 'backward',
      eqn_id: eqn.id,
      var_ids: [...outs.map((v) => v.id), ...eqn.invars.map((a) => (a as VarData).id)],
      label: `ct ${eqn.primitive}`,
    });
  }

  return {
    card_id: `card-${index}`,
    index,
    kind: 'grad',
    title: `grad(f${index})`,
    fun_name: `f${index}`,
    call_site: { file: '<user>', line: 40, function: '<module>', user: true },
    jaxpr,
    stages: [
      { name: 'jvp', title: 'JVP', language: 'jaxpr', text: jaxpr.text, jaxpr, cost: null },
      {
        name: 'stablehlo',
        title: 'StableHLO',
        language: 'mlir',
        text: stablehloText(order.map((o) => o.eqn)),
        jaxpr: null,
        cost: null,
      },
      {
        name: 'cost_analysis',
        title: 'Cost analysis',
        language: 'json',
        text: '{"flops": 12.0}',
        jaxpr: null,
        cost: { flops: 12, transcendentals: 3, bytes_accessed: 96 },
      },
    ],
    values,
    cotangents,
    timeline,
    outputs: [values[result.id]],
    error: null,
  };
}

/** Pretty-print the jaxpr JAX-style and record every equation's span in the root text. */
function layoutText(root: JaxprData) {
  let text = '';
  const emit = (j: JaxprData, indent: string) => {
    text += `${indent}{ lambda ; ${j.invars.map((v) => `${v.name}:${v.aval.short}`).join(' ')}. let\n`;
    for (const e of j.eqns) {
      const start = text.length;
      const lhs = e.outvars.map((v) => `${v.name}:${v.aval.short}`).join(' ');
      const args = e.invars.map((a) => ('name' in a ? a.name : a.value)).join(' ');
      if (e.subjaxprs.length) {
        text += `${indent}    ${lhs} = ${e.primitive}[\n${indent}      jaxpr=`;
        emit(e.subjaxprs[0].jaxpr, '');
        text += `${indent}    ] ${args}`;
      } else {
        text += `${indent}    ${lhs} = ${e.primitive} ${args}`;
      }
      e.span = { start, end: text.length };
      text += '\n';
    }
    text += `${indent}  in (${j.outvars.map((a) => ('name' in a ? a.name : a.value)).join(', ')}) }\n`;
  };
  emit(root, '');
  root.text = text;
  // Nested jaxprs keep their own text so eqnSpans can find them in the root.
  for (const e of root.eqns)
    for (const s of e.subjaxprs) {
      const inner = s.jaxpr;
      let t = '';
      for (const ie of inner.eqns) {
        const own = root.text.slice(ie.span.start, ie.span.end);
        const start = t.length;
        t += own + '\n';
        ie.span = { start, end: start + own.length };
      }
      inner.text = t;
    }
}

function stablehloText(eqns: EqnData[]): string {
  const lines = [
    'module @jit_f {',
    '  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {',
  ];
  eqns.forEach((e, i) => {
    lines.push(`    %${i} = stablehlo.${e.primitive} %arg0 : tensor<3xf32> loc(#loc${i + 1})`);
  });
  lines.push('  }', '}');
  eqns.forEach((e, i) => lines.push(`#loc${i + 1} = loc("<user>":${e.source?.line ?? 1}:4)`));
  return lines.join('\n');
}
export { syntheticProgram, type ProgramOptions } from './syntheticProgram';
