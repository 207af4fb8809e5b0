import { BadRequestException } from '@nestjs/common';
import { ErrorMessages } from '../common/http/error-messages.js';
import type { FieldErrors } from '../common/http/validation-failed.exception.js';
import { InvalidCursorError, UnknownCursorKeyError, type ChangeCursorCodec } from './change-cursor.js';
import {
  BEGINNING,
  CHANGE_TYPES,
  DEFAULT_CHANGE_LIMIT,
  MAX_CHANGE_LIMIT,
  type ChangePosition,
  type ChangeType,
} from './change-types.js';

export const ChangeFeedMessages = {
  invalidCursor: 'The cursor is invalid.',
  retiredCursor:
    'The cursor was written under an encryption key that has since been retired. Start again from ' +
    'GET /changes/cursor and re-read the lists, then follow the feed from that cursor.',
  invalidTypes: `The types field must be a comma-separated list of: ${CHANGE_TYPES.join(', ')}.`,
  invalidLimit: `The limit field must be an integer from 1 to ${MAX_CHANGE_LIMIT}.`,
} as const;

/** 400 with the validation envelope; a bad cursor says so in the message. */
export class ChangeFeedQueryException extends BadRequestException {
  constructor(errors: FieldErrors) {
    super({ message: errors.cursor ? ChangeFeedMessages.invalidCursor : ErrorMessages.invalidData, errors });
  }
}

export interface ChangeFeedQuery {
  readonly after: ChangePosition;
  /** Set when the cursor is well formed but under a key this process does not have: retired (410) or forged (400). */
  readonly unknownCursorKey?: string;
  readonly types: readonly ChangeType[];
  readonly limit: number;
  /** The parameters as the client gave them, for the next link. */
  readonly given: { types?: string; limit?: string };
}

const TYPE_SET = new Set<string>(CHANGE_TYPES);

/** How `types` may be spaced: the served documents quote it, the parser below follows it. */
export const TYPE_LIST_SPACING = 'whitespace around a name is ignored (`lead, person`)';

/**
 * A `types` list: names of CHANGE_TYPES separated by commas, whitespace around each ignored
 * (TYPE_LIST_SPACING); undefined when it is not one.
 */
export function parseTypeList(value: string): ChangeType[] | undefined {
  const types = value.split(',').map((part) => part.trim());
  if (types.some((type) => !TYPE_SET.has(type))) return undefined;
  return CHANGE_TYPES.filter((type) => types.includes(type));
}

function parseTypes(value: unknown): ChangeType[] | undefined {
  if (value === undefined) return [...CHANGE_TYPES];
  if (typeof value !== 'string') return undefined;
  return parseTypeList(value);
}

function parseLimit(value: unknown): number | undefined {
  if (value === undefined) return DEFAULT_CHANGE_LIMIT;
  if (typeof value !== 'string' || !/^\d{1,4}$/.test(value)) return undefined;
  const limit = Number(value);
  return limit >= 1 && limit <= MAX_CHANGE_LIMIT ? limit : undefined;
}

/** `cursor`, `types` and `limit` of a feed request; other parameters are ignored, as on lists. */
export function parseChangeFeedQuery(
  query: Record<string, unknown>,
  enterpriseId: string,
  codec: ChangeCursorCodec,
): ChangeFeedQuery {
  const errors: FieldErrors = {};
  const types = parseTypes(query.types);
  if (!types) errors.types = [ChangeFeedMessages.invalidTypes];
  const limit = parseLimit(query.limit);
  if (limit === undefined) errors.limit = [ChangeFeedMessages.invalidLimit];
  let after = BEGINNING;
  let unknownCursorKey: string | undefined;
  // An empty cursor is no cursor, so a client's first call can send `cursor=` as its later ones do.
  // A cursor is read with its types: with types that are not valid it is not read at all.
  if (query.cursor !== undefined && query.cursor !== '' && types) {
    try {
      if (typeof query.cursor !== 'string') throw new InvalidCursorError();
      after = codec.decode(query.cursor, enterpriseId, types);
    } catch (error) {
      if (error instanceof UnknownCursorKeyError) unknownCursorKey = error.keyId;
      else if (error instanceof InvalidCursorError) errors.cursor = [ChangeFeedMessages.invalidCursor];
      else throw error;
    }
  }
  if (!types || limit === undefined || Object.keys(errors).length > 0) throw new ChangeFeedQueryException(errors);
  const given: { types?: string; limit?: string } = {};
  if (typeof query.types === 'string') given.types = query.types;
  if (typeof query.limit === 'string') given.limit = query.limit;
  return { after, types, limit, given, ...(unknownCursorKey === undefined ? {} : { unknownCursorKey }) };
}

/** The `types` of a request for a cursor (`GET /changes/cursor`): default all, 400 when not types. */
export function parseCursorTypes(query: Record<string, unknown>): ChangeType[] {
  const types = parseTypes(query.types);
  if (!types) throw new ChangeFeedQueryException({ types: [ChangeFeedMessages.invalidTypes] });
  return types;
}
