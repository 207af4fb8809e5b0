import { JsonText } from '../../database/json-text.js';
import { pascalKey } from './pascal-case.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonRecord = { [key: string]: Json };

const TIMESTAMPS = new Set(['created_at', 'updated_at']);

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCollectionEnvelope(value: unknown): value is { data: JsonRecord[] } {
  return isRecord(value) && Object.keys(value).length === 1 && Array.isArray(value.data);
}

export interface RecordCasing {
  /** Nested rows and the enterprise record keep lowercase `created_at`/`updated_at`. */
  lowercaseTimestamps: boolean;
}

/**
 * A canonical v2 record in v1 casing. Nested collection envelopes (`{data: [...]}`)
 * hold nested rows; a nested object (a quote's `application`) is a full record.
 */
export function toV1Record(written: JsonRecord, casing: RecordCasing = { lowercaseTimestamps: false }): JsonRecord {
  // Records and nested rows may arrive as their JSON text: v1 renames their keys, so it reads them.
  const record = written instanceof JsonText ? (written.value() as JsonRecord) : written;
  const out: JsonRecord = {};
  for (const [key, member] of Object.entries(record)) {
    const value = member instanceof JsonText ? (member.value() as Json) : member;
    const name = casing.lowercaseTimestamps && TIMESTAMPS.has(key) ? key : pascalKey(key);
    if (isCollectionEnvelope(value)) {
      out[name] = { data: value.data.map((row) => toV1Record(row, { lowercaseTimestamps: true })) };
    } else if (isRecord(value)) {
      out[name] = toV1Record(value);
    } else {
      out[name] = value;
    }
  }
  return out;
}

export function toV1Records(value: JsonRecord | JsonRecord[], casing?: RecordCasing): JsonRecord | JsonRecord[] {
  return Array.isArray(value) ? value.map((r) => toV1Record(r, casing)) : toV1Record(value, casing);
}
