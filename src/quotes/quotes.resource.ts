import { columnsOf } from '../database/entity-columns.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { tenantTableRows } from '../resources/row-sources.js';
import { Quote } from './quote.entity.js';
import { presentQuote, type QuoteRecord, type QuoteRow } from './quote.presenter.js';
import { presentQuotesWithApplications } from './quotes.queries.js';

export const QUOTES: TenantResource<QuoteRow, QuoteRecord> = {
  path: 'quotes',
  model: 'Quote',
  changeType: 'quote',
  tag: { name: 'Quotes', description: 'Finance scenarios of an application. Read-only.' },
  entity: Quote,
  responseSchema: () => import('./quote.schema.js').then((m) => m.QuoteSchema),
  list: {
    id: 'listQuotes',
    summary: 'List quotes',
    description: "The enterprise's quotes, 100 a page.",
    answer: "A page of the enterprise's quotes, newest first. v2 leaves each quote's `application` out; v1 embeds it.",
  },
  retrieve: {
    id: 'getQuote',
    summary: 'Retrieve a quote',
    description: 'A quote of the enterprise in the header, by id, with its application.',
    answer: 'The quote. Its `application` is embedded, null when it has none.',
  },
  rows: tenantTableRows({
    table: 'quotes',
    alias: 'q',
    columns: columnsOf(Quote, ['id', 'enterpriseId', 'applicationId', 'createdAt', 'updatedAt'], 'q'),
  }),
  // A quote embeds its application, except in the v2 list, which leaves the key out.
  present: (rows, { db, enterpriseId, listVersion }) =>
    listVersion === 'v2'
      ? Promise.resolve(rows.map((row) => presentQuote(row, undefined)))
      : presentQuotesWithApplications(db, rows, enterpriseId),
};
