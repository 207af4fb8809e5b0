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

/** The canonical lead record of spec 2.4 (v2 shape; v1 is its casing, R1). */
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
export const LEAD_RECORD_COLUMNS =
  'id, enterprise_id, title, description, person_name, organisation_name, created_at, updated_at';

export function presentLead(row: LeadRow): LeadRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    title: row.title,
    description: row.description,
    person_name: row.person_name,
    organisation_name: row.organisation_name,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
