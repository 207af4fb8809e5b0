import { createHash } from 'node:crypto';
import type { ChangeSliceEntry } from '../changes/change-slice.js';
import { CHANGE_TYPES, type ChangeEntry, type ChangeType } from '../changes/change-types.js';

/** The types an endpoint receives: all of them when it names none. */
export function typesOf(types: readonly string[]): ChangeType[] {
  return types.length === 0 ? [...CHANGE_TYPES] : CHANGE_TYPES.filter((type) => types.includes(type));
}

/**
 * The `webhook-id` of an entry for an endpoint: the same on every retry and in every process (a
 * receiver drops the copies it has seen), a new one when the record changes again or the
 * endpoint is replayed (`generation`).
 */
export function webhookIdOf(endpointId: string, generation: number, entry: ChangeSliceEntry): string {
  const key = `${endpointId}:${generation}:${entry.entry.type}:${entry.entry.id}:${entry.position.xid}:${entry.position.seq}`;
  return `msg_${createHash('sha256').update(key).digest('base64url').slice(0, 27)}`;
}

/** What an endpoint receives for an entry: the event type, its time and the feed entry itself. */
export function eventOf(entry: ChangeEntry): { type: string; timestamp: string; data: ChangeEntry } {
  return { type: `${entry.type}.${entry.action}`, timestamp: entry.changed_at, data: entry };
}
