import { ForbiddenException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ErrorMessages } from '../common/http/error-messages.js';
import type { PageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { selectRows } from '../database/sql.js';
import {
  countForEnterprise,
  NEWEST_FIRST,
  pageIdsSql,
  pageParams,
  planPage,
  type Page,
} from '../database/tenant-page.js';
import { presentQuote, type QuoteRecord, type QuoteRow } from './quote.presenter.js';
import { presentQuotesWithApplications, QUOTE_COLUMNS as COLUMNS } from './quotes.queries.js';

@Injectable()
export class QuotesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * One page of the enterprise's quotes (R7): two queries, plus one for all their applications
   * when `withApplications` (R5: the v1 list embeds them, the v2 list does not).
   */
  async listPage(enterpriseId: string, page: PageRequest, withApplications: boolean): Promise<Page<QuoteRecord>> {
    const total = await countForEnterprise(this.dataSource, 'quotes', enterpriseId);
    const plan = planPage(page, total);
    if (!plan) return { records: [], total };
    const rows = await selectRows<QuoteRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM quotes JOIN (${pageIdsSql('quotes', plan)}) k USING (id) ORDER BY ${NEWEST_FIRST}`,
      pageParams(enterpriseId, plan),
    );
    if (!withApplications) return { records: rows.map((row) => presentQuote(row, undefined)), total };
    return { records: await this.withApplications(rows, enterpriseId), total };
  }

  /** With its application embedded (R5). 404 when no such quote; 403 for another enterprise's (R9). */
  async get(id: string, enterpriseId: string): Promise<QuoteRecord> {
    const [row] = await selectRows<QuoteRow>(this.dataSource, `SELECT ${COLUMNS} FROM quotes WHERE id = $1`, [id]);
    if (!row) throw new RecordNotFoundException('Quote', id);
    if (row.enterprise_id !== enterpriseId) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    const [record] = await this.withApplications([row], enterpriseId);
    if (!record) throw new RecordNotFoundException('Quote', id);
    return record;
  }

  private withApplications(rows: readonly QuoteRow[], enterpriseId: string): Promise<QuoteRecord[]> {
    return presentQuotesWithApplications(this.dataSource, rows, enterpriseId);
  }
}
