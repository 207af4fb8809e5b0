import { isUuid } from './uuid.js';

/**
 * A `uuid[]` parameter for ids read from the database: the array literal written with one join
 * when every id is a uuid, rather than pg's general array writer, which escapes and quotes each
 * element in strings of its own (a feed page of 500 records passes its ids to five queries).
 * Anything else is handed to pg as it is, to be escaped.
 */
export function uuidArray(ids: readonly string[]): string | readonly string[] {
  return ids.every(isUuid) ? `{${ids.join(',')}}` : ids;
}
