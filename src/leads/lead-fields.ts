import type { MixedValue } from './lead.entity.js';

/** Lead input columns holding text (varchar or text). */
export const TEXT_COLUMNS = [
  'title',
  'description',
  'person_name',
  'organisation_name',
  'abn',
  'use',
  'asset_description',
  'funds_required_within',
  'phone',
  'phone_type',
  'email',
  'email_type',
  'source',
] as const;

/** Lead input columns typed mixed: jsonb, any JSON scalar or null. */
export const MIXED_COLUMNS = [
  'person_id',
  'organisation_id',
  'has_abn',
  'user_assigned_id',
  'purchase_price',
  'deposit',
  'trade_in',
  'finance_amount',
  'residual',
  'finance_term',
  'realestate_owner',
  'finance_last_3_years',
  'applied_already',
  'broker_id',
] as const;

export type TextColumn = (typeof TEXT_COLUMNS)[number];
export type MixedColumn = (typeof MIXED_COLUMNS)[number];

/** varchar(255) columns: limited to 255 characters. */
export const NAME_MAX_CHARS = 255;

/** Column values to write; a column left out keeps its value. */
export type LeadColumns = Partial<Record<TextColumn, string | null> & Record<MixedColumn, MixedValue>>;

/** What a validated lead body writes, in either version. */
export interface LeadChanges {
  readonly columns: LeadColumns;
  /** v1 body keys that filled no column, kept so nothing a v1 client sends is lost. */
  readonly extraInput: Record<string, unknown>;
  /** v1 body keys: on update they replace what extra_input held under the same keys. */
  readonly sentKeys: readonly string[];
}

export function isMixedValue(value: unknown): value is MixedValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** An empty or whitespace-only string counts as absent and is stored as null (as Laravel's input). */
export function blankToNull(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? null : value;
}

/** Length in characters (code points), as PostgreSQL and Laravel's `max` count it. */
export function charLength(value: string): number {
  return value.length - (value.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0);
}

// A NUL cannot be stored in text or jsonb, and jsonb refuses an unpaired surrogate escape.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether PostgreSQL can store the string as text and inside jsonb. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** Whether every key and string inside a JSON value is storable (iterative). */
export function isStorableJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') {
      if (!isStorableText(item)) return false;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return false;
        stack.push(child);
      }
    }
  }
  return true;
}
