import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { RequiresAbility } from '../common/access/required-access.js';
import { ApiExtraModels, ApiQuery, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { BOTH_VERSIONS } from '../common/http/api-version.js';
import { ChangeFeedEnvelope, CursorEnvelope } from '../common/http/envelopes.js';
import { ErrorSchema, ValidationErrorSchema } from '../openapi/error.schema.js';
import { listUrl } from '../common/http/pagination.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { REQUEST_ORIGIN_400 } from '../openapi/api-responses.decorator.js';
import { ChangeCursorDataSchema, ChangePageSchema } from './change-feed.schema.js';
import { ChangeFeedMessages, parseChangeFeedQuery, parseCursorTypes, TYPE_LIST_SPACING } from './change-feed-query.js';
import { CHANGE_TYPES, DEFAULT_CHANGE_LIMIT, MAX_CHANGE_LIMIT } from './change-types.js';
import { ChangesService } from './changes.service.js';

/**
 * The feed's `types` parameter: a cursor belongs to the types it was taken with. A list of the
 * closed set of types, written comma-separated (`style: form`, `explode: false`), so a generated
 * client types its values; the parser (`parseTypeList`) splits at the commas and ignores
 * whitespace around each name, as the description says: one rule for both.
 */
const TYPES_PARAMETER = {
  name: 'types',
  required: false,
  style: 'form',
  explode: false,
  schema: { type: 'array', items: { type: 'string', enum: [...CHANGE_TYPES] }, minItems: 1 },
  example: ['person', 'lead'],
  description:
    `Record types, comma-separated (\`person,lead\`), of: ${CHANGE_TYPES.join(', ')}; ${TYPE_LIST_SPACING}. ` +
    'Default: all. A cursor belongs to the types it was taken with: read on with the same `types`.',
} as const;

/** The change feed: what changed in the enterprise since a cursor, for keeping a copy in sync. */
@Controller({ path: 'changes', version: BOTH_VERSIONS })
@ApiTags('Changes')
@RequiresAbility('changes:read')
export class ChangesController {
  constructor(
    private readonly changes: ChangesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation(
    'listChanges',
    'Read the change feed',
    'Every record of the enterprise that changed after `cursor` (from the very beginning without one), oldest ' +
      'change first. A record changed many times appears once, with its latest state. Follow `meta.next_cursor` ' +
      'until `has_more` is false, store it, and poll with it later: no committed change is ever skipped.',
  )
  @ApiQuery({
    name: 'cursor',
    required: false,
    schema: { type: 'string' },
    description:
      'A `next_cursor` of an earlier answer, or the `cursor` of `GET /changes/cursor`. Absent: from the beginning.',
  })
  @ApiQuery(TYPES_PARAMETER)
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: MAX_CHANGE_LIMIT, default: DEFAULT_CHANGE_LIMIT },
    description: 'Entries per page.',
  })
  @ApiResponse({ status: 200, type: ChangePageSchema, description: 'A page of changes.' })
  @ApiExtraModels(ValidationErrorSchema, ErrorSchema)
  @ApiResponse({
    status: 400,
    schema: { oneOf: [{ $ref: getSchemaPath(ValidationErrorSchema) }, { $ref: getSchemaPath(ErrorSchema) }] },
    description:
      `A parameter is invalid: \`${ChangeFeedMessages.invalidCursor}\` for a cursor that was edited, made up, ` +
      'issued for another enterprise or for other `types`; otherwise `The given data was invalid.`, with the ' +
      'messages of each parameter. ' +
      REQUEST_ORIGIN_400,
  })
  @ApiResponse({
    status: 410,
    type: ErrorSchema,
    description:
      'The cursor was written under an encryption key the operator has since retired: start again from ' +
      '`GET /changes/cursor`, re-read the lists, and follow the feed from the new cursor.',
  })
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ): Promise<ChangeFeedEnvelope> {
    const parsed = parseChangeFeedQuery(query, enterpriseId, this.changes.cursors);
    const page = await this.changes.page(enterpriseId, parsed);
    const next = new URLSearchParams({ cursor: page.nextCursor, ...parsed.given });
    return new ChangeFeedEnvelope(
      page.entries,
      { next: `${listUrl(request, this.config.appUrl)}?${next.toString()}` },
      { next_cursor: page.nextCursor, has_more: page.hasMore },
    );
  }

  @Get('cursor')
  @Operation(
    'getChangeCursor',
    'The change feed position now',
    'A cursor for the changes made from now on. Take it before reading the lists for a first copy, then follow ' +
      'the feed from it: what changed while the lists were read is delivered (some records twice, none missed).',
  )
  @ApiQuery(TYPES_PARAMETER)
  @ApiResponse({ status: 200, type: ChangeCursorDataSchema, description: 'The position now.' })
  @ApiResponse({ status: 400, type: ValidationErrorSchema, description: 'The `types` parameter is invalid.' })
  async cursor(
    @CurrentEnterprise() enterpriseId: string,
    @Query() query: Record<string, unknown>,
  ): Promise<CursorEnvelope> {
    return new CursorEnvelope({ cursor: await this.changes.cursorNow(enterpriseId, parseCursorTypes(query)) });
  }
}
