import { selectRows, type SqlExecutor } from './sql.js';

/**
 * Whether a tenant table holds a record with this id at all. Asked, by id alone, only after the
 * read for the caller's enterprise found nothing: a record of another enterprise answers 403 and
 * an unknown id 404, as the API promises, while every statement on the path of a found record
 * names the enterprise (in a distributed database this one look-up goes to every node, and only
 * on a miss).
 */
export async function existsInAnyEnterprise(db: SqlExecutor, table: string, id: string): Promise<boolean> {
  const [row] = await selectRows<{ found: boolean }>(
    db,
    `SELECT EXISTS (SELECT 1 FROM ${table} WHERE id = $1) AS found`,
    [id],
  );
  return row?.found === true;
}
