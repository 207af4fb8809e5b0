import { createWriteStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { execSync, spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

/**
 * `npm run bench:import`: generates import files of people shaped like the read benchmark's (2
 * phones, 1 email, 1 address, 3 financials each) and times the CLI on them against a real
 * PostgreSQL server, with each run's peak resident memory (GNU time's maximum RSS).
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_IMPORT_DATABASE ?? 'fi_bench_import';
const PEOPLE = Number(process.env.BENCH_IMPORT_PEOPLE ?? 100_000);
const MILLION = Number(process.env.BENCH_IMPORT_MILLION ?? 1_000_000);
const WORK = process.env.BENCH_IMPORT_DIR ?? join(ROOT, 'bench/results/import-files');
const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;
const ENTERPRISE = '0e000000-0000-4000-8000-000000000001';

/** A UUID per (kind, counter): stable across runs, so the second import finds every record. */
function uuid(kind: number, n: number): string {
  const hex = n.toString(16).padStart(12, '0');
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${hex}`;
}

function person(i: number): string {
  const created = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  const nested = (kind: number, j: number) => uuid(kind, i * 4 + j);
  return JSON.stringify({
    id: uuid(1, i),
    enterprise_id: ENTERPRISE,
    title: 'Ms',
    first_name: ['Jane', 'John', 'Aisha', 'Wei', 'Priya', 'Liam', 'Olivia', 'Noah', 'Mia', 'Lucas'][i % 10],
    last_name: `Citizen ${i}`,
    birthday: new Date(Date.UTC(1980, 0, 1) + (i % 9000) * 86_400_000).toISOString().slice(0, 10),
    gender: 'Female',
    licence: String(10_000_000 + i),
    licence_state: 'New South Wales',
    licence_expiry: '2030-01-01',
    dependents: i % 4,
    dependents_ages: '4, 7',
    marital_status: 'Married',
    residency_status: 'Citizen',
    created_at: created,
    updated_at: created,
    phone_numbers: [
      { id: nested(2, 0), type: 'mobile', number: '0400 000 1', is_primary: true },
      { id: nested(2, 1), type: 'work', number: '0400 000 2', is_primary: false },
    ],
    emails: [{ id: nested(3, 0), address: `person-${i}@example.com`, is_primary: true }],
    addresses: [
      {
        id: nested(4, 0),
        type: 'Residential',
        line1: '1 Main St',
        suburb: 'Sydney',
        state: 'New South Wales',
        postcode: '2000',
      },
    ],
    financials: [
      { id: nested(5, 0), type: 'income', amount: '5200.00', category: 'salary and wages' },
      { id: nested(5, 1), type: 'expense', amount: '1200.50', category: 'rent' },
      { id: nested(5, 2), type: 'expense', amount: '0.00', category: 'other' },
    ],
  });
}

/** Writes the file a line at a time, waiting for the disk, so the generator itself stays small. */
async function generate(file: string, people: number): Promise<number> {
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"enterprises":[{"id":"${ENTERPRISE}","name":"Bench Finance","is_active":true}],\n"people":[\n`);
  for (let i = 0; i < people; i++) await write(`${i === 0 ? '' : ',\n'}${person(i)}`);
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

async function recreateDatabase(): Promise<string> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

interface Run {
  name: string;
  records: number;
  seconds: number;
  peakRssMiB: number;
  summary: string;
}

/** Runs the CLI under GNU time (`%e %M`: elapsed seconds, maximum RSS in KiB). */
function cli(args: string[], databaseUrl: string): Promise<{ seconds: number; peakRssMiB: number; stdout: string }> {
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M', process.execPath, CLI, ...args], {
      env: { ...process.env, DATABASE_URL: databaseUrl, APP_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      process.stderr.write(chunk);
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const match = /TIME ([\d.]+) (\d+)/.exec(stderr);
      if (code !== 0 || !match) return fail(new Error(`${args.join(' ')} failed (${code}):\n${stdout}\n${stderr}`));
      done({ seconds: Number(match[1]), peakRssMiB: Number(match[2]) / 1024, stdout });
    });
  });
}

async function measure(name: string, records: number, args: string[], url: string): Promise<Run> {
  process.stderr.write(`\n== ${name}\n`);
  const { seconds, peakRssMiB, stdout } = await cli([...args, '--progress-interval', '15'], url);
  const summary = /people: .*/.exec(stdout)?.[0] ?? stdout.trim().split('\n').pop() ?? '';
  return { name, records, seconds, peakRssMiB, summary };
}

function commit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  mkdirSync(WORK, { recursive: true });
  const loadAtStart = loadavg()[0] ?? 0;
  const runs: Run[] = [];
  const small = join(WORK, `people-${PEOPLE}.json`);
  const smallBytes = await generate(small, PEOPLE);
  process.stderr.write(`generated ${small}: ${(smallBytes / 1e6).toFixed(0)} MB\n`);

  let url = await recreateDatabase();
  await cli(['migrate'], url);
  runs.push(await measure(`${PEOPLE.toLocaleString('en')} people created`, PEOPLE, ['import', small], url));
  runs.push(await measure(`same file again (all unchanged)`, PEOPLE, ['import', small], url));

  if (MILLION > 0) {
    const big = join(WORK, `people-${MILLION}.json`);
    const bigBytes = await generate(big, MILLION);
    process.stderr.write(`generated ${big}: ${(bigBytes / 1e6).toFixed(0)} MB\n`);
    url = await recreateDatabase();
    await cli(['migrate'], url);
    runs.push(await measure(`${MILLION.toLocaleString('en')} people created`, MILLION, ['import', big], url));
    const exported = join(WORK, `export-${MILLION}.json.gz`);
    const run = await measure(
      `export of the ${MILLION.toLocaleString('en')}`,
      MILLION,
      ['export', '--output', exported],
      url,
    );
    runs.push({ ...run, summary: `${(statSync(exported).size / 1e6).toFixed(0)} MB gzip` });
  }

  const lines = [
    `# bench:import, ${new Date().toISOString()}`,
    '',
    `Commit ${commit()}. Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ` +
      `${loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end; PostgreSQL at ` +
      `${new URL(SERVER_URL).host}.`,
    '',
    '| run | time (s) | records/s | peak RSS (MiB) | summary |',
    '| --- | ---: | ---: | ---: | --- |',
    ...runs.map(
      (r) =>
        `| ${r.name} | ${r.seconds.toFixed(1)} | ${Math.round(r.records / r.seconds).toLocaleString('en')} | ${r.peakRssMiB.toFixed(0)} | ${r.summary} |`,
    ),
  ];
  const report = lines.join('\n');
  writeFileSync(join(ROOT, 'bench/results/import-latest.md'), `${report}\n`);
  process.stdout.write(`${report}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
