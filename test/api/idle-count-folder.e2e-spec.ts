import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FOLD_INTERVAL_MS, IDLE_FOLD_INTERVAL_MS, nextFoldWait } from '../../src/database/count-folder.js';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('the row-count folder of an idle process', () => {
  it('folds every second while it finds deltas, and doubles its wait up to 5 minutes while it finds none', () => {
    expect(nextFoldWait(FOLD_INTERVAL_MS, 3)).toBe(FOLD_INTERVAL_MS);
    expect(nextFoldWait(8_000, 1)).toBe(FOLD_INTERVAL_MS);
    expect(nextFoldWait(FOLD_INTERVAL_MS, 0)).toBe(2_000);
    expect(nextFoldWait(16_000, 0)).toBe(32_000);
    expect(nextFoldWait(256_000, 0)).toBe(IDLE_FOLD_INTERVAL_MS);
    expect(IDLE_FOLD_INTERVAL_MS).toBe(300_000);
    expect(nextFoldWait(IDLE_FOLD_INTERVAL_MS, 0)).toBe(IDLE_FOLD_INTERVAL_MS);
  });

  describe('in a running application', () => {
    let t: TestApp;
    const { doc, tenant } = tenantDocument();

    beforeAll(async () => {
      t = await createTestApp();
      await importFixture(t, doc);
    });
    afterAll(async () => {
      await t.close();
    });

    function countFolds() {
      const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
      return {
        folds: () => spy.mock.calls.filter(([sql]) => sql.includes('tenant_counts_fold(')).length,
        stop: () => spy.mockRestore(),
      };
    }

    it('sends fewer and fewer folds while nothing is written (2 in 6 s where it sent 6), and folds again soon after a write', async () => {
      await sleep(3_500); // the deltas of the import folded, the wait growing
      const idle = countFolds();
      try {
        await sleep(6_000);
        expect(idle.folds()).toBeLessThanOrEqual(3);
      } finally {
        idle.stop();
      }
      const headers = apiHeaders(
        'v2',
        await loginToken(t.app, tenant.user.email, tenant.user.password),
        tenant.enterpriseId,
      );
      const afterWrite = countFolds();
      try {
        const lead = await t.app.inject({
          method: 'POST',
          url: '/api/v2/leads',
          headers,
          payload: { title: 'Counted', person_name: 'Cy' },
        });
        expect(lead.statusCode).toBe(201);
        await sleep(FOLD_INTERVAL_MS + 700);
        expect(afterWrite.folds()).toBeGreaterThanOrEqual(1);
      } finally {
        afterWrite.stop();
      }
    });
  });
});
