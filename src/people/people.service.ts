import { ForbiddenException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FieldCipher } from '../common/crypto/field-cipher.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import type { PageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import type { Page } from '../database/tenant-page.js';
import type { PersonRecord } from './person.presenter.js';
import { findPersonRow, listPeoplePage, presentPeople } from './people.queries.js';

@Injectable()
export class PeopleService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
  ) {}

  listPage(enterpriseId: string, page: PageRequest): Promise<Page<PersonRecord>> {
    return listPeoplePage(this.dataSource, this.cipher, enterpriseId, page);
  }

  /** 404 when there is no such person; 403 when it belongs to another enterprise (R9). */
  async get(id: string, enterpriseId: string): Promise<PersonRecord> {
    const row = await findPersonRow(this.dataSource, id);
    if (!row) throw new RecordNotFoundException('Person', id);
    if (row.enterprise_id !== enterpriseId) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    const [record] = await presentPeople(this.dataSource, this.cipher, [row]);
    if (!record) throw new RecordNotFoundException('Person', id);
    return record;
  }
}
