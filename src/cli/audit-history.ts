import { z } from 'zod';
import { AUDIT_ACTIONS } from '../audit/audit-trail.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { chars, id } from './import/import-fields.js';
import { realEnterprise } from '../database/no-enterprise.js';

/**
 * The audit trail in an export file: a last top-level key after the record sections, read back
 * by the importer, which appends the entries it does not hold yet (by id) and never changes one.
 * A restore from an export keeps the enterprise's history.
 */
export const AUDIT_SECTION = 'audit_events';

const nullableId = id.nullable().default(null);

export const auditEventRecord = z.strictObject({
  id,
  enterprise_id: id,
  occurred_at: z.iso.datetime({ offset: true }),
  actor: z.enum(['user', 'cli', 'system']),
  actor_user_id: nullableId,
  actor_token_id: nullableId,
  action: z.enum(AUDIT_ACTIONS),
  target_type: chars(32, { required: true }),
  target_id: chars(255).nullable().default(null),
  details: z.record(z.string(), z.unknown()).default({}),
  client_ip: chars(64).nullable().default(null),
  request_id: chars(128).nullable().default(null),
});
export type AuditEventInput = z.output<typeof auditEventRecord>;

/** The SELECT list that reads an entry back as the file's record. */
export const AUDIT_EXPORT_COLUMNS = `id, enterprise_id,
  to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
  actor, actor_user_id, actor_token_id, action, target_type, target_id, details, client_ip, request_id`;

const BATCH = 1_000;
const RECORDSET = `jsonb_to_recordset($1::jsonb) AS s(ord int, id uuid, enterprise_id uuid, occurred_at timestamptz,
  actor varchar, actor_user_id uuid, actor_token_id uuid, action varchar, target_type varchar, target_id varchar,
  details jsonb, client_ip varchar, request_id varchar)`;

/**
 * Appends the file's entries that are not stored yet, after the records are written (their
 * enterprises exist by then). Returns a problem for each entry of an enterprise that neither the
 * file nor the database holds; with problems nothing is appended.
 */
export async function appendAuditHistory(
  db: SqlExecutor,
  entries: readonly AuditEventInput[],
): Promise<{ path: (string | number)[]; message: string }[]> {
  const batches: string[] = [];
  for (let start = 0; start < entries.length; start += BATCH) {
    batches.push(JSON.stringify(entries.slice(start, start + BATCH).map((entry, i) => ({ ord: start + i, ...entry }))));
  }
  const problems: { path: (string | number)[]; message: string }[] = [];
  for (const batch of batches) {
    const unknown = await selectRows<{ ord: number }>(
      db,
      `SELECT s.ord FROM ${RECORDSET} WHERE NOT EXISTS (SELECT 1 FROM enterprises e WHERE e.id = s.enterprise_id AND ${realEnterprise('e')})
        ORDER BY s.ord`,
      [batch],
    );
    for (const { ord } of unknown) {
      problems.push({
        path: [AUDIT_SECTION, ord, 'enterprise_id'],
        message: 'is not an enterprise of the file or the database',
      });
    }
  }
  if (problems.length > 0) return problems;
  for (const batch of batches) {
    await db.query(
      `INSERT INTO audit_events (id, enterprise_id, occurred_at, actor, actor_user_id, actor_token_id, action,
                                 target_type, target_id, details, client_ip, request_id)
       SELECT id, enterprise_id, occurred_at, actor, actor_user_id, actor_token_id, action,
              target_type, target_id, details, client_ip, request_id FROM ${RECORDSET}
        WHERE NOT EXISTS (SELECT 1 FROM audit_events a WHERE a.id = s.id)
       ON CONFLICT DO NOTHING`,
      [batch],
    );
  }
  return [];
}
