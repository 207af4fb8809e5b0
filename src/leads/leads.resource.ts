import { columnsOf } from '../database/entity-columns.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { tenantTableRows } from '../resources/row-sources.js';
import { LEAD_RECORD_FIELDS, presentLead, type LeadRecord, type LeadRow } from './lead.presenter.js';
import { Lead } from './lead.entity.js';

/** Leads: written in both versions (the version controllers, LeadsService), read like every resource. */
export const LEADS: TenantResource<LeadRow, LeadRecord> = {
  path: 'leads',
  model: 'Lead',
  changeType: 'lead',
  tag: { name: 'Leads', description: 'Sales leads: list, retrieve, create and update.' },
  entity: Lead,
  responseSchema: () => import('./lead.schema.js').then((m) => m.LeadSchema),
  writeModule: () => import('./leads.module.js').then((m) => m.LeadsModule),
  list: {
    id: 'listLeads',
    summary: 'List leads',
    description: "The enterprise's leads, 100 a page.",
    answer: "A page of the enterprise's leads, newest first.",
  },
  retrieve: {
    id: 'getLead',
    summary: 'Retrieve a lead',
    description: 'A lead of the enterprise in the header, by id.',
    answer: 'The lead.',
  },
  rows: tenantTableRows({ table: 'leads', alias: 'l', columns: columnsOf(Lead, LEAD_RECORD_FIELDS, 'l') }),
  present: (rows) => Promise.resolve(rows.map(presentLead)),
  writable: { v1: true, v2: true },
};
