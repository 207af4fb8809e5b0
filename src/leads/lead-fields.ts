import { VARCHAR_MAX_CHARS } from '../writes/write-values.js';
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
export const NAME_MAX_CHARS = VARCHAR_MAX_CHARS;

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
