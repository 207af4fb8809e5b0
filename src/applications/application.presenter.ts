import { isoTimestamp } from '../common/http/iso-timestamp.js';

export interface ApplicationRow {
  id: string;
  enterprise_id: string;
  /** `date` columns arrive as `YYYY-MM-DD` (database/pg-types.ts). */
  settlement_date_actual: string | null;
  contract_number: string | null;
  source_of_business: string | null;
  crm_deal_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** From the active quote, null without one. */
  asset_type: string | null;
  asset_description: string | null;
  financier: string | null;
  /** numeric(14,2): the decimal string PostgreSQL returns. */
  total_finance_amount: string | null;
}

/** The canonical (v2) application. */
export interface ApplicationRecord {
  id: string;
  enterprise_id: string;
  settlement_date_actual: string | null;
  contract_number: string | null;
  source_of_business: string | null;
  asset_type: string | null;
  asset_description: string | null;
  financier: string | null;
  total_finance_amount: string | null;
  crm_deal_id: string | null;
  created_at: string;
  updated_at: string;
}

export function presentApplication(row: ApplicationRow): ApplicationRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    settlement_date_actual: row.settlement_date_actual,
    contract_number: row.contract_number,
    source_of_business: row.source_of_business,
    asset_type: row.asset_type,
    asset_description: row.asset_description,
    financier: row.financier,
    total_finance_amount: row.total_finance_amount,
    crm_deal_id: row.crm_deal_id,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
