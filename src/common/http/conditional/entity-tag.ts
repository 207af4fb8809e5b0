import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { MIGRATIONS } from '../../../database/migrations.js';
import { EarlyAnswer } from './early-answer.js';

/**
 * Bump when a presenter, or a migration, changes what is answered for the same stored data, so
 * clients holding an ETag of the old answer get the new one. A migration that changes what some
 * records answer may instead move those records' versions, as any write does.
 */
const RESPONSE_FORMAT = '1';

/**
 * Tags once covered every migration's name, so each upgrade changed every tag though the answers
 * were the same. The migrations up to this one stay in the tag, so tags already given out stay
 * valid; later migrations leave tags alone.
 */
export const LAST_MIGRATION_IN_TAGS = 'StoredRecordJson1764900000000';

/** What every tag covers besides its parts, from the migrations' names (oldest first). */
export function tagBase(migrationNames: readonly string[]): string {
  const last = migrationNames.indexOf(LAST_MIGRATION_IN_TAGS);
  const covered = last < 0 ? migrationNames : migrationNames.slice(0, last + 1);
  return `${RESPONSE_FORMAT}|${covered.join(',')}`;
}

const BUILD = tagBase(MIGRATIONS.map((m) => m.name));

/**
 * A weak ETag over what an answer depends on (never a hash of the answer): opaque, because the
 * versions in it are counters shared by every tenant.
 */
export function entityTag(parts: readonly string[]): string {
  const digest = createHash('sha256').update(BUILD).update('\0').update(parts.join('\0')).digest('base64url');
  return `W/"${digest.slice(0, 27)}"`;
}

/** If-None-Match holds this tag (weak comparison, as for GET), or `*`. */
export function matchesIfNoneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const opaque = (value: string) => value.trim().replace(/^W\//, '');
  const wanted = opaque(tag);
  for (const value of (Array.isArray(header) ? header : [header]).flatMap((h) => h.split(','))) {
    const candidate = value.trim();
    if (candidate === '*' || opaque(candidate) === wanted) return true;
  }
  return false;
}

/** Ends a conditional GET whose representation did not change: 304 with the tag, no body. */
export class NotModifiedException extends EarlyAnswer {
  constructor(readonly tag: string) {
    super('Not Modified', 304);
  }

  send(reply: FastifyReply): void {
    void reply.header('etag', this.tag).status(304).send();
  }
}
