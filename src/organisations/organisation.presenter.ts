import { isoTimestamp } from '../common/http/iso-timestamp.js';
import type { ContactCollections } from '../contacts/contact.presenter.js';
import { allColumnsOf } from '../database/entity-columns.js';
import { Organisation } from './organisation.entity.js';

export const ORGANISATION_COLUMNS = allColumnsOf(Organisation, 'o');

export interface OrganisationRow {
  id: string;
  enterprise_id: string | null;
  legal_name: string;
  legal_structure: string | null;
  short_name: string | null;
  trust_name: string | null;
  acn: string | null;
  abn: string | null;
  entity_type: string | null;
  /** `date` columns arrive as `YYYY-MM-DD` (database/pg-types.ts). */
  abn_registration: string | null;
  abn_status: string | null;
  gst_registered: number;
  gst_date: string | null;
  business_name: string | null;
  business_name2: string | null;
  business_name3: string | null;
  former_name: string | null;
  former_name2: string | null;
  former_name3: string | null;
  description: string | null;
  established_date: string | null;
  employees_count: number | null;
  industry: string | null;
  website: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The canonical (v2) organisation. */
export interface OrganisationRecord extends ContactCollections {
  id: string;
  enterprise_id: string | null;
  legal_name: string;
  legal_structure: string | null;
  short_name: string | null;
  trust_name: string | null;
  acn: string | null;
  abn: string | null;
  entity_type: string | null;
  abn_registration: string | null;
  abn_status: string | null;
  gst_registered: boolean;
  gst_date: string | null;
  business_name: string | null;
  business_name2: string | null;
  business_name3: string | null;
  former_name: string | null;
  former_name2: string | null;
  former_name3: string | null;
  description: string | null;
  established_date: string | null;
  employees_count: number | null;
  industry: string | null;
  website: string | null;
  created_at: string;
  updated_at: string;
}

export function presentOrganisation(row: OrganisationRow, contacts: ContactCollections): OrganisationRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    legal_name: row.legal_name,
    legal_structure: row.legal_structure,
    short_name: row.short_name,
    trust_name: row.trust_name,
    acn: row.acn,
    abn: row.abn,
    entity_type: row.entity_type,
    abn_registration: row.abn_registration,
    abn_status: row.abn_status,
    gst_registered: row.gst_registered === 1,
    gst_date: row.gst_date,
    business_name: row.business_name,
    business_name2: row.business_name2,
    business_name3: row.business_name3,
    former_name: row.former_name,
    former_name2: row.former_name2,
    former_name3: row.former_name3,
    description: row.description,
    established_date: row.established_date,
    employees_count: row.employees_count,
    industry: row.industry,
    website: row.website,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    phone_numbers: contacts.phone_numbers,
    emails: contacts.emails,
    addresses: contacts.addresses,
  };
}
