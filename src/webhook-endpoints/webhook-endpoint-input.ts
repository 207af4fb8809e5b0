import { BadRequestException } from '@nestjs/common';
import { BodyTooDeepError, normaliseKeys } from '../common/casing/normalise-keys.js';
import { hasControlCharacters } from '../common/text/control-characters.js';
import type { FieldErrors } from '../common/http/validation-failed.exception.js';
import { CHANGE_TYPES, type ChangeType } from '../changes/change-types.js';

export const URL_MAX_CHARS = 2048;
export const DESCRIPTION_MAX_CHARS = 1000;

export const WebhookInputMessages = {
  urlRequired: 'The url field is required.',
  urlString: 'The url field must be a string.',
  urlTooLong: `The url field must not be greater than ${URL_MAX_CHARS} characters.`,
  urlInvalid: 'The url field must be a valid URL.',
  urlControl: 'The url field must not contain control characters.',
  urlHttps: 'The url field must be an https URL.',
  urlCredentials: 'The url field must not contain a user name or password.',
  urlUnresolved: 'The url host could not be resolved.',
  urlPrivate: 'The url field must not point to a loopback, private, link-local, multicast or unspecified address.',
  types: `The types field must be an array of record types: ${CHANGE_TYPES.join(', ')}.`,
  descriptionString: 'The description field must be a string.',
  descriptionTooLong: `The description field must not be greater than ${DESCRIPTION_MAX_CHARS} characters.`,
  descriptionControl: 'The description field must not contain control characters.',
  enabled: 'The enabled field must be true or false.',
  cursorRequired: 'The cursor field is required.',
  cursorInvalid: 'The cursor is invalid.',
  cursorOrBeginning: 'Give either a cursor or from_beginning, not both.',
  fromBeginning: 'The from_beginning field must be true or false.',
  cursorRetired:
    'The cursor was written under an encryption key that has since been retired. Replay from a cursor ' +
    'GET /changes/cursor gives now, or from the beginning ({"from_beginning": true}).',
  tooManyEndpoints: (most: number) =>
    `The enterprise already has ${most} webhook endpoints, the most it may have: delete one before adding another.`,
} as const;

/** A v2 body with its keys snake-cased (as every v2 body is); not an object: an empty one. */
export function bodyObject(body: unknown): Record<string, unknown> {
  let normalised: unknown;
  try {
    normalised = normaliseKeys(body);
  } catch (error) {
    if (error instanceof BodyTooDeepError) throw new BadRequestException({ message: error.message });
    throw error;
  }
  return typeof normalised === 'object' && normalised !== null && !Array.isArray(normalised)
    ? (normalised as Record<string, unknown>)
    : {};
}

/** The url's form (scheme, length, no credentials); where its host points is checked apart. */
export function urlErrors(value: unknown, allowHttp: boolean): string[] {
  if (value === undefined || value === null || value === '') return [WebhookInputMessages.urlRequired];
  if (typeof value !== 'string') return [WebhookInputMessages.urlString];
  if (value.length > URL_MAX_CHARS) return [WebhookInputMessages.urlTooLong];
  // URL parsing drops tabs and newlines silently: checked on the text as sent.
  if (hasControlCharacters(value)) return [WebhookInputMessages.urlControl];
  if (!URL.canParse(value)) return [WebhookInputMessages.urlInvalid];
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return [WebhookInputMessages.urlHttps];
  if (url.hostname === '') return [WebhookInputMessages.urlInvalid];
  if (url.username !== '' || url.password !== '') return [WebhookInputMessages.urlCredentials];
  return [];
}

/** `types`: absent or null is every type; otherwise known types, kept in the feed's type order. */
export function parseTypes(value: unknown): ChangeType[] | undefined {
  if (value === undefined || value === null) return [];
  if (
    !Array.isArray(value) ||
    value.some((type) => typeof type !== 'string' || !CHANGE_TYPES.includes(type as ChangeType))
  ) {
    return undefined;
  }
  return CHANGE_TYPES.filter((type) => (value as string[]).includes(type));
}

export function descriptionErrors(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return [WebhookInputMessages.descriptionString];
  if (value.length > DESCRIPTION_MAX_CHARS) return [WebhookInputMessages.descriptionTooLong];
  if (hasControlCharacters(value)) return [WebhookInputMessages.descriptionControl];
  return [];
}

export interface EndpointChanges {
  url?: string;
  types?: ChangeType[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * The fields of a create (`url` required) or an update (every field optional), with the
 * messages of each bad one. Keys outside these are ignored.
 */
export function readEndpointInput(
  raw: unknown,
  mode: 'create' | 'update',
  allowHttp: boolean,
): { changes: EndpointChanges; errors: FieldErrors } {
  const body = bodyObject(raw);
  const errors: FieldErrors = {};
  const changes: EndpointChanges = {};
  if (mode === 'create' || Object.hasOwn(body, 'url')) {
    const messages = urlErrors(body.url, allowHttp);
    if (messages.length > 0) errors.url = messages;
    else changes.url = body.url as string;
  }
  if (mode === 'create' || Object.hasOwn(body, 'types')) {
    const types = parseTypes(body.types);
    if (types === undefined) errors.types = [WebhookInputMessages.types];
    else changes.types = types;
  }
  if (Object.hasOwn(body, 'description')) {
    const messages = descriptionErrors(body.description);
    if (messages.length > 0) errors.description = messages;
    else changes.description = body.description === '' ? null : ((body.description ?? null) as string | null);
  }
  if (mode === 'update' && Object.hasOwn(body, 'enabled')) {
    if (typeof body.enabled !== 'boolean') errors.enabled = [WebhookInputMessages.enabled];
    else changes.enabled = body.enabled;
  }
  return { changes, errors };
}
