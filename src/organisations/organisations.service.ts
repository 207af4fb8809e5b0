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
} from '../database/tenant-page.js';
import { ORGANISATION_COLUMNS, type OrganisationRecord, type OrganisationRow } from './organisation.presenter.js';
import { presentOrganisations } from './organisations.queries.js';

@Injectable()
export class OrganisationsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One page of the enterprise's organisations (R7): five queries whatever the page holds. */
  async listPage(enterpriseId: string, page: PageRequest): Promise<Page<OrganisationRecord>> {
    const total = await countForEnterprise(this.dataSource, 'organisations', enterpriseId);
    const plan = planPage(page, total);
    if (!plan) return { records: [], total };
    const rows = await selectRows<OrganisationRow>(
      this.dataSource,
      `SELECT ${ORGANISATION_COLUMNS} FROM organisations o JOIN (${pageIdsSql('organisations', plan)}) k ON k.id = o.id
        ORDER BY ${newestFirst('o')}`,
      pageParams(enterpriseId, plan),
    );
    return { records: await this.present(rows), total };
  }

  /** 404 when there is no such organisation; 403 when it belongs to another enterprise (R9). */
  async get(id: string, enterpriseId: string): Promise<OrganisationRecord> {
    const [row] = await selectRows<OrganisationRow>(
      this.dataSource,
      `SELECT ${ORGANISATION_COLUMNS} FROM organisations o WHERE o.id = $1`,
      [id],
    );
    if (!row) throw new RecordNotFoundException('Organisation', id);
    if (row.enterprise_id !== enterpriseId) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    const [record] = await this.present([row]);
    if (!record) throw new RecordNotFoundException('Organisation', id);
    return record;
  }

  private present(rows: readonly OrganisationRow[]): Promise<OrganisationRecord[]> {
    return presentOrganisations(this.dataSource, rows);
  }
}
