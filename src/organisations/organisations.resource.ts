import { Organisation } from './organisation.entity.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { tenantTableRows } from '../resources/row-sources.js';
import { ORGANISATION_COLUMNS, type OrganisationRecord, type OrganisationRow } from './organisation.presenter.js';
import { presentOrganisations } from './organisations.queries.js';

export const ORGANISATIONS: TenantResource<OrganisationRow, OrganisationRecord> = {
  path: 'organisations',
  model: 'Organisation',
  changeType: 'organisation',
  tag: { name: 'Organisations', description: 'Legal entities. Read-only.' },
  entity: Organisation,
  responseSchema: () => import('./organisation.schema.js').then((m) => m.OrganisationSchema),
  list: {
    id: 'listOrganisations',
    summary: 'List organisations',
    description: "The enterprise's organisations, 100 a page, with their contact rows.",
    answer: "A page of the enterprise's organisations, newest first.",
  },
  retrieve: {
    id: 'getOrganisation',
    summary: 'Retrieve an organisation',
    description: 'An organisation of the enterprise in the header, by id.',
    answer: 'The organisation.',
  },
  rows: tenantTableRows({ table: 'organisations', alias: 'o', columns: ORGANISATION_COLUMNS }),
  present: (rows, { db, enterpriseId }) => presentOrganisations(db, rows, enterpriseId),
};
