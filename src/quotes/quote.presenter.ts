import type { ApplicationRecord } from '../applications/application.presenter.js';
import { isoTimestamp } from '../common/http/iso-timestamp.js';

export interface QuoteRow {
  id: string;
  enterprise_id: string;
  application_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The canonical (v2) quote. `application` is absent when it was not loaded. */
export interface QuoteRecord {
  id: string;
  enterprise_id: string;
  application?: ApplicationRecord | null;
  created_at: string;
  updated_at: string;
}

/**
 * `application`: the embedded application, `null` when the quote has none, or `undefined` when
 * it was not loaded (the v2 list), which leaves the key out.
 */
export function presentQuote(row: QuoteRow, application: ApplicationRecord | null | undefined): QuoteRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    ...(application === undefined ? {} : { application }),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
