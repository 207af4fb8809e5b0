import { allColumnsOf } from '../database/entity-columns.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { tenantTableRows } from '../resources/row-sources.js';
import { Application } from './application.entity.js';
import { presentApplication, type ApplicationRecord, type ApplicationRow } from './application.presenter.js';
import { withActiveQuote } from './applications.queries.js';

export const APPLICATIONS: TenantResource<ApplicationRow, ApplicationRecord> = {
  path: 'applications',
  model: 'Application',
  changeType: 'application',
  importSection: 'entity',
  tag: { name: 'Applications', description: 'Finance applications. Read-only.' },
  entity: Application,
  responseSchema: () => import('./application.schema.js').then((m) => m.ApplicationSchema),
  list: {
    id: 'listApplications',
    summary: 'List applications',
    description: "The enterprise's applications, 100 a page.",
    answer: "A page of the enterprise's applications, newest first.",
  },
  retrieve: {
    id: 'getApplication',
    summary: 'Retrieve an application',
    description: 'An application of the enterprise in the header, by id.',
    answer: 'The application.',
  },
  rows: tenantTableRows({
    table: 'applications',
    alias: 'a',
    columns: allColumnsOf(Application, 'a'),
    wrap: withActiveQuote,
  }),
  present: (rows) => Promise.resolve(rows.map(presentApplication)),
};
