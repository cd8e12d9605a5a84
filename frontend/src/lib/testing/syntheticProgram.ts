/**
 * Deterministic synthetic v2 trace cards shaped like a real program: a small transformer
 * (layer norm, attention with a softmax, an MLP with a gelu) trained by
 * `jax.jit(jax.value_and_grad(loss))`, with what protocol v2 adds — Python names with pytree
 * paths on arguments and assigned values, a forest of groups (user calls nested in each other,
 * the backward pass under a `transform` group repeating the call structure), StableHLO and HLO
 * stages whose rows link to source lines and equations. Its Python source is returned too, so
 * a spec can put it in the editor and check line links. Any size: `layers` and `fanout`
 * (equations per logical op) scale it to ~2,000 equations for the perf spec.
 */
import type {
  EqnData,
  GroupData,
  JaxprData,
  RowLink,
  Stage,
  Step,
  TraceCard,
  ValueSummary,
  VarData,
} from '../protocol/types';

export interface ProgramOptions {
  layers?: number;
  /** Primitive equations per logical op (jnp ops expand to several). */
  fanout?: number;
  /** Emit the backward pass (as a jitted value_and_grad does). */
  backward?: boolean;
  index?: number;
}

interface Fn {
  name: string;
  /** Body: a logical op (primitive and optional Python name of its result) or a call. */
  body: ({ op: string; out?: string } | { call: string })[];
}

const FNS: Record<string, Fn> = {
  layer_norm: {
    name: 'layer_norm',
    body: [
      { op: 'reduce_sum' },
      { op: 'div', out: 'mean' },
      { op: 'sub' },
      { op: 'integer_pow' },
      { op: 'rsqrt', out: 'inv' },
      { op: 'mul', out: 'y' },
    ],
  },
  softmax: {
    name: 'softmax',
    body: [
      { op: 'reduce_max' },
      { op: 'sub' },
      { op: 'exp', out: 'e' },
      { op: 'reduce_sum' },
      { op: 'div', out: 'p' },
    ],
  },
  attention: {
    name: 'attention',
    body: [
      { op: 'dot_general', out: 'q' },
      { op: 'dot_general', out: 'k' },
      { op: 'dot_general', out: 'v' },
      { op: 'dot_general' },
      { op: 'div', out: 'scores' },
      { call: 'softmax' },
      { op: 'dot_general', out: 'ctx' },
      { op: 'dot_general', out: 'out' },
    ],
  },
  gelu: {
    name: 'gelu',
    body: [
      { op: 'integer_pow' },
      { op: 'mul' },
      { op: 'add' },
      { op: 'tanh', out: 't' },
      { op: 'add' },
      { op: 'mul', out: 'g' },
    ],
  },
  mlp: {
    name: 'mlp',
    body: [
      { op: 'dot_general', out: 'h' },
      { op: 'add' },
      { call: 'gelu' },
      { op: 'dot_general' },
      { op: 'add', out: 'out' },
    ],
  },
  block: {
    name: 'block',
    body: [
      { call: 'layer_norm' },
      { call: 'attention' },
      { op: 'add', out: 'x' },
      { call: 'layer_norm' },
      { call: 'mlp' },
      { op: 'add', out: 'x' },
    ],
  },
};
const PARAMS = ['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'b1', 'W2', 'b2'];
/** What the transpose of a primitive costs, in logical ops. */
const BACKWARD: Record<string, string[]> = {
  dot_general: ['dot_general', 'dot_general', 'transpose'],
  exp: ['mul', 'mul'],
  tanh: ['sub', 'mul'],
  rsqrt: ['div', 'mul'],
  div: ['div', 'neg'],
};
const EXPAND = ['broadcast_in_dim', 'reshape', 'convert_element_type', 'transpose'];

function aval(shape: number[]) {
  return { shape, dtype: 'float32', weak_type: false, short: `f32[${shape.join(',')}]` };
}

function summary(seed: number, shape: number[]): ValueSummary {
  const n = shape.reduce((a, b) => a * b, 1);
  const preview = Array.from({ length: Math.min(n, 16) }, (_, i) =>
    Number(Math.sin(seed * 0.37 + i).toFixed(4)),
  );
  const mean = preview.reduce((a, b) => a + b, 0) / preview.length;
  return {
    shape,
    dtype: 'float32',
    min: Math.min(...preview),
    max: Math.max(...preview),
    mean,
    norm: Math.abs(mean) * 3 + 0.01 * (seed % 13),
    nan_count: 0,
    inf_count: 0,
    preview,
    truncated: n > 16,
  };
}

function jaxprName(i: number): string {
  let s = '';
  let k = i;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return s;
}

/** Source text of the program, and the line each function's body starts on. */
function source(layers: number): { code: string; lines: Record<string, number> } {
  const out = ['import jax', 'import jax.numpy as jnp', ''];
  const lines: Record<string, number> = {};
  for (const f of ['layer_norm', 'softmax', 'attention', 'gelu', 'mlp', 'block']) {
    out.push(`def ${f}(x, p):`);
    lines[f] = out.length + 1;
    for (const s of FNS[f].body)
      out.push('op' in s ? `    ${s.out ?? '_'} = jnp.${s.op}(x)` : `    x = ${s.call}(x, p)`);
    out.push('    return x', '');
  }
  out.push('def loss(params, x, y):');
  lines.loss = out.length + 1;
  out.push(
    `    for i in range(${layers}):`,
    "        x = block(x, params['blocks'][i])",
    '    return jnp.mean((x - y) ** 2)',
    '',
  );
  out.push('step = jax.jit(jax.value_and_grad(loss))', 'value, grads = step(params, x, y)');
  return { code: out.join('\n') + '\n', lines };
}

class Tracer {
  eqns: EqnData[] = [];
  groups: GroupData[] = [];
  values: Record<string, ValueSummary> = {};
  private vid = 0;
  private gid = 0;
  readonly shape = [8, 16];

  constructor(
    readonly fanout: number,
    readonly lines: Record<string, number>,
  ) {}

  newVar(user?: string): VarData {
    const id = `v${this.vid}`;
    const v: VarData = {
      id,
      name: jaxprName(this.vid++),
      aval: aval(this.shape),
      user_name: user ?? null,
    };
    this.values[id] = summary(this.vid, this.shape);
    return v;
  }

  group(name: string, kind: GroupData['kind'], parent: string | null, line: number | null): string {
    const id = `g${this.gid++}`;
    this.groups.push({
      id,
      name,
      kind,
      parent,
      call_site: line ? { file: '<user>', line, function: name, user: true } : null,
    });
    return id;
  }

  op(
    prim: string,
    x: VarData,
    fn: string,
    line: number,
    group: string | null,
    out?: string,
  ): VarData {
    let cur = x;
    for (let k = 0; k < this.fanout; k++) {
      const last = k === this.fanout - 1;
      const p = last ? prim : EXPAND[(this.eqns.length + k) % EXPAND.length];
      const o = this.newVar(last ? out : undefined);
      this.eqns.push({
        id: `e${this.eqns.length}`,
        primitive: p,
        params: {},
        invars: [cur],
        outvars: [o],
        source: { file: '<user>', line, function: fn, user: true },
        span: { start: 0, end: 0 },
        subjaxprs: [],
        primal_eqn: null,
        group,
      });
      cur = o;
    }
    return cur;
  }

  call(fn: Fn, x: VarData, parent: string | null, site: number, w: VarData[]): VarData {
    const g = this.group(fn.name, 'call', parent, site);
    let cur = x;
    fn.body.forEach((s, i) => {
      const line = this.lines[fn.name] + i;
      if ('call' in s) cur = this.call(FNS[s.call], cur, g, line, w);
      else {
        cur = this.op(s.op, cur, fn.name, line, g, s.out);
        if (s.op === 'dot_general' && w.length)
          this.eqns[this.eqns.length - 1].invars.push(w[this.eqns.length % w.length]);
      }
    });
    return cur;
  }
}

function textAndSpans(j: JaxprData) {
  let text = `{ lambda ; ${j.invars.map((v) => `${v.name}:${v.aval.short}`).join(' ')}. let\n`;
  for (const e of j.eqns) {
    const start = text.length;
    text += `    ${e.outvars.map((v) => `${v.name}:${v.aval.short}`).join(' ')} = ${e.primitive} ${e.invars.map((a) => ('name' in a ? a.name : a.value)).join(' ')}`;
    e.span = { start, end: text.length };
    text += '\n';
  }
  j.text = `${text}  in (${j.outvars.map((a) => ('name' in a ? a.name : a.value)).join(', ')}) }\n`;
}

function stages(eqns: EqnData[], path: (e: EqnData) => string): Stage[] {
  const mlir: string[] = ['module @jit_loss {', '  func.func public @main() {'];
  const mrows: RowLink[] = [];
  eqns.forEach((e, i) => {
    mrows.push({ row: mlir.length, line: e.source!.line, eqn_id: e.id, op_name: path(e) });
    mlir.push(
      `    %${i} = stablehlo.${e.primitive} %${Math.max(0, i - 1)} : tensor<8x16xf32> loc(#loc${i})`,
    );
  });
  mlir.push('  }', '}');
  const hlo: string[] = ['HloModule jit_loss', ''];
  const hrows: RowLink[] = [];
  for (let i = 0; i < eqns.length; i += 3) {
    const e = eqns[i];
    hrows.push({ row: hlo.length, line: e.source!.line, eqn_id: e.id, op_name: path(e) });
    hlo.push(
      `  %fusion.${i} = f32[8,16]{1,0} fusion(%p), kind=kLoop, metadata={op_name="${path(e)}" source_line=${e.source!.line}}`,
    );
  }
  return [
    {
      name: 'stablehlo',
      title: 'StableHLO',
      language: 'mlir',
      text: mlir.join('\n'),
      jaxpr: null,
      cost: null,
      rows: mrows,
    },
    {
      name: 'hlo',
      title: 'Optimized HLO',
      language: 'hlo',
      text: hlo.join('\n'),
      jaxpr: null,
      cost: null,
      rows: hrows,
    },
  ];
}

/** A jit(value_and_grad(loss)) card of a `layers`-block transformer, and its source. */
export function syntheticProgram(opts: ProgramOptions = {}): { card: TraceCard; code: string } {
  const layers = opts.layers ?? 2;
  const { code, lines } = source(layers);
  const t = new Tracer(opts.fanout ?? 1, lines);
  const weights = Array.from({ length: layers }, (_, i) =>
    PARAMS.map((p) => t.newVar(`params['blocks'][${i}]['${p}']`)),
  );
  const x = t.newVar('x');
  const y = t.newVar('y');
  const top = t.group('loss', 'call', null, lines.loss + 5);
  let h = x;
  for (let i = 0; i < layers; i++) h = t.call(FNS.block, h, top, lines.loss + 1, weights[i]);
  h = t.op('sub', h, 'loss', lines.loss + 2, top);
  const value = t.op('reduce_sum', h, 'loss', lines.loss + 2, top, 'value');
  const forward = t.eqns.length;
  if (opts.backward ?? true) {
    const grad = t.group('transpose(jvp(loss))', 'transform', null, null);
    const clone = new Map<string, string>();
    const byId = new Map(t.groups.map((g) => [g.id, g]));
    const mirror = (gid: string | null): string => {
      if (!gid) return grad;
      if (!clone.has(gid)) {
        const g = byId.get(gid)!;
        clone.set(gid, t.group(g.name, g.kind, mirror(g.parent), g.call_site?.line ?? null));
      }
      return clone.get(gid)!;
    };
    let ct = value;
    for (let i = forward - 1; i >= 0; i--) {
      const e = t.eqns[i];
      const ops = BACKWARD[e.primitive] ?? ['mul'];
      for (const p of ops)
        ct = t.op(p, ct, e.source!.function, e.source!.line, mirror(e.group ?? null));
    }
  }
  const outs = [value, ...weights.flat().slice(0, 2)];
  const jaxpr: JaxprData = {
    id: 'j0',
    text: '',
    constvars: [],
    invars: [...weights.flat(), x, y],
    outvars: outs,
    eqns: t.eqns,
    effects: [],
  };
  textAndSpans(jaxpr);
  const groups = new Map(t.groups.map((g) => [g.id, g]));
  const path = (e: EqnData) => {
    const parts: string[] = [e.primitive];
    for (
      let g = e.group ? groups.get(e.group) : undefined;
      g;
      g = g.parent ? groups.get(g.parent) : undefined
    )
      parts.unshift(g.name);
    return `jit(loss)/${parts.join('/')}`;
  };
  const timeline: Step[] = t.eqns.map((e, i) => ({
    index: i,
    phase: 'forward',
    eqn_id: e.id,
    var_ids: e.outvars.map((v) => v.id),
    label: e.primitive,
  }));
  const card: TraceCard = {
    card_id: `program-${opts.index ?? 0}`,
    index: opts.index ?? 0,
    kind: 'value_and_grad',
    title: 'jit(value_and_grad(loss))',
    fun_name: 'loss',
    call_site: {
      file: '<user>',
      line: code.split('\n').length - 1,
      function: '<module>',
      user: true,
    },
    jaxpr,
    stages: stages(t.eqns, path),
    values: t.values,
    cotangents: {},
    timeline,
    outputs: outs.map((v) => t.values[v.id]),
    error: null,
    transforms: ['jit', 'value_and_grad'],
    groups: t.groups,
  };
  return { card, code };
}
