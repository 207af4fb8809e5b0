import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/test-app.js';
import { FIXTURE_SECTIONS, twoTenants } from '../helpers/two-tenants.js';

type ExportFile = Record<string, Record<string, unknown>[]>;

const dir = mkdtempSync(join(tmpdir(), 'finance-intake-export-'));
const cliEnv = (t: TestApp): Record<string, string> => ({
  DATABASE_URL: t.database.url,
  DATABASE_POOL_MAX: '1',
  APP_KEY: TEST_APP_KEY,
});

/** The fixture data of the API suites: two tenants with every resource, plus keys and extra rows. */
function fixture() {
  const { doc, own, foreign } = twoTenants();
  const [first, second] = doc.enterprises ?? [];
  doc.enterprises = [{ ...first, signprovider_b_key: 'own-provider-b-key' }, second ?? {}];
  doc.people?.push({
    id: randomUUID(),
    enterprise_id: own.enterpriseId,
    first_name: 'Zoë',
    last_name: 'Tab\tand "quotes" \\ back',
    birthday: '1990-02-28',
    created_at: '2026-01-02T03:04:05.678Z',
    updated_at: '2026-01-03T03:04:05.001Z',
    financials: [{ id: randomUUID(), type: 'income', amount: 1234.5, category: null }],
  });
  doc.leads?.push({
    id: randomUUID(),
    enterprise_id: own.enterpriseId,
    title: 'Mixed',
    finance_amount: 25000,
    has_abn: true,
    deposit: '10%',
    finance_term: null,
  });
  return { doc, own, foreign };
}

/** Every read the API offers a member of each tenant, by URL, as the exact bytes answered. */
async function apiReads(t: TestApp, users: { email: string; password: string; enterpriseId: string }[]) {
  const answers: Record<string, string> = {};
  for (const user of users) {
    for (const version of ['v1', 'v2'] as const) {
      const token = await loginToken(t.app, user.email, user.password);
      const get = async (url: string) => {
        const res = await t.app.inject({ method: 'GET', url, headers: apiHeaders(version, token, user.enterpriseId) });
        answers[`${user.email} ${url}`] = `${res.statusCode} ${res.body}`;
        return res;
      };
      for (const resource of FIXTURE_SECTIONS) {
        const list = await get(`/api/${version}/${resource}`);
        expect(list.statusCode).toBe(200);
        const body = list.json<{ data: { id: string }[] } | { id: string }[]>();
        const items = Array.isArray(body) ? body : body.data;
        for (const item of items) await get(`/api/${version}/${resource}/${item.id}`);
      }
    }
  }
  return answers;
}

describe('export (issue 17)', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('round-trips: export, import into an empty database with the same key, and every API read is the same', async () => {
    const source = await createTestApp();
    apps.push(source);
    const { doc, own, foreign } = fixture();
    await importFixture(source, doc);
    const users = [
      { ...own.user, enterpriseId: own.enterpriseId },
      { ...foreign.user, enterpriseId: foreign.enterpriseId },
    ];
    const before = await apiReads(source, users);
    expect(Object.keys(before).length).toBeGreaterThan(50);

    const file = join(dir, 'round-trip.json');
    const exported = await runCli(['export', '--output', file, '--include-secrets'], { env: cliEnv(source) });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('people: 3');
    await source.close();
    apps.pop();

    const target = await createTestApp();
    apps.push(target);
    const imported = await runCli(['import', file], { env: cliEnv(target) });
    expect(imported.stderr).toBe('');
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('people: 3 (3 created, 0 updated, 0 unchanged)');
    const after = await apiReads(target, users);
    expect(after).toEqual(before);

    // The provider B key came across too, and a second export of the copy is the same file.
    const again = join(dir, 'round-trip-again.json');
    expect((await runCli(['export', '--output', again, '--include-secrets'], { env: cliEnv(target) })).code).toBe(0);
    // The copy's audit trail is the source's, then this copy's own import of it.
    const { audit_events: trail, ...records } = JSON.parse(readFileSync(file, 'utf8')) as ExportFile;
    const { audit_events: trailAgain, ...recordsAgain } = JSON.parse(readFileSync(again, 'utf8')) as ExportFile;
    expect(recordsAgain).toEqual(records);
    expect(Object.keys(JSON.parse(readFileSync(again, 'utf8')) as ExportFile).at(-1)).toBe('audit_events');
    expect(trail?.map((e) => e.action)).toEqual(['enterprise.imported', 'enterprise.imported']);
    expect(trailAgain?.slice(0, trail?.length)).toEqual(trail);
    expect(trailAgain?.slice(trail?.length).map((e) => [e.action, e.actor])).toEqual([
      ['enterprise.imported', 'cli'],
      ['enterprise.imported', 'cli'],
    ]);
    const reimport = await runCli(['import', again], { env: cliEnv(target) });
    for (const line of reimport.stdout.split('\n').filter((l) => l.includes('created'))) {
      expect(line).toMatch(/\(0 created, 0 updated, \d+ unchanged\)/);
    }
  });

  it("re-imports one enterprise's export without taking its users out of their other enterprises", async () => {
    const t = await createTestApp();
    apps.push(t);
    const { doc, own, foreign } = fixture();
    await importFixture(t, doc);
    // The own enterprise's user is a member of the foreign enterprise too.
    await t.dataSource.query(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [
      own.user.id,
      foreign.enterpriseId,
    ]);
    const file = join(dir, 'one-enterprise.json');
    expect(
      (await runCli(['export', '--enterprise', own.enterpriseId, '--output', file], { env: cliEnv(t) })).code,
    ).toBe(0);
    const reimport = await runCli(['import', file], { env: cliEnv(t) });
    expect(reimport).toMatchObject({ code: 0, stderr: '' });
    const members = await t.dataSource.query<{ enterprise_id: string }[]>(
      `SELECT enterprise_id FROM memberships WHERE user_id = $1 ORDER BY enterprise_id`,
      [own.user.id],
    );
    expect(members.map((m) => m.enterprise_id)).toEqual([own.enterpriseId, foreign.enterpriseId].sort());
  });

  it('writes gzip by name, one enterprise on request, password hashes, and provider B keys only with --include-secrets', async () => {
    const t = await createTestApp();
    apps.push(t);
    const { doc, own, foreign } = fixture();
    await importFixture(t, doc);

    const file = join(dir, 'own.json.gz');
    // A file left over with a wider mode (an older export, a failed one) does not keep it.
    writeFileSync(file, 'old', { mode: 0o644 });
    writeFileSync(`${file}.partial`, 'old', { mode: 0o644 });
    const run = await runCli(['export', '--enterprise', own.enterpriseId, '--output', file], { env: cliEnv(t) });
    expect(run.code).toBe(0);
    // Password hashes and decrypted names: readable by the owner only, as backups are.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = JSON.parse(gunzipSync(readFileSync(file)).toString('utf8')) as ExportFile;
    expect(content.enterprises?.map((e) => e.id)).toEqual([own.enterpriseId]);
    expect(content.enterprises?.[0]).not.toHaveProperty('signprovider_b_key');
    expect(content.users?.map((u) => u.id)).toEqual([own.user.id]);
    expect(content.users?.[0]).toMatchObject({ enterprise_ids: [own.enterpriseId] });
    expect(String(content.users?.[0]?.password_hash)).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(content)).not.toContain(own.user.password);
    expect(JSON.stringify(content)).not.toContain(foreign.enterpriseId);

    const secrets = await runCli(['export', '--enterprise', own.enterpriseId, '--include-secrets'], { env: cliEnv(t) });
    expect(secrets.code).toBe(0);
    // Without --output the file goes to standard output and the summary to standard error.
    const streamed = JSON.parse(secrets.stdout) as ExportFile;
    expect(streamed.enterprises?.[0]?.signprovider_b_key).toBe('own-provider-b-key');
    expect(secrets.stderr).toContain('Exported:');

    // An export without secrets imported over the same database keeps the stored key.
    const plain = join(dir, 'plain.json');
    writeFileSync(plain, gunzipSync(readFileSync(file)));
    const reimport = await runCli(['import', plain], { env: cliEnv(t) });
    expect(reimport.stdout).toContain('enterprises: 1 (0 created, 0 updated, 1 unchanged)');
    const check = await runCli(['export', '--enterprise', own.enterpriseId, '--include-secrets'], { env: cliEnv(t) });
    expect((JSON.parse(check.stdout) as ExportFile).enterprises?.[0]?.signprovider_b_key).toBe('own-provider-b-key');

    const bad = await runCli(['export', '--enterprise', 'nope'], { env: cliEnv(t) });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--enterprise must be an enterprise id');
  });
});
