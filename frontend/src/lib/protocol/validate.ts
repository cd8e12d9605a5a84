/**
 * JSON Schema validation of whole envelopes against shared_schemas/generated/*.schema.json,
 * the schema generated from the pydantic models. Loaded through import.meta.glob so the page
 * builds whether or not the generated file exists yet; `available` says which case we are in.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

const found = import.meta.glob('../../../../shared_schemas/generated/*.schema.json', {
  eager: true,
  import: 'default',
}) as Record<string, object>;

export function makeValidator(schema: object): ValidateFunction {
  // strict: false — pydantic emits annotations (discriminator, titles) that ajv's strict mode
  // rejects as unknown keywords; they carry no validation meaning for us.
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  return ajv.compile(schema);
}

let cached: ValidateFunction | null | undefined;

/** The validator for the committed schema, or null while the schema has not been generated. */
export function schemaValidator(): ValidateFunction | null {
  if (cached !== undefined) return cached;
  const schema = Object.values(found)[0];
  cached = schema ? makeValidator(schema) : null;
  return cached;
}

export function validationError(v: ValidateFunction): string {
  const e = v.errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'invalid'}` : 'invalid';
}
