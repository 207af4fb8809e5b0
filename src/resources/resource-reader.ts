import { ForbiddenException, Inject, Injectable } from '@nestjs/common';
import { FieldCipher } from '../crypto/field-cipher.js';
import type { ApiVersion } from '../common/http/api-version.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import type { PageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ReadRouter } from '../database/replicas/read-router.js';
import type { ReadScope } from '../database/replicas/write-positions.js';
import type { SqlExecutor } from '../database/sql.js';
import type { Page } from '../database/tenant-page.js';
import { RecordCache } from './record-cache.js';
import type { BeforeRows } from './row-sources.js';
import type { TenantResource } from './tenant-resource.js';

/**
 * The reads of every resource, driven by its descriptor: a list page, one record, a batch by id.
 * Each is a fixed number of queries whatever it returns, all on one server: a replica when the
 * router finds one that has the reader's own writes, else the primary.
 */
@Injectable()
export class ResourceReader {
  constructor(
    private readonly router: ReadRouter,
    private readonly cipher: FieldCipher,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly records: RecordCache,
  ) {}

  /** One page of the enterprise's records, newest first, or all of them when not paged. */
  async listPage<Rec extends { id: string }>(
    resource: TenantResource<{ id: string }, Rec>,
    scope: ReadScope,
    page: PageRequest,
    version: ApiVersion,
    beforeRows?: BeforeRows,
  ): Promise<Page<Rec>> {
    const { enterpriseId } = scope;
    const db = this.router.readerFor(scope);
    const { rows, total } = await resource.rows.listRows(db, enterpriseId, page, beforeRows);
    if (rows.length === 0) return { records: [], total };
    const context = { db, cipher: this.cipher, enterpriseId, listVersion: version };
    return { records: await resource.present(rows, context), total };
  }

  /**
   * 404 when there is no such record; 403 when it is not the enterprise's.
   * `beforePresent` is told the record's version (read with its row) before it is presented; a
   * record read with its version is presented once per version (the record cache).
   */
  async get<Rec extends { id: string }>(
    resource: TenantResource<{ id: string }, Rec>,
    id: string,
    scope: ReadScope,
    version: ApiVersion,
    beforePresent?: (recordVersion: string | undefined) => void,
  ): Promise<Rec> {
    const { enterpriseId } = scope;
    const db = this.router.readerFor(scope);
    const versionOf = beforePresent ? resource.changeType : undefined;
    const found = await resource.rows.findRow(db, id, enterpriseId, versionOf);
    if (!found) throw new RecordNotFoundException(resource.model, id);
    // A record of another enterprise comes with its row only from a source that may show it (the
    // users' legacy v1 look-up); a tenant table's source never reads one, so it stays a 403.
    const row =
      found.inEnterprise || resource.readableOutsideEnterprise?.(version, this.config) ? found.row : undefined;
    if (row === undefined) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    beforePresent?.(found.version);
    // Kept under the version read with the row: a change to anything the record shows gives it a
    // new version, so a record kept under this one is exactly what presenting the row would give.
    const key =
      found.version !== undefined && found.inEnterprise
        ? `retrieve ${enterpriseId} ${resource.changeType ?? resource.path} ${id} ${found.version}`
        : undefined;
    const kept = key === undefined ? undefined : this.records.get(key);
    if (kept) return kept as Rec;
    const [record] = await resource.present([row], { db, cipher: this.cipher, enterpriseId });
    if (!record) throw new RecordNotFoundException(resource.model, id);
    if (key !== undefined) this.records.set(key, record);
    return record;
  }
}

/** The enterprise's records among `ids`, as their retrieve shows them (the change feed's batches). */
export async function recordsByIds(
  resource: TenantResource,
  db: SqlExecutor,
  cipher: FieldCipher,
  ids: readonly string[],
  enterpriseId: string,
): Promise<{ id: string }[]> {
  const rows = await resource.rows.rowsByIds(db, ids, enterpriseId);
  return rows.length === 0 ? [] : resource.present(rows, { db, cipher, enterpriseId });
}
