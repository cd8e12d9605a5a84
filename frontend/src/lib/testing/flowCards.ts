/**
 * Synthetic protocol-v2 trace cards for the gradient-flow player, with real numbers: the
 * fan-out f(x) = sin(x) * x**2 (x receives two contributions), a broadcast bias (reduced back
 * over axis 0), indexing (a contribution landing in two elements), a scan walked forward and
 * in reverse, a jvp with tangents and a jit(grad(loss)) composition called five times. Built
 * the way the recorder builds them: forward steps, then one backward step per transposed
 * equation whose contributions carry running partial sums. For unit tests and UI-only specs;
 * imports protocol types only.
 */
import type {
  Contribution,
  EqnData,
  Heatmap,
  LiteralData,
  LoopRecord,
  Step,
  TraceCard,
  ValueSummary,
  VarData,
} from '../protocol/types';

export interface Arr {
  shape: number[];
  data: number[];
}

export const arr = (shape: number[], data: number[]): Arr => ({ shape, data });
export const scalar = (x: number): Arr => ({ shape: [], data: [x] });

function add(a: Arr, b: Arr): Arr {
  return { shape: a.shape, data: a.data.map((x, i) => x + b.data[i]) };
}

const round = (x: number) => Number(x.toPrecision(7));

function heatmapOf(a: Arr): Heatmap | null {
  if (a.shape.length === 0) return null;
  const rows = a.shape.length === 1 ? 1 : a.shape[0];
  const cols = a.shape[a.shape.length - 1];
  const fin = a.data.filter(Number.isFinite);
  const lo = fin.length ? Math.min(...fin) : 0;
  const hi = fin.length ? Math.max(...fin) : 0;
  const cells = a.data
    .map((x) => {
      if (!Number.isFinite(x)) return '--';
      const b = hi > lo ? Math.round(((x - lo) / (hi - lo)) * 255) : 128;
      return b.toString(16).padStart(2, '0');
    })
    .join('');
  return { rows, cols, block: [1, 1], lo, hi, slice: null, cells };
}

export function summarize(a: Arr, dtype = 'float32'): ValueSummary {
  const fin = a.data.filter(Number.isFinite);
  const n = fin.length;
  return {
    shape: a.shape,
    dtype,
    min: n ? round(Math.min(...fin)) : null,
    max: n ? round(Math.max(...fin)) : null,
    mean: n ? round(fin.reduce((s, x) => s + x, 0) / n) : null,
    norm: n ? round(Math.sqrt(fin.reduce((s, x) => s + x * x, 0))) : null,
    nan_count: a.data.filter(Number.isNaN).length,
    inf_count: a.data.filter((x) => !Number.isNaN(x) && !Number.isFinite(x)).length,
    preview: a.data
      .slice(0, 16)
      .map((x) =>
        Number.isNaN(x) ? 'nan' : Number.isFinite(x) ? round(x) : x > 0 ? 'inf' : '-inf',
      ),
    truncated: a.data.length > 16,
    heatmap: heatmapOf(a),
  };
}

function short(a: Arr): string {
  return `f32[${a.shape.join(',')}]`;
}

interface Sent {
  to: VarData;
  value: Arr;
  reducedFrom?: number[];
  reducedAxes?: number[];
  landing?: string;
}

interface BackStep {
  eqn: EqnData | null;
  label: string;
  sends: Sent[];
  iteration?: number;
}

/** Builds one card: declare inputs and equations with their values, then the backward pass. */
export class CardBuilder {
  invars: VarData[] = [];
  eqns: EqnData[] = [];
  outvars: VarData[] = [];
  values: Record<string, ValueSummary> = {};
  tangents: Record<string, ValueSummary> = {};
  arrays = new Map<string, Arr>();
  forward: Step[] = [];
  back: BackStep[] = [];
  loops: LoopRecord[] = [];
  #vid = 0;
  #eid = 0;

  newVar(name: string, a: Arr, userName: string | null = null): VarData {
    const v: VarData = {
      id: `v${this.#vid++}`,
      name,
      aval: { shape: a.shape, dtype: 'float32', weak_type: false, short: short(a) },
      user_name: userName,
    };
    this.values[v.id] = summarize(a);
    this.arrays.set(v.id, a);
    return v;
  }

  input(name: string, a: Arr, userName: string, tangent?: Arr): VarData {
    const v = this.newVar(name, a, userName);
    if (tangent) this.tangents[v.id] = summarize(tangent);
    this.invars.push(v);
    return v;
  }

  eqn(
    primitive: string,
    ins: (VarData | number)[],
    outs: [string, Arr, string | null][],
    opts: { params?: Record<string, string>; line?: number; tangents?: Arr[] } = {},
  ): VarData[] {
    const outvars = outs.map(([n, a, u]) => this.newVar(n, a, u));
    opts.tangents?.forEach((t, i) => (this.tangents[outvars[i].id] = summarize(t)));
    const invars = ins.map((a) =>
      typeof a === 'number'
        ? ({
            literal: true,
            value: String(a),
            aval: { shape: [], dtype: 'float32', weak_type: true, short: 'f32[]' },
          } as LiteralData)
        : a,
    );
    this.eqns.push({
      id: `e${this.#eid++}`,
      primitive,
      params: opts.params ?? {},
      invars,
      outvars,
      source: { file: '<user>', line: opts.line ?? 2 + this.#eid, function: 'f', user: true },
      span: { start: 0, end: 0 },
      subjaxprs: [],
      primal_eqn: null,
      group: null,
    });
    return outvars;
  }

  lastEqn(): EqnData {
    return this.eqns[this.eqns.length - 1];
  }

  /** Backward step of `eqn` (null = the output seed) sending `sends`. */
  transpose(eqn: EqnData | null, sends: Sent[], iteration?: number) {
    const label = eqn
      ? `transpose ${eqn.primitive}${iteration !== undefined ? ` (iteration ${iteration})` : ''}`
      : `seed ct(${sends[0].to.name}) = 1`;
    this.back.push({ eqn, label, sends, iteration });
  }

  #forwardSteps(): Step[] {
    const steps: Step[] = [
      {
        index: 0,
        phase: 'forward',
        eqn_id: null,
        var_ids: this.invars.map((v) => v.id),
        label: 'inputs',
      },
    ];
    for (const e of this.eqns) {
      const iters = this.loops.find((l) => l.eqn_id === e.id);
      const label = `${e.outvars.map((v) => v.name).join(' ')} = ${e.primitive}`;
      if (iters)
        iters.forward.forEach((it) =>
          steps.push({
            index: steps.length,
            phase: 'forward',
            eqn_id: e.id,
            var_ids: it.index === iters.recorded - 1 ? e.outvars.map((v) => v.id) : [],
            label: `${label} (iteration ${it.index})`,
            iteration: it.index,
          }),
        );
      else
        steps.push({
          index: steps.length,
          phase: 'forward',
          eqn_id: e.id,
          var_ids: e.outvars.map((v) => v.id),
          label,
        });
    }
    return steps;
  }

  #backwardSteps(start: number): { steps: Step[]; cotangents: Record<string, ValueSummary> } {
    const of = new Map<string, number>();
    for (const b of this.back) for (const s of b.sends) of.set(s.to.id, (of.get(s.to.id) ?? 0) + 1);
    const sums = new Map<string, Arr>();
    const k = new Map<string, number>();
    const steps = this.back.map((b, i): Step => {
      const contributions = b.sends.map((s): Contribution => {
        const prev = sums.get(s.to.id);
        const sum = prev ? add(prev, s.value) : s.value;
        sums.set(s.to.id, sum);
        k.set(s.to.id, (k.get(s.to.id) ?? 0) + 1);
        return {
          var_id: s.to.id,
          from_eqn: b.eqn?.id ?? null,
          k: k.get(s.to.id)!,
          of: of.get(s.to.id)!,
          value: summarize(s.value),
          partial: summarize(sum),
          reduced_from: s.reducedFrom ?? null,
          reduced_axes: s.reducedAxes ?? [],
          landing: s.landing ?? null,
        };
      });
      return {
        index: start + i,
        phase: 'backward',
        eqn_id: b.eqn?.id ?? null,
        var_ids: b.sends.map((s) => s.to.id),
        label: b.label,
        contributions,
        iteration: b.iteration ?? null,
      };
    });
    const cotangents: Record<string, ValueSummary> = {};
    for (const [id, a] of sums) cotangents[id] = summarize(a);
    return { steps, cotangents };
  }

  build(kind: TraceCard['kind'], title: string, extra: Partial<TraceCard> = {}): TraceCard {
    const fwd = this.#forwardSteps();
    const { steps, cotangents } = this.#backwardSteps(fwd.length);
    const jaxpr = {
      id: 'j0',
      text: '',
      constvars: [],
      invars: this.invars,
      outvars: this.outvars,
      eqns: this.eqns,
      effects: [],
    };
    jaxpr.text = prettyText(jaxpr.invars, jaxpr.eqns, jaxpr.outvars);
    return {
      card_id: `flow-${title}`,
      index: 0,
      kind,
      title,
      fun_name: title.replace(/^.*\(|\)+$/g, ''),
      call_site: { file: '<user>', line: 20, function: '<module>', user: true },
      jaxpr,
      stages: [],
      values: this.values,
      cotangents,
      timeline: [...fwd, ...steps],
      outputs: this.outvars.map((v) => this.values[v.id]),
      error: null,
      transforms: [kind],
      call_count: 1,
      tangents: this.tangents,
      loops: this.loops,
      groups: [],
      notices: [],
      ...extra,
    };
  }
}

function prettyText(invars: VarData[], eqns: EqnData[], outvars: VarData[]): string {
  let text = `{ lambda ; ${invars.map((v) => `${v.name}:${v.aval.short}`).join(' ')}. let\n`;
  for (const e of eqns) {
    const start = text.length;
    const args = e.invars.map((a) => ('name' in a ? a.name : a.value)).join(' ');
    const params = Object.entries(e.params).map(([k, v]) => `${k}=${v}`);
    const p = params.length ? `[${params.join(' ')}]` : '';
    text += `    ${e.outvars.map((v) => `${v.name}:${v.aval.short}`).join(' ')} = ${e.primitive}${p} ${args}`;
    e.span = { start, end: text.length };
    text += '\n';
  }
  return `${text}  in (${outvars.map((v) => v.name).join(', ')},) }`;
}

const S = scalar;

/** grad of f(x) = sin(x) * x**2 at x = 1.5: x fans out to sin and integer_pow. */
export function fanOutCard(x0 = 1.5): TraceCard {
  const b = new CardBuilder();
  const x = b.input('a', S(x0), 'x');
  const [s] = b.eqn('sin', [x], [['b', S(Math.sin(x0)), null]]);
  const eSin = b.lastEqn();
  const [p] = b.eqn('integer_pow', [x], [['c', S(x0 * x0), null]], { params: { y: '2' } });
  const ePow = b.lastEqn();
  const [out] = b.eqn('mul', [s, p], [['d', S(Math.sin(x0) * x0 * x0), 'result']]);
  const eMul = b.lastEqn();
  b.outvars = [out];
  b.transpose(null, [{ to: out, value: S(1) }]);
  b.transpose(eMul, [
    { to: s, value: S(x0 * x0) },
    { to: p, value: S(Math.sin(x0)) },
  ]);
  b.transpose(ePow, [{ to: x, value: S(2 * x0 * Math.sin(x0)) }]);
  b.transpose(eSin, [{ to: x, value: S(Math.cos(x0) * x0 * x0) }]);
  return b.build('grad', 'grad(f)');
}

/** jax.grad(f)(x) for fanOutCard: 2x·sin x + x²·cos x. */
export function fanOutGrad(x0 = 1.5): number {
  return 2 * x0 * Math.sin(x0) + x0 * x0 * Math.cos(x0);
}

/** grad of sum(h + bias) w.r.t. bias: bias f32[3] is broadcast to f32[4,3]. */
export function broadcastCard(): TraceCard {
  const b = new CardBuilder();
  const h0 = Array.from({ length: 12 }, (_, i) => Math.sin(i) * 2);
  const h = b.input('a', arr([4, 3], h0), 'h');
  const bias = b.input('b', arr([3], [0.5, -1, 2]), 'bias');
  const [bb] = b.eqn(
    'broadcast_in_dim',
    [bias],
    [
      [
        'c',
        arr(
          [4, 3],
          Array.from({ length: 12 }, (_, i) => [0.5, -1, 2][i % 3]),
        ),
        null,
      ],
    ],
    { params: { shape: '(4, 3)', broadcast_dimensions: '(1,)' } },
  );
  const eB = b.lastEqn();
  const sum = h0.map((v, i) => v + [0.5, -1, 2][i % 3]);
  const [z] = b.eqn('add', [h, bb], [['d', arr([4, 3], sum), 'z']]);
  const eAdd = b.lastEqn();
  const [out] = b.eqn('reduce_sum', [z], [['e', S(sum.reduce((a, c) => a + c)), 'result']], {
    params: { axes: '(0, 1)' },
  });
  const eSum = b.lastEqn();
  b.outvars = [out];
  const ones = arr([4, 3], Array(12).fill(1));
  b.transpose(null, [{ to: out, value: S(1) }]);
  b.transpose(eSum, [{ to: z, value: ones }]);
  b.transpose(eAdd, [
    { to: h, value: ones },
    { to: bb, value: ones },
  ]);
  b.transpose(eB, [
    { to: bias, value: arr([3], [4, 4, 4]), reducedFrom: [4, 3], reducedAxes: [0] },
  ]);
  return b.build('grad', 'grad(loss)');
}

/** grad of x[2] * 3 + x[5] w.r.t. x f32[8]: contributions land in elements 2 and 5. */
export function indexingCard(): TraceCard {
  const b = new CardBuilder();
  const xs = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
  const x = b.input('a', arr([8], xs), 'x');
  const [g2] = b.eqn('dynamic_slice', [x, 2], [['b', S(0.3), null]], {
    params: { slice_sizes: '(1,)' },
  });
  const e2 = b.lastEqn();
  const [m] = b.eqn('mul', [g2, 3], [['c', S(0.9), null]]);
  const eMul = b.lastEqn();
  const [g5] = b.eqn('dynamic_slice', [x, 5], [['d', S(0.6), null]], {
    params: { slice_sizes: '(1,)' },
  });
  const e5 = b.lastEqn();
  const [out] = b.eqn('add', [m, g5], [['e', S(1.5), 'result']]);
  const eAdd = b.lastEqn();
  b.outvars = [out];
  const onehot = (i: number, v: number) =>
    arr(
      [8],
      xs.map((_, j) => (j === i ? v : 0)),
    );
  b.transpose(null, [{ to: out, value: S(1) }]);
  b.transpose(eAdd, [
    { to: m, value: S(1) },
    { to: g5, value: S(1) },
  ]);
  b.transpose(e5, [{ to: x, value: onehot(5, 1), landing: 'element 5 of f32[8]' }]);
  b.transpose(eMul, [{ to: g2, value: S(3) }]);
  b.transpose(e2, [{ to: x, value: onehot(2, 3), landing: 'element 2 of f32[8]' }]);
  return b.build('grad', 'grad(pick)');
}

/** grad of a scan c ← c * w + x over 4 steps (w: f32[], xs: f32[4]), walked in reverse. */
export function scanCard(recorded = 4, length = 4): TraceCard {
  const b = new CardBuilder();
  const w0 = 0.5;
  const xs = Array.from({ length }, (_, i) => i + 1);
  const w = b.input('a', S(w0), 'w');
  const x = b.input('b', arr([xs.length], xs), 'xs');
  const carries = [0];
  for (const xi of xs) carries.push(carries[carries.length - 1] * w0 + xi);
  const [c, ys] = b.eqn(
    'scan',
    [w, 0, x],
    [
      ['c', S(carries[xs.length]), 'total'],
      ['d', arr([xs.length], carries.slice(1)), 'running'],
    ],
    { params: { length: String(length) } },
  );
  const eScan = b.lastEqn();
  b.outvars = [c];
  // d total / d c_t = w^(n-t); d c_t / d x_t = 1; d c_t / d w = c_{t-1}.
  const n = xs.length;
  const ctCarry = (t: number) => Math.pow(w0, n - 1 - t);
  b.loops = [
    {
      eqn_id: eScan.id,
      kind: 'scan',
      length,
      recorded,
      carry_names: ['c'],
      output_names: ['y'],
      forward: xs.slice(0, recorded).map((_, t) => ({
        index: t,
        carry: [summarize(S(carries[t]))],
        outputs: [summarize(S(carries[t + 1]))],
      })),
      backward: xs
        .map((_, t) => ({
          index: t,
          carry: [summarize(S(ctCarry(t) * w0))],
          outputs: [summarize(S(ctCarry(t)))],
        }))
        .reverse()
        .slice(0, recorded),
    },
  ];
  b.transpose(null, [{ to: c, value: S(1) }]);
  let dw = 0;
  for (let t = n - 1; t >= n - recorded; t--) {
    dw += ctCarry(t) * carries[t];
    b.transpose(eScan, [{ to: w, value: S(ctCarry(t) * carries[t]) }], t);
  }
  b.back[b.back.length - 1].sends.push({
    to: x,
    value: arr(
      [n],
      xs.map((_, t) => ctCarry(t)),
    ),
  });
  void dw;
  void ys;
  const notices =
    recorded < length
      ? [
          {
            kind: 'loop_truncated' as const,
            message: `scan: first ${recorded} of ${length} iterations recorded`,
            eqn_id: eScan.id,
          },
        ]
      : [];
  return b.build('grad', 'grad(run)', { notices });
}

/** jvp of f(x) = sin(x) * x**2 at x = 1.5 with tangent 1: tangents beside primals. */
export function jvpCard(x0 = 1.5): TraceCard {
  const b = new CardBuilder();
  const x = b.input('a', S(x0), 'x', S(1));
  const [s] = b.eqn('sin', [x], [['b', S(Math.sin(x0)), null]], { tangents: [S(Math.cos(x0))] });
  const [p] = b.eqn('integer_pow', [x], [['c', S(x0 * x0), null]], {
    params: { y: '2' },
    tangents: [S(2 * x0)],
  });
  const [out] = b.eqn('mul', [s, p], [['d', S(Math.sin(x0) * x0 * x0), 'result']], {
    tangents: [S(fanOutGrad(x0))],
  });
  b.outvars = [out];
  return b.build('jvp', 'jvp(f)');
}

/** jit(grad(loss)) called five times with the same argument types: one card, ×5. */
export function compositionCard(): TraceCard {
  const c = fanOutCard();
  return {
    ...c,
    card_id: 'flow-jit-grad',
    title: 'jit(grad(f))',
    transforms: ['jit', 'grad'],
    call_count: 5,
  };
}

/**
 * A v1-style synthetic card (testing/synthetic.ts) given per-edge contributions on its backward
 * steps, so the flow layer has as much to draw as on a real card of that size. A performance
 * fixture: each contribution carries the variable's recorded cotangent summary as its value
 * and running sum (counts k of n are right; the numbers are not sums).
 */
export function withContributions(card: TraceCard): TraceCard {
  const eqns = new Map(card.jaxpr.eqns.map((e) => [e.id, e]));
  const reads = (s: Step) =>
    s.phase === 'backward' && s.eqn_id
      ? (eqns.get(s.eqn_id)?.invars ?? []).flatMap((a) => ('name' in a ? [a.id] : []))
      : [];
  const of = new Map<string, number>();
  for (const s of card.timeline) for (const v of reads(s)) of.set(v, (of.get(v) ?? 0) + 1);
  const k = new Map<string, number>();
  const timeline = card.timeline.map((s): Step => {
    const contributions = reads(s)
      .filter((v) => card.cotangents[v])
      .map((v): Contribution => {
        k.set(v, (k.get(v) ?? 0) + 1);
        const ct = card.cotangents[v];
        return {
          var_id: v,
          from_eqn: s.eqn_id,
          k: k.get(v)!,
          of: of.get(v)!,
          value: ct,
          partial: ct,
        };
      });
    return contributions.length ? { ...s, contributions } : s;
  });
  return { ...card, timeline };
}
