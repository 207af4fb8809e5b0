import { isoTimestamp } from '../common/http/iso-timestamp.js';

export interface EnterpriseRow {
  id: string;
  name: string;
  is_active: number;
  created_at: Date;
  updated_at: Date;
}

export interface EnterpriseRecord {
  id: string;
  name: string;
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

export function presentEnterprise(row: EnterpriseRow): EnterpriseRecord {
  return {
    id: row.id,
    name: row.name,
    is_active: row.is_active === 1,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
