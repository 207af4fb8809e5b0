import { ApiSchema } from '@nestjs/swagger';
import type { RecordCasing } from '../common/casing/v1-casing.js';

/** A full record: top-level in a response, or embedded (a quote's application). */
export const FULL_RECORD: RecordCasing = { lowercaseTimestamps: false };
/** A nested row (phone numbers, emails, addresses, financials) or the enterprise record. */
export const LOWERCASE_TIMESTAMPS: RecordCasing = { lowercaseTimestamps: true };

/** Schema name -> how the v1 casing step renames that record's keys. */
const V1_CASINGS = new Map<string, RecordCasing>();
const NAMES = new WeakMap<object, string>();

/**
 * Names a record's response schema, written in its canonical v2 shape, and says how v1
 * cases it. The v1 document is derived from the v2 schema by the same renaming as v1
 * responses are derived from v2 records.
 */
export function RecordSchema(name: string, description: string, v1: RecordCasing = FULL_RECORD): ClassDecorator {
  V1_CASINGS.set(name, v1);
  return (target) => {
    NAMES.set(target, name);
    ApiSchema({ name, description })(target);
  };
}

/** Names any schema class (envelopes, errors), so envelopes can be named after their record. */
export function NamedSchema(name: string, description: string): ClassDecorator {
  return (target) => {
    NAMES.set(target, name);
    ApiSchema({ name, description })(target);
  };
}

export function schemaNameOf(type: object): string {
  const name = NAMES.get(type);
  if (name === undefined) throw new Error('Schema class without @RecordSchema or @NamedSchema');
  return name;
}

export function v1CasingOf(schemaName: string): RecordCasing | undefined {
  return V1_CASINGS.get(schemaName);
}
