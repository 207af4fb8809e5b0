import { ForbiddenException, Injectable, type CanActivate, type ExecutionContext, type Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { ErrorMessages } from '../common/http/error-messages.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { isUuid } from '../database/uuid.js';
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
  const ownerSql = `SELECT enterprise_id FROM ${table} WHERE id = $1`;

  @Injectable()
  class RecordWriteAccess implements CanActivate {
    constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const request = context.switchToHttp().getRequest<FastifyRequest<{ Params: { id?: string } }>>();
      const id = request.params.id ?? '';
      if (!isUuid(id)) throw new RecordNotFoundException(resource.model, id);
      if (!request.enterpriseId) throw new ForbiddenException();
      const [row] = await selectRows<{ enterprise_id: string | null }>(this.dataSource, ownerSql, [id.toLowerCase()]);
      if (!row) throw new RecordNotFoundException(resource.model, id.toLowerCase());
      if (row.enterprise_id !== request.enterpriseId)
        throw new ForbiddenException({ message: ErrorMessages.forbidden });
      return true;
    }
  }
  Object.defineProperty(RecordWriteAccess, 'name', { value: `${resource.model}WriteAccess` });
  GUARDS.set(resource, RecordWriteAccess);
  return RecordWriteAccess;
}
