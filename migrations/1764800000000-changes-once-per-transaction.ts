import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A record's change-log entry is written once per transaction and action. Every capture
 * function upserted the entry of each record its statement touched, so an import's nested rows
 * (phone numbers, emails, addresses, financials) rewrote the entries of all the people the same
 * transaction had just logged: 100,000 log rows rewritten per nested table, about a second each.
 * An entry the transaction already wrote with the same action now stays where the transaction
 * first put it; readers see it at commit either way. A later transaction, or another action (a
 * record removed after it was written), moves it as before.
 *
 * "Written by this transaction": the row version's xmin is the transaction's and its position
 * is at or after the first one the transaction took, which change_log_register now keeps for
 * the transaction (no older row version can match both, even one whose 32-bit xmin came round
 * again). An entry written under a savepoint has another xmin and is simply written again.
 *
 * Every capture function (whichever migration wrote it) has the same upsert; the condition is
 * added to each in place, so their entries are untouched.
 */
const SET_END = 'changed_at = EXCLUDED.changed_at';
const ONCE = `${SET_END} WHERE NOT coalesce(c.action = EXCLUDED.action AND c.xmin = pg_current_xact_id()::xid
           AND c.seq >= nullif(current_setting('change_log.first_seq', true), '')::bigint, false)`;

const FIRST_POSITION = `PERFORM pg_advisory_xact_lock_shared(nextval('change_log_seq'));`;
const KEEP_FIRST_POSITION = `${FIRST_POSITION}
      PERFORM set_config('change_log.first_seq', currval('change_log_seq')::text, true);`;

async function definitions(q: QueryRunner, pattern: string): Promise<{ name: string; definition: string }[]> {
  return (await q.query(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition FROM pg_proc p
      WHERE p.proname LIKE $1 AND p.pronamespace = current_schema()::regnamespace`,
    [pattern],
  )) as { name: string; definition: string }[];
}

/**
 * Rewrites `from` to `to` in each function matching `pattern`; a function that already holds
 * the longer of the two texts (the form `up` writes) counts as done going up, and one without it
 * as done going down.
 */
async function rewrite(q: QueryRunner, pattern: string, from: string, to: string): Promise<void> {
  const found = await definitions(q, pattern);
  if (found.length === 0) throw new Error(`No function ${pattern} to rewrite`);
  const up = to.length > from.length;
  for (const { name, definition } of found) {
    if (up ? definition.includes(to) : !definition.includes(from)) continue;
    if (!definition.includes(from)) throw new Error(`${name}: "${from}" not found`);
    await q.query(definition.replaceAll(from, to));
  }
}

export class ChangesOncePerTransaction1764800000000 implements MigrationInterface {
  name = 'ChangesOncePerTransaction1764800000000';

  public async up(q: QueryRunner): Promise<void> {
    await rewrite(q, 'change_log_register', FIRST_POSITION, KEEP_FIRST_POSITION);
    await rewrite(q, 'change\\_log\\_capture\\_%', SET_END, ONCE);
  }

  public async down(q: QueryRunner): Promise<void> {
    await rewrite(q, 'change\\_log\\_capture\\_%', ONCE, SET_END);
    await rewrite(q, 'change_log_register', KEEP_FIRST_POSITION, FIRST_POSITION);
  }
}
