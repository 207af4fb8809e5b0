import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { IMPORT_LOCK, importStream } from '../../src/cli/import/importer.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The primary keys of applications, quotes and signing documents include `enterprise_id`, so the
 * database no longer refuses one id in two enterprises; an import decides between updating and
 * creating a record by looking its id up, and imports run one at a time (an advisory lock held
 * for the import's transaction), so two imports cannot both create the same id. A real server:
 * the embedded one serves every connection from one session, where the lock never waits.
 */
describe('imports run one at a time', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
  });
  afterAll(async () => {
    await t?.close();
  });

  const application = (id: string, enterpriseId: string) => ({
    applications: [{ id, enterprise_id: enterpriseId, settlement_date_actual: null, contract_number: 'C-1' }],
  });

  it('an import waits for the one before it, then finds what that one wrote', async () => {
    const id = randomUUID();
    const first = new pg.Client(t.database.url);
    await first.connect();
    try {
      // The first import, holding its lock, has written the application but not committed.
      await first.query('BEGIN');
      await first.query('SELECT pg_advisory_xact_lock($1, 0)', [IMPORT_LOCK]);
      await first.query(
        `INSERT INTO applications (id, enterprise_id, contract_number, created_at, updated_at)
         VALUES ($1, $2, 'C-0', now(), now())`,
        [id, tenant.enterpriseId],
      );
      let finished = false;
      // Its progress says why it waits (what an operator sees on the import's progress line).
      const phases: string[] = [];
      const progress = { phase: (name: string) => phases.push(name), addRecords: () => {}, finish: () => {} };
      const file = JSON.stringify(application(id, tenant.otherEnterpriseId));
      const second = importStream(t.dataSource, t.cipher, () => [file], progress).then((outcome) => {
        finished = true;
        return outcome;
      });
      let waiting = 0;
      for (let i = 0; i < 100 && waiting === 0; i++) {
        const [row] = await selectRows<{ waiting: number }>(
          t.dataSource,
          `SELECT count(*)::int AS waiting FROM pg_locks
            WHERE locktype = 'advisory' AND classid = $1 AND NOT granted`,
          [IMPORT_LOCK],
        );
        waiting = row?.waiting ?? 0;
        if (waiting === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(waiting).toBe(1);
      expect(finished).toBe(false);
      expect(phases.at(-1)).toBe('waiting for another import to finish');
      await first.query('COMMIT');
      expect((await second).ok).toBe(true);
    } finally {
      await first.end();
    }
    // The second import saw the first one's application and moved it: one record, not two.
    const rows = await selectRows<{ enterprise_id: string }>(
      t.dataSource,
      `SELECT enterprise_id FROM applications WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ enterprise_id: tenant.otherEnterpriseId }]);
  });
});
