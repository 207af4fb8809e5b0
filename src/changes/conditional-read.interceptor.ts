import {
  applyDecorators,
  Inject,
  Injectable,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { apiVersionOf } from '../common/http/api-version.js';
import { entityTag, matchesIfNoneMatch, NotModifiedException } from '../common/http/conditional/entity-tag.js';
import { listUrl, parsePage } from '../common/http/pagination.js';
import { isUuid } from '../common/http/uuid.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { poolReader } from '../database/pool-reader.js';
import type { ChangeType } from './change-types.js';
import { recordVersion, typeVersion } from './record-versions.js';

const CONDITIONAL_TYPE = 'finance-intake:conditional-type';
/** Operation extension read by the OpenAPI builder: ETag, If-None-Match and 304. */
export const ETAG_EXTENSION = 'x-etag';

/**
 * ETag on a list or retrieve of `type`'s records, and 304 to an If-None-Match that still holds.
 * The version is read before the answer is built, so a tag can be older than its body (the
 * next request gets a 200) but never newer (a 304 never hides a change).
 */
@Injectable()
export class ConditionalReadInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const type = this.reflector.get<ChangeType | undefined>(CONDITIONAL_TYPE, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const enterpriseId = request.enterpriseId;
    if (type === undefined || enterpriseId === undefined) return next.handle();
    const tag = await this.tagOf(request, enterpriseId, type);
    if (tag === undefined) return next.handle();
    if (matchesIfNoneMatch(request.headers['if-none-match'], tag)) throw new NotModifiedException(tag);
    void context.switchToHttp().getResponse<FastifyReply>().header('etag', tag);
    return next.handle();
  }

  private async tagOf(request: FastifyRequest, enterpriseId: string, type: ChangeType): Promise<string | undefined> {
    const version = apiVersionOf(request.url) ?? 'v2';
    const db = poolReader(this.dataSource);
    const { id } = request.params as { id?: string };
    if (id === undefined) {
      const page = String(parsePage((request.query as { page?: unknown }).page));
      const listed = await typeVersion(db, enterpriseId, type);
      return entityTag([version, enterpriseId, type, 'list', listed, page, listUrl(request, this.config.appUrl)]);
    }
    if (!isUuid(id)) return undefined;
    const seq = await recordVersion(db, enterpriseId, type, id.toLowerCase());
    return seq === undefined ? undefined : entityTag([version, enterpriseId, type, id.toLowerCase(), seq]);
  }
}

/** Marks a list or retrieve route of `type` as answering conditional GETs. */
export const ConditionalRead = (type: ChangeType): MethodDecorator =>
  applyDecorators(
    SetMetadata(CONDITIONAL_TYPE, type),
    UseInterceptors(ConditionalReadInterceptor),
    ApiExtension(ETAG_EXTENSION, true),
  );
