import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { importFixture } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/test-app.js';

/**
 * People and organisations are written by PostgreSQL (each record's JSON, nested rows
 * aggregated): the text must be exactly what JSON.stringify gives for the same record, whatever
 * the strings hold, with nested rows in their stored order and zero amounts kept.
 */
describe('export: the text of people and organisations', () => {
  let t: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-export-text-'));
  const enterpriseId = randomUUID();
  const tricky = 'quote " backslash \\ tab \t line\nreturn\r control \u0001\u001f é 中 😀 \u2028 </script>';
  const person = {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    title: tricky,
    first_name: `First ${tricky}`,
    middle_name: null,
    last_name: 'Citizen',
    birthday: '1990-02-28',
    dependents: 2,
    created_at: '2026-01-02T03:04:05.678Z',
    updated_at: '2026-01-03T03:04:05.001Z',
    phone_numbers: [
      { id: randomUUID(), type: 'work', number: tricky, is_primary: false, created_at: '2026-01-02T00:00:02.000Z' },
      { id: randomUUID(), type: 'mobile', number: '0400', is_primary: true, created_at: '2026-01-02T00:00:01.000Z' },
    ],
    emails: [],
    addresses: [{ id: randomUUID(), type: 'Home', line1: tricky, suburb: 'Sydney', postcode: '2000' }],
    financials: [
      { id: randomUUID(), type: 'expense', amount: 0, category: 'zero', created_at: '2026-01-02T00:00:01.500Z' },
      { id: randomUUID(), type: 'income', amount: -12.5, category: null, created_at: '2026-01-02T00:00:01.250Z' },
    ],
  };
  const organisation = {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    legal_name: tricky,
    gst_registered: true,
    employees_count: 12,
    phone_numbers: [{ id: randomUUID(), type: 'main', number: '02 9999 0000', is_primary: true }],
  };

  beforeAll(async () => {
    t = await createTestApp();
    await importFixture(t, {
      enterprises: [{ id: enterpriseId, name: 'Text Finance' }],
      people: [person],
      organisations: [organisation],
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('writes each record as JSON.stringify would, nested rows oldest first', async () => {
    const file = join(dir, 'export.json');
    const run = await runCli(['export', '--output', file], {
      env: { DATABASE_URL: t.database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY },
    });
    expect(run.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').filter((line) => line.startsWith('{"id":'));
    const [personLine] = lines.filter((line) => line.includes(person.id) && line.includes('"first_name"'));
    const [organisationLine] = lines.filter((line) => line.includes(organisation.id) && line.includes('legal_name'));
    for (const line of [personLine, organisationLine]) {
      const json = (line ?? '').replace(/,$/, '');
      expect(JSON.stringify(JSON.parse(json))).toBe(json);
    }
    const exported = JSON.parse((personLine ?? '').replace(/,$/, '')) as Record<string, unknown>;
    expect(exported.first_name).toBe(person.first_name);
    expect(exported.title).toBe(tricky);
    expect(Object.keys(exported).slice(0, 5)).toEqual(['id', 'enterprise_id', 'title', 'first_name', 'middle_name']);
    const numbers = exported.phone_numbers as { number: string }[];
    expect(numbers.map((p) => p.number)).toEqual(['0400', tricky]);
    const financials = exported.financials as { amount: string; category: string | null }[];
    expect(financials).toEqual([
      expect.objectContaining({ amount: '-12.50', category: null }),
      expect.objectContaining({ amount: '0.00', category: 'zero' }),
    ]);
    const organisationRecord = JSON.parse((organisationLine ?? '').replace(/,$/, '')) as Record<string, unknown>;
    expect(organisationRecord).toMatchObject({ legal_name: tricky, gst_registered: true, employees_count: 12 });
  });
});
