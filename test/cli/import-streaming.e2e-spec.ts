import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { importDocument } from '../../src/cli/import/importer.js';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { TEST_APP_KEY, type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const CLI = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

/** Writes a file record by record, so the test itself never holds it whole. */
async function writeLines(file: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(file);
  for (const line of lines) if (!out.write(line)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

function* leadsFile(enterpriseId: string, count: number, descriptionChars: number): Generator<string> {
  yield '{"leads":[\n';
  for (let i = 0; i < count; i++) {
    const lead = {
      id: randomUUID(),
      enterprise_id: enterpriseId,
      title: `Lead ${i}`,
      description: `${i} `.padEnd(descriptionChars, 'x'),
    };
    yield `${i === 0 ? '' : ',\n'}${JSON.stringify(lead)}`;
  }
  yield '\n]}\n';
}

function person(enterpriseId: string, i: number): Record<string, unknown> {
  return {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    first_name: `First ${i}`,
    last_name: `Last ${i}`,
    phone_numbers: [{ id: randomUUID(), type: 'mobile', number: `0400 ${i}`, is_primary: true }],
    emails: [{ id: randomUUID(), address: `p${i}-${randomUUID().slice(0, 6)}@example.com`, is_primary: true }],
  };
}

describe('streaming import (issue 17)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-stream-'));
  const env = (): Record<string, string> => ({
    DATABASE_URL: t.database.url,
    DATABASE_POOL_MAX: '1',
    APP_KEY: TEST_APP_KEY,
  });

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  async function tableCounts(): Promise<Record<string, number>> {
    const tables = ['people', 'phone_numbers', 'emails', 'leads', 'enterprises', 'users'];
    const rows = await selectRows<{ name: string; n: number }>(
      t.dataSource,
      tables.map((name) => `SELECT '${name}' AS name, count(*)::int AS n FROM ${name}`).join(' UNION ALL '),
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }

  it('counts a person whose only change is a nested row as updated, and deletes a nested row left out', async () => {
    const record = person(tenant.enterpriseId, 1);
    const phones = [
      { id: randomUUID(), type: 'mobile', number: '0400 000 001', is_primary: true },
      { id: randomUUID(), type: 'work', number: '0400 000 002', is_primary: false },
    ];
    const first = await importDocument(t.dataSource, t.cipher, { people: [{ ...record, phone_numbers: phones }] });
    expect(first).toMatchObject({ ok: true, counts: { people: { total: 1, created: 1, updated: 0 } } });
    const [before] = await selectRows<{ updated_at: Date }>(
      t.dataSource,
      `SELECT updated_at FROM people WHERE id = $1`,
      [record.id],
    );

    const changedNumber = [{ ...phones[0], number: '0411 111 111' }, phones[1]];
    const numberChange = await importDocument(t.dataSource, t.cipher, {
      people: [{ ...record, phone_numbers: changedNumber }],
    });
    expect(numberChange).toMatchObject({ ok: true, counts: { people: { total: 1, created: 0, updated: 1 } } });

    const removal = await importDocument(t.dataSource, t.cipher, {
      people: [{ ...record, phone_numbers: [changedNumber[0]] }],
    });
    expect(removal).toMatchObject({ ok: true, counts: { people: { total: 1, created: 0, updated: 1 } } });
    const left = await selectRows<{ id: string }>(t.dataSource, `SELECT id FROM phone_numbers WHERE person_id = $1`, [
      record.id,
    ]);
    expect(left).toEqual([{ id: phones[0]?.id }]);

    const same = await importDocument(t.dataSource, t.cipher, {
      people: [{ ...record, phone_numbers: [changedNumber[0]] }],
    });
    expect(same).toMatchObject({ ok: true, counts: { people: { total: 1, created: 0, updated: 0 } } });
    // The person's own row was never rewritten.
    const [after] = await selectRows<{ updated_at: Date }>(
      t.dataSource,
      `SELECT updated_at FROM people WHERE id = $1`,
      [record.id],
    );
    expect(after?.updated_at).toEqual(before?.updated_at);
  });

  it('counts a user whose only change is a membership as updated', async () => {
    const { doc } = tenantDocument();
    expect((await importDocument(t.dataSource, t.cipher, doc)).ok).toBe(true);
    const users = (doc.users ?? []).map((u) => ({ ...u, enterprise_ids: [tenant.enterpriseId] }));
    const outcome = await importDocument(t.dataSource, t.cipher, { users });
    expect(outcome).toMatchObject({ ok: true, counts: { users: { total: 2, created: 0, updated: 2 } } });
  });

  it('rewrites an encrypted value only when its plaintext changes, and keeps a provider B key left out', async () => {
    const enterprise = { id: randomUUID(), name: 'Keyed', signprovider_b_key: 'key-one' };
    const record = person(enterprise.id, 2);
    expect((await importDocument(t.dataSource, t.cipher, { enterprises: [enterprise], people: [record] })).ok).toBe(
      true,
    );
    const stored = async () =>
      (
        await selectRows<{ name: string; key: string }>(
          t.dataSource,
          `SELECT p.first_name_encrypted AS name, e.signprovider_b_key_encrypted AS key
             FROM people p JOIN enterprises e ON e.id = p.enterprise_id WHERE p.id = $1`,
          [record.id],
        )
      )[0];
    const first = await stored();
    const { signprovider_b_key: _left, ...withoutKey } = enterprise;
    const again = await importDocument(t.dataSource, t.cipher, { enterprises: [withoutKey], people: [record] });
    expect(again).toMatchObject({ ok: true, counts: { enterprises: { updated: 0 }, people: { updated: 0 } } });
    expect(await stored()).toEqual(first);

    const renamed = await importDocument(t.dataSource, t.cipher, { people: [{ ...record, first_name: 'Renamed' }] });
    expect(renamed).toMatchObject({ ok: true, counts: { people: { updated: 1 } } });
    const now = await stored();
    expect(now?.key).toBe(first?.key);
    expect(now?.name).not.toBe(first?.name);
    expect(t.cipher.decrypt(now?.name ?? '')).toBe('Renamed');
  });

  it('reports the first 1,000 problems with their paths and the total count', async () => {
    const before = await tableCounts();
    const leads = Array.from({ length: 1500 }, (_, i) => ({ id: `lead-${i}`, title: 'x' }));
    const outcome = await importDocument(t.dataSource, t.cipher, { leads });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems).toHaveLength(1000);
    expect(outcome.problemCount).toBe(3000);
    expect(outcome.problems[0]).toBe('leads[0].id: must be a UUID');
    expect(outcome.problems[999]).toBe('leads[499].enterprise_id: is required');
    expect(await tableCounts()).toEqual(before);

    const file = join(dir, 'many-problems.json');
    writeFileSync(file, JSON.stringify({ leads }));
    const run = await runCli(['import', file], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('leads['))).toHaveLength(1000);
    expect(run.stderr).toContain(
      'The import was rejected: 3000 problem(s) (the first 1000 are listed); nothing was written.',
    );
  });

  it('finds duplicates across the file in SQL: nested ids, user emails, provider document ids', async () => {
    const phone = { id: randomUUID(), type: 'mobile', number: '0400', is_primary: true };
    const email = `dup-${randomUUID().slice(0, 8)}@example.com`;
    const user = (i: number) => ({ id: randomUUID(), name: `U${i}`, email, password: 'long-enough-1' });
    const document = (i: number) => ({
      id: randomUUID(),
      enterprise_id: tenant.enterpriseId,
      provider: 'a',
      external_id: `dup-doc-${email}`,
      status: i === 0 ? 'sent' : 'viewed',
    });
    const outcome = await importDocument(t.dataSource, t.cipher, {
      users: [user(0), user(1)],
      people: [
        { ...person(tenant.enterpriseId, 0), phone_numbers: [phone] },
        { ...person(tenant.enterpriseId, 1), phone_numbers: [phone] },
      ],
      organisations: [
        { id: randomUUID(), enterprise_id: tenant.enterpriseId, legal_name: 'O', phone_numbers: [phone] },
      ],
      signing_documents: [document(0), document(1)],
    });
    expect(outcome.ok ? [] : outcome.problems).toEqual([
      'people[1].phone_numbers[0].id: duplicates people[0].phone_numbers[0].id',
      'organisations[0].phone_numbers[0].id: duplicates people[0].phone_numbers[0].id',
      'users[1].email: duplicates users[0].email',
      'signing_documents[1].external_id: duplicates signing_documents[0].external_id',
    ]);
  });

  it('reports a section that is not an array, and reads the sections after it', async () => {
    const outcome = await importDocument(t.dataSource, t.cipher, {
      people: { id: 'x' },
      leads: null,
      widgets: [{ nested: [1, 2] }],
      applications: [{ id: 'not-a-uuid', enterprise_id: tenant.enterpriseId }],
    });
    expect(outcome.ok ? [] : outcome.problems).toEqual([
      'people: must be an array',
      'leads: must not be null',
      'widgets: is not a section of the import format',
      'applications[0].id: must be a UUID',
    ]);
  });

  it('caps problems found in SQL too, counting them all', async () => {
    const missing = randomUUID();
    const people = Array.from({ length: 1200 }, (_, i) => ({ ...person(missing, i) }));
    const outcome = await importDocument(t.dataSource, t.cipher, { people });
    expect(outcome).toMatchObject({ ok: false, problemCount: 1200 });
    if (outcome.ok) return;
    expect(outcome.problems).toHaveLength(1000);
    expect(outcome.problems[0]).toBe(`people[0].enterprise_id: no enterprise has the id ${missing}`);
  });

  it('writes nothing when the last record of a large file has a problem', async () => {
    const before = await tableCounts();
    const file = join(dir, 'last-bad.json');
    const count = 3000;
    const missing = randomUUID();
    await writeLines(
      file,
      (function* () {
        yield '{"people":[\n';
        for (let i = 0; i < count; i++) {
          const record = person(i === count - 1 ? missing : tenant.enterpriseId, i);
          yield `${i === 0 ? '' : ',\n'}${JSON.stringify(record)}`;
        }
        yield '\n]}\n';
      })(),
    );
    const run = await runCli(['import', file], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`people[${count - 1}].enterprise_id: no enterprise has the id ${missing}`);
    expect(run.stderr).toContain('1 problem(s); nothing was written.');
    expect(await tableCounts()).toEqual(before);

    const badField = join(dir, 'last-bad-field.json.gz');
    const people = Array.from({ length: 2000 }, (_, i) => person(tenant.enterpriseId, i));
    people[1999] = { ...people[1999], birthday: '1985-13-40' };
    writeFileSync(badField, gzipSync(JSON.stringify({ people })));
    const gzRun = await runCli(['import', badField], { env: env() });
    expect(gzRun.code).toBe(1);
    expect(gzRun.stderr).toContain('people[1999].birthday: must be a date (YYYY-MM-DD)');
    expect(await tableCounts()).toEqual(before);
  });

  it('reads .json.gz files, and says so when one is not gzip', async () => {
    const { doc } = tenantDocument();
    const file = join(dir, 'tenant.json.gz');
    writeFileSync(file, gzipSync(JSON.stringify(doc)));
    const run = await runCli(['import', file], { env: env() });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('users: 2 (2 created, 0 updated, 0 unchanged)');

    const fake = join(dir, 'plain.json.gz');
    writeFileSync(fake, JSON.stringify(doc));
    const bad = await runCli(['import', fake], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${fake}: is not a valid gzip file`);
  });

  it('streams a file larger than the heap limit, with progress lines on a pipe and list totals kept right', async () => {
    const file = join(dir, 'large.json');
    // About 1.3 times the heap: room above the importer's bounded working set (a staged batch
    // and the one being parsed) for a machine slow enough to keep both in memory at once. With a
    // 64 MiB heap and a 95 MiB file it ran out of heap in about one run of three on a loaded
    // two-core machine.
    const count = 1300;
    const size = await writeLines(file, leadsFile(tenant.enterpriseId, count, 100_000));
    const heapMiB = 96;
    expect(size).toBeGreaterThan(heapMiB * 1024 * 1024);
    // A process of its own: its heap limit is what the test is about.
    const run = await runCliProcess(['import', file, '--progress-interval', '0.05'], {
      ...env(),
      NODE_OPTIONS: `--max-old-space-size=${heapMiB}`,
    });
    expect(run.stderr).not.toContain('heap');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`leads: ${count} (${count} created, 0 updated, 0 unchanged)`);
    // Standard output carries the summary only; progress goes to standard error, a line at a time.
    expect(run.stdout).not.toContain('import:');
    const lines = run.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) {
      expect(line).toMatch(
        /^import: [a-z_ ]+, [\d.]+ MB of [\d.]+ MB read \(\d+%\), [\d,]+ records, [\d,]+ records\/s, \d+:\d\d$/,
      );
    }
    expect(lines.at(-1)).toMatch(new RegExp(`^import: done, .* \\(100%\\), ${count.toLocaleString('en')} records`));

    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    const [counted] = await selectRows<{ n: number }>(
      t.dataSource,
      `SELECT count(*)::int AS n FROM leads WHERE enterprise_id = $1`,
      [tenant.enterpriseId],
    );
    expect(res.json<{ meta: { total: number } }>().meta.total).toBe(counted?.n);
    expect(counted?.n).toBeGreaterThanOrEqual(count);
  });

  it('redraws one progress line on a terminal and keeps standard output for the summary', async () => {
    const file = join(dir, 'tty.json');
    await writeLines(file, leadsFile(tenant.enterpriseId, 200, 20_000));
    const stdoutFile = join(dir, 'tty-stdout.txt');
    const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
    const command = `${quote(process.execPath)} ${quote(CLI)} import ${quote(file)} > ${quote(stdoutFile)}`;
    // `script` (util-linux) runs the command on a pseudo-terminal: standard error is a TTY there.
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', TERM: 'xterm', ...env() },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let terminal = '';
    child.stdout.on('data', (chunk: Buffer) => (terminal += chunk.toString()));
    child.stdin.end();
    const [code] = (await once(child, 'close')) as [number];
    expect(code).toBe(0);
    expect(terminal).toContain('\r\x1b[2Kimport: ');
    expect(terminal).toMatch(/import: done, [\d.]+ MB of [\d.]+ MB read \(100%\), 200 records/);
    expect(terminal).not.toContain('Imported:');
    const stdout = readFileSync(stdoutFile, 'utf8');
    expect(stdout).toContain('leads: 200 (200 created, 0 updated, 0 unchanged)');
    expect(stdout).not.toContain('import:');
  });
});
