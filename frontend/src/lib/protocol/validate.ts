/**
 * JSON Schema validation of whole envelopes against the committed
 * shared_schemas/generated/protocol.schema.json (generated from the pydantic models), per
 * direction: `#/$defs/ServerEnvelope` for what the page receives, `ClientEnvelope` for what it
 * sends (used by tests).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import schema from '$schemas/generated/protocol.schema.json';

export type Direction = 'ServerEnvelope' | 'ClientEnvelope';

export function makeValidator(s: object, direction: Direction): ValidateFunction {
  // strict: false — pydantic emits annotations (titles, descriptions) that ajv's strict mode
  // reports; `discriminator` is honoured so a wrong `type` fails with one clear error.
  const ajv = new Ajv2020({ strict: false, discriminator: true, validateFormats: false });
  ajv.addSchema(s, 'protocol');
  const v = ajv.getSchema(`protocol#/$defs/${direction}`);
  if (!v) throw new Error(`schema has no $defs/${direction}`);
  return v;
}

let cached: ValidateFunction | null = null;

/** Validator for frames the page receives. Compiled on first use. */
export function serverValidator(): ValidateFunction {
  cached ??= makeValidator(schema, 'ServerEnvelope');
  return cached;
}

export function validationError(v: ValidateFunction): string {
  const e = v.errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'invalid'}` : 'invalid';
}
