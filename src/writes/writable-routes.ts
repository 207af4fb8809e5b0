import { Delete, ForbiddenException, Inject, Param, Req, type Type } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Conditional, type Revalidation } from '../changes/conditional-read.js';
import type { ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import { DataEnvelope, type PageEnvelope } from '../common/http/envelopes.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { ReadingAs } from '../common/tenancy/read-scope.decorator.js';
import type { ReadScope } from '../database/replicas/write-positions.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { IdempotentWrites } from '../idempotency/idempotent-writes.service.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiDisabled } from '../openapi/api-responses.decorator.js';
import { decorate, readList, readRecord, resourceReadRoutes } from '../resources/read-only-controller.js';
import { ResourceReader } from '../resources/resource-reader.js';
import { writeAbility, type TenantResource } from '../resources/tenant-resource.js';
import { recordNoun } from './write-routes.js';
import { RequiresAbility } from '../common/access/required-access.js';

/** What a writable version's controller inherits: the reads, the refused delete, and the idempotent write runner. */
export interface WritableRoutes<Rec extends { id: string }> {
  /** Runs a write once per `Idempotency-Key` (the one application-wide instance). */
  readonly writes: IdempotentWrites;
  list(...args: never[]): Promise<PageEnvelope<Rec> | DataEnvelope<Rec[]>>;
  retrieve(...args: never[]): Promise<DataEnvelope<Rec>>;
  deleteIsForbidden(): never;
}

/**
 * The base class of a writable resource's controller in a version it writes in: list and
 * retrieve as the descriptor describes them (as a read-only resource has them), and DELETE on a
 * record refused with 403 (records are never deleted through the API). The controller extends it,
 * adds `@CreateRoute` and `@UpdateRoute` methods, and runs them through `this.writes.run`:
 *
 *   @Controller({ path: LEADS.path, version: '2' })
 *   @ApiTags(LEADS.tag.name)
 *   export class V2LeadsController extends writableRoutes(LEADS) { ... }
 */
export function writableRoutes<Rec extends { id: string }>(
  resource: TenantResource<{ id: string }, Rec>,
): abstract new () => WritableRoutes<Rec> {
  const noun = recordNoun(resource.model);

  abstract class ResourceWritableRoutes implements WritableRoutes<Rec> {
    @Inject(ResourceReader) private readonly reader!: ResourceReader;
    @Inject(APP_CONFIG) private readonly config!: AppConfig;
    @Inject(IdempotentWrites) readonly writes!: IdempotentWrites;

    async list(
      @ReadingAs() scope: ReadScope,
      @Req() request: FastifyRequest,
      @RequestApiVersion() version: ApiVersion,
      @Conditional() conditional: Revalidation,
    ): Promise<PageEnvelope<Rec> | DataEnvelope<Rec[]>> {
      return readList(this.reader, this.config, resource, { scope, request, version, conditional });
    }

    async retrieve(
      @Param('id', new RecordIdPipe(resource.model)) id: string,
      @ReadingAs() scope: ReadScope,
      @RequestApiVersion() version: ApiVersion,
      @Conditional() conditional: Revalidation,
    ): Promise<DataEnvelope<Rec>> {
      return readRecord(this.reader, resource, id, { scope, version, conditional });
    }

    @Delete(':id')
    @RequiresAbility(writeAbility(resource))
    @Operation(
      `delete${resource.model}`,
      `Delete ${noun.withArticle} (not available)`,
      `${resource.tag.name} are never deleted through the API.`,
    )
    @ApiDisabled()
    deleteIsForbidden(): never {
      throw new ForbiddenException({ message: ErrorMessages.forbidden });
    }
  }
  const [listDecorators, retrieveDecorators] = resourceReadRoutes(resource);
  decorate(ResourceWritableRoutes as unknown as Type, 'list', listDecorators ?? []);
  decorate(ResourceWritableRoutes as unknown as Type, 'retrieve', retrieveDecorators ?? []);
  return ResourceWritableRoutes;
}
