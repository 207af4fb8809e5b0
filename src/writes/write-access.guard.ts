import { ForbiddenException, Injectable, type CanActivate, type ExecutionContext, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { isUuid } from '../database/uuid.js';
import { refuseRecordNotOwned } from '../common/http/record-not-owned.js';
import { selectRows } from '../database/sql.js';
import type { TenantResource } from '../resources/tenant-resource.js';

const GUARDS = new WeakMap<TenantResource, Type<CanActivate>>();

/**
 * The path-id check of a write to a record: the record must exist (404) and belong to the
 * header's enterprise (403) before the body is validated (in the pipes, which run after guards).
 * Route guards run after the global ones, so authentication and membership come first.
 * One guard class per resource, made once.
 */
export function recordWriteAccess(resource: TenantResource): Type<CanActivate> {
  const made = GUARDS.get(resource);
  if (made) return made;
  const table = resource.rows.table;
  if (table === undefined) throw new Error(`${resource.path}: only a tenant table's records can be written`);
  const tenantTable: string = table;
  const ownSql = `SELECT EXISTS (SELECT 1 FROM ${table} WHERE id = $1 AND enterprise_id = $2) AS own`;

  @Injectable()
  class RecordWriteAccess implements CanActivate {
    constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const request = context.switchToHttp().getRequest<FastifyRequest<{ Params: { id?: string } }>>();
      const id = request.params.id ?? '';
      if (!isUuid(id)) throw new RecordNotFoundException(resource.model, id);
      if (!request.enterpriseId) throw new ForbiddenException();
      const recordId = id.toLowerCase();
      const [row] = await selectRows<{ own: boolean }>(this.dataSource, ownSql, [recordId, request.enterpriseId]);
      if (row?.own) return true;
      return refuseRecordNotOwned(this.dataSource, tenantTable, resource.model, recordId);
    }
  }
  Object.defineProperty(RecordWriteAccess, 'name', { value: `${resource.model}WriteAccess` });
  GUARDS.set(resource, RecordWriteAccess);
  return RecordWriteAccess;
}
