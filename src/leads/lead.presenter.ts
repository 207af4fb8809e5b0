import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { columnsOf } from '../database/entity-columns.js';
import { Lead } from './lead.entity.js';
export interface LeadRow {
  id: string;
  enterprise_id: string | null;
  title: string;
  description: string | null;
  person_name: string | null;
  organisation_name: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The canonical lead record (v2 shape; v1 is its casing). */
export interface LeadRecord {
  id: string;
  enterprise_id: string | null;
  title: string;
  description: string | null;
  person_name: string | null;
  organisation_name: string | null;
  created_at: string;
  updated_at: string;
}

/** The columns presentLead reads; unqualified, so they work in RETURNING too. */
/** The lead columns a record shows. */
export const LEAD_RECORD_FIELDS = [
  'id',
  'enterpriseId',
  'title',
  'description',
  'personName',
  'organisationName',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof Lead)[];

export const LEAD_RECORD_COLUMNS = columnsOf(Lead, LEAD_RECORD_FIELDS);

export function presentLead(row: LeadRow): LeadRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    title: row.title,
    description: row.description,
    person_name: row.person_name,
    organisation_name: row.organisation_name,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
