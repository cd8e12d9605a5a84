/**
 * A jaxpr listing written from the card's structured jaxpr, with the user's Python names in
 * place of the jaxpr's (`h:f32[4,8] = tanh i` where the kernel's text says `j:f32[4,8] = tanh
 * i`). Same shape as JAX's pretty-printer (binders, `let`, params in brackets, sub-jaxprs
 * inline, `in (...)`), one equation per row so every row maps to its equation without parsing
 * anything. The kernel's own text stays the listing in jaxpr-names mode. Pure.
 */
import { isLiteral, type Atom, type JaxprData, type VarData } from '../protocol/types';

export interface Listing {
  text: string;
  /** Per row: the equation it shows, or null. */
  lineEqns: (string | null)[];
}

class Writer {
  rows: string[] = [];
  eqns: (string | null)[] = [];
  /** Python names in use: an unnamed value whose jaxpr name is one of them reads `_h`. */
  private taken: Set<string>;

  constructor(private names: Map<string, string>) {
    this.taken = new Set(names.values());
  }

  var(v: VarData): string {
    const py = this.names.get(v.id);
    if (py) return py;
    let n = v.name;
    while (this.taken.has(n)) n = `_${n}`;
    return n;
  }

  name(a: Atom): string {
    if (isLiteral(a)) return `${a.value}:${a.aval.short}`;
    return this.var(a);
  }

  binder(v: VarData): string {
    return `${this.var(v)}:${v.aval.short}`;
  }

  push(row: string, eqn: string | null) {
    this.rows.push(row);
    this.eqns.push(eqn);
  }

  jaxpr(j: JaxprData, indent: string, eqn: string | null, head: string) {
    const consts = j.constvars.map((v) => this.binder(v)).join(' ');
    const args = j.invars.map((v) => this.binder(v)).join(' ');
    this.push(`${head}{ lambda ${consts ? `${consts} ` : ''}; ${args}. let`, eqn);
    for (const e of j.eqns) {
      const outs = e.outvars.map((v) => this.binder(v)).join(' ');
      const params = Object.entries(e.params).map(([k, v]) => `${k}=${v}`);
      const ins = e.invars.map((a) => this.name(a)).join(' ');
      if (!e.subjaxprs.length) {
        const p = params.length ? `[${params.join(' ')}]` : '';
        this.push(`${indent}    ${outs} = ${e.primitive}${p} ${ins}`, e.id);
        continue;
      }
      this.push(`${indent}    ${outs} = ${e.primitive}[${params.join(' ')}`, e.id);
      for (const s of e.subjaxprs)
        this.jaxpr(s.jaxpr, `${indent}      `, e.id, `${indent}      ${s.param}=`);
      this.push(`${indent}    ] ${ins}`, e.id);
    }
    const outs = j.outvars.map((a) => this.name(a)).join(', ');
    this.push(`${indent}  in (${outs}${j.outvars.length === 1 ? ',' : ''}) }`, eqn);
  }
}

/** The listing of `j` with Python names (`names`: var id → name) where the card has them. */
export function pythonListing(j: JaxprData, names: Map<string, string>): Listing {
  const w = new Writer(names);
  w.jaxpr(j, '', null, '');
  return { text: w.rows.join('\n'), lineEqns: w.eqns };
}
