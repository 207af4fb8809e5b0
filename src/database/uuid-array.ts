/** The canonical text of a uuid, as PostgreSQL writes one: 8-4-4-4-12 hex digits. */
function isUuidText(id: string): boolean {
  if (id.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) {
      return false;
    }
  }
  return true;
}

/**
 * A `uuid[]` parameter for ids read from the database: the array literal written with one join
 * when every id is a uuid, rather than pg's general array writer, which escapes and quotes each
 * element in strings of its own (a feed page of 500 records passes its ids to five queries).
 * Anything else is handed to pg as it is, to be escaped.
 */
export function uuidArray(ids: readonly string[]): string | readonly string[] {
  return ids.every(isUuidText) ? `{${ids.join(',')}}` : ids;
}
