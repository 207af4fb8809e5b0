import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** One enterprise, three people and two organisations with nested rows, fresh ids each time. */
function document() {
  const id = () => randomUUID();
  const enterprise = id();
  const [p1, p2, p3, o1, o2] = [id(), id(), id(), id(), id()];
  const ids = { phone: id(), email: id(), financial: id(), address: id(), otherAddress: id() };
  return {
    enterprises: [{ id: enterprise, name: 'Summary Finance', is_active: true }],
    people: [
      {
        id: p1,
        enterprise_id: enterprise,
        first_name: 'Jane',
        last_name: 'Citizen',
        phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0400 000 000', is_primary: true }],
        emails: [{ id: ids.email, address: 'jane@example.com', is_primary: true }],
      },
      {
        id: p2,
        enterprise_id: enterprise,
        first_name: 'John',
        last_name: 'Citizen',
        financials: [{ id: ids.financial, type: 'income', amount: '5200.00', category: 'salary and wages' }],
      },
      { id: p3, enterprise_id: enterprise, first_name: 'Jim', last_name: 'Unchanged' },
    ],
    organisations: [
      {
        id: o1,
        enterprise_id: enterprise,
        legal_name: 'Acme Pty Ltd',
        addresses: [{ id: ids.address, type: 'Business', line1: '1 Main St', suburb: 'Sydney' }],
      },
      {
        id: o2,
        enterprise_id: enterprise,
        legal_name: 'Other Pty Ltd',
        addresses: [{ id: ids.otherAddress, type: 'Business', line1: '2 Side St', suburb: 'Perth' }],
      },
    ],
  };
}

/**
 * Issue 13: a re-import whose only change to a person or organisation is in its nested rows
 * (phones, emails, addresses, financials) wrote that record's data, so the summary counts it
 * as updated, never as unchanged.
 */
describe('import summary counts nested-only changes (issue 13)', () => {
  let database: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-summary-'));
  const env = (): Record<string, string> => ({
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '1',
    APP_KEY: TEST_APP_KEY,
  });
  const importFile = async (name: string, doc: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(doc));
    const run = await runCli(['import', file], { env: env() });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return run.stdout;
  };

  beforeAll(async () => {
    database = await acquireTestDatabase();
  });
  afterAll(async () => {
    await database.release();
  });

  it('counts a changed phone, a removed email, a changed financial and a changed address as updates of their owners', async () => {
    const doc = document();
    expect(await importFile('first.json', doc)).toContain('people: 3 (3 created, 0 updated, 0 unchanged)');

    const [p1, p2, p3] = doc.people;
    const [o1, o2] = doc.organisations;
    const changed = {
      enterprises: doc.enterprises,
      people: [
        // The phone's number changes and the only email is removed; the person's own columns stay.
        { ...p1, phone_numbers: [{ ...p1?.phone_numbers?.[0], number: '0411 111 111' }], emails: [] },
        { ...p2, financials: [{ ...p2?.financials?.[0], amount: '6100.00' }] },
        p3,
      ],
      organisations: [{ ...o1, addresses: [{ ...o1?.addresses?.[0], suburb: 'Newtown' }] }, o2],
    };
    const stdout = await importFile('changed.json', changed);
    expect(stdout).toContain('enterprises: 1 (0 created, 0 updated, 1 unchanged)');
    expect(stdout).toContain('people: 3 (0 created, 2 updated, 1 unchanged)');
    expect(stdout).toContain('organisations: 2 (0 created, 1 updated, 1 unchanged)');

    // The same file again changes nothing, and says so.
    const again = await importFile('again.json', changed);
    expect(again).toContain('people: 3 (0 created, 0 updated, 3 unchanged)');
    expect(again).toContain('organisations: 2 (0 created, 0 updated, 2 unchanged)');
  });

  it('counts a person whose own columns and nested rows both changed once', async () => {
    const doc = document();
    await importFile('both-first.json', doc);
    const [p1, p2, p3] = doc.people;
    const stdout = await importFile('both.json', {
      enterprises: doc.enterprises,
      people: [{ ...p1, last_name: 'Married', emails: [] }, p2, p3],
    });
    expect(stdout).toContain('people: 3 (0 created, 1 updated, 2 unchanged)');
  });

  it('counts a newly added nested row as an update of an existing owner', async () => {
    const doc = document();
    await importFile('added-first.json', doc);
    const [p1, p2, p3] = doc.people;
    const stdout = await importFile('added.json', {
      enterprises: doc.enterprises,
      people: [p1, p2, { ...p3, emails: [{ id: randomUUID(), address: 'jim@example.com', is_primary: true }] }],
    });
    expect(stdout).toContain('people: 3 (0 created, 1 updated, 2 unchanged)');
  });
});
