import { Controller, Get, Inject, Param, Req, type Type } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Conditional, ConditionalRead, type Revalidation } from '../changes/conditional-read.js';
import { BOTH_VERSIONS, type ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import { DataEnvelope, type PageEnvelope } from '../common/http/envelopes.js';
import { listUrl, pageEnvelope, pageRequest, parsePage } from '../common/http/pagination.js';
import { ReadOnlyRoutes } from './read-only-routes.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { ReadingAs } from '../common/tenancy/read-scope.decorator.js';
import type { ReadScope } from '../database/replicas/write-positions.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiList, ApiOtherEnterprise, ApiPage, ApiRecord, ApiRecordId } from '../openapi/api-responses.decorator.js';
import { schemaOf } from '../openapi/resource-schemas.js';
import { ResourceReader } from './resource-reader.js';
import type { TenantResource } from './tenant-resource.js';

type Record = { id: string };

/** The list and retrieve routes of a resource, as its descriptor describes them. */
export function resourceReadRoutes(resource: TenantResource): MethodDecorator[][] {
  const { list, retrieve, changeType } = resource;
  const conditional = changeType ? [ConditionalRead()] : [];
  return [
    [
      Get(),
      ...conditional,
      Operation(list.id, list.summary, list.description),
      resource.rows.paged ? ApiPage(schemaOf(resource), list.answer) : ApiList(schemaOf(resource), list.answer),
    ],
    [
      Get(':id'),
      ...conditional,
      Operation(retrieve.id, retrieve.summary, retrieve.description),
      ApiRecord(schemaOf(resource), retrieve.answer),
      ApiRecordId(resource.model),
      ApiOtherEnterprise(retrieve.otherEnterprise),
    ],
  ];
}

/** What a list or retrieve route reads its answer with (its parameters). */
export interface ReadContext {
  readonly scope: ReadScope;
  readonly version: ApiVersion;
  readonly conditional: Revalidation;
}

/**
 * A list answer as the descriptor describes it: a page with its links, or every record of an
 * unpaged resource. Shared by read-only and writable controllers, so the two never differ.
 */
export async function readList<Rec extends Record>(
  reader: ResourceReader,
  config: AppConfig,
  resource: TenantResource<Record, Rec>,
  { scope, version, conditional, request }: ReadContext & { readonly request: FastifyRequest },
): Promise<PageEnvelope<Rec> | DataEnvelope<Rec[]>> {
  const page = parsePage((request.query as { page?: unknown }).page);
  const url = listUrl(request, config.appUrl);
  const beforeRows = conditional.list(resource, page, url);
  const { records, total } = await reader.listPage(resource, scope, pageRequest(page), version, beforeRows);
  if (!resource.rows.paged) return new DataEnvelope(records);
  return pageEnvelope(records, total, page, url);
}

/** A retrieve answer: the record, told to the revalidation before it is presented. */
export async function readRecord<Rec extends Record>(
  reader: ResourceReader,
  resource: TenantResource<Record, Rec>,
  id: string,
  { scope, version, conditional }: ReadContext,
): Promise<DataEnvelope<Rec>> {
  return new DataEnvelope(await reader.get(resource, id, scope, version, conditional.record(resource, id)));
}

/**
 * The controller of a resource in the versions it is read-only in (both, unless it is writable in
 * one): list, retrieve and the 403 of every write (inherited from ReadOnlyRoutes). v1 differs only
 * by the global casing step.
 */
export function readOnlyController(resource: TenantResource, versions: readonly ApiVersion[]): Type<ReadOnlyRoutes> {
  const version = versions.length === 2 ? BOTH_VERSIONS : versions.map((v) => v.slice(1));
  @Controller({ path: resource.path, version })
  @ApiTags(resource.tag.name)
  class ResourceController extends ReadOnlyRoutes {
    constructor(
      readonly reader: ResourceReader,
      @Inject(APP_CONFIG) readonly config: AppConfig,
    ) {
      super();
    }

    async list(
      @ReadingAs() scope: ReadScope,
      @Req() request: FastifyRequest,
      @RequestApiVersion() version: ApiVersion,
      @Conditional() conditional: Revalidation,
    ): Promise<PageEnvelope<Record> | DataEnvelope<Record[]>> {
      return readList(this.reader, this.config, resource, { scope, request, version, conditional });
    }

    async retrieve(
      @Param('id', new RecordIdPipe(resource.model)) id: string,
      @ReadingAs() scope: ReadScope,
      @RequestApiVersion() version: ApiVersion,
      @Conditional() conditional: Revalidation,
    ): Promise<DataEnvelope<Record>> {
      return readRecord(this.reader, resource, id, { scope, version, conditional });
    }
  }
  const [listDecorators, retrieveDecorators] = resourceReadRoutes(resource);
  decorate(ResourceController, 'list', listDecorators ?? []);
  decorate(ResourceController, 'retrieve', retrieveDecorators ?? []);
  // The documents name operations and `{resource}` after the controller: `PeopleController`.
  Object.defineProperty(ResourceController, 'name', { value: `${resource.tag.name}Controller` });
  return ResourceController;
}

/** Applies method decorators as if written above the method (the last one first). */
export function decorate(target: Type, method: string, decorators: readonly MethodDecorator[]): void {
  const descriptor = Object.getOwnPropertyDescriptor(target.prototype, method);
  if (!descriptor) throw new Error(`${target.name} has no method ${method}`);
  for (const decorator of [...decorators].reverse()) decorator(target.prototype as object, method, descriptor);
}
