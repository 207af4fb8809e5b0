import { ForbiddenException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ErrorMessages } from '../common/http/error-messages.js';
import type { PageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { selectRows } from '../database/sql.js';
import {
  countForEnterprise,
  newestFirst,
  pageIdsSql,
  pageParams,
  planPage,
  type Page,
  type PagePlan,
} from '../database/tenant-page.js';
import { presentApplication, type ApplicationRecord, type ApplicationRow } from './application.presenter.js';
import { APPLICATION_COLUMNS as COLUMNS, withActiveQuote } from './applications.queries.js';

const pageSql = (plan: PagePlan): string =>
  `${withActiveQuote(
    `SELECT ${COLUMNS} FROM applications JOIN (${pageIdsSql('applications', plan)}) k USING (id)`,
  )} ORDER BY ${newestFirst('a')}`;

const BY_ID_SQL = withActiveQuote(`SELECT ${COLUMNS} FROM applications WHERE id = $1`);

@Injectable()
export class ApplicationsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One page of the enterprise's applications (R7): two queries whatever the page holds. */
  async listPage(enterpriseId: string, page: PageRequest): Promise<Page<ApplicationRecord>> {
    const total = await countForEnterprise(this.dataSource, 'applications', enterpriseId);
    const plan = planPage(page, total);
    if (!plan) return { records: [], total };
    const rows = await selectRows<ApplicationRow>(this.dataSource, pageSql(plan), pageParams(enterpriseId, plan));
    return { records: rows.map(presentApplication), total };
  }

  /** 404 when there is no such application; 403 when it belongs to another enterprise (R9). */
  async get(id: string, enterpriseId: string): Promise<ApplicationRecord> {
    const [row] = await selectRows<ApplicationRow>(this.dataSource, BY_ID_SQL, [id]);
    if (!row) throw new RecordNotFoundException('Application', id);
    if (row.enterprise_id !== enterpriseId) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    return presentApplication(row);
  }
}
