/** Lookups over a card's nested jaxpr: equations and variables by id, equation counts. Pure. */
import type { EqnData, JaxprData, VarData } from '../protocol/types';

/** Map from eqn id to its EqnData over the whole nested jaxpr. */
export function indexEqns(j: JaxprData, into = new Map<string, EqnData>()): Map<string, EqnData> {
  for (const e of j.eqns) {
    into.set(e.id, e);
    for (const s of e.subjaxprs) indexEqns(s.jaxpr, into);
  }
  return into;
}

/** Map from var id to its VarData over the whole nested jaxpr. */
export function indexVars(j: JaxprData, into = new Map<string, VarData>()): Map<string, VarData> {
  for (const v of [...j.constvars, ...j.invars]) into.set(v.id, v);
  for (const e of j.eqns) {
    for (const v of e.outvars) into.set(v.id, v);
    for (const s of e.subjaxprs) indexVars(s.jaxpr, into);
  }
  return into;
}

/** Total number of equations in a jaxpr including every nested sub-jaxpr. */
export function countEqns(j: JaxprData): number {
  let n = 0;
  for (const e of j.eqns) {
    n += 1;
    for (const s of e.subjaxprs) n += countEqns(s.jaxpr);
  }
  return n;
}
