import { createWriteStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { execSync, spawn } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRawBaseline } from './lib/raw-import-baseline.js';
import { freshDatabase } from './lib/fresh-database.js';
import { benchPerson, ENTERPRISE } from './lib/import-rows.js';

/**
 * `npm run bench:import`: generates import files of people shaped like the read benchmark's (2
 * phones, 1 email, 1 address, 3 financials each) and times the CLI on them against a real
 * PostgreSQL server, with each run's peak resident memory and CPU time (GNU time). In the same
 * run, a raw baseline loads the same rows into the same tables with COPY and no checks (triggers
 * on), and the import's time is given as a ratio of it.
 */

const ROOT = resolve(import.meta.dirname, '../..');
/** The CLI measured; `BENCH_IMPORT_CLI`: another build's `dist/src/cli/main.js`, for a before/after. */
const CLI = process.env.BENCH_IMPORT_CLI ?? join(ROOT, 'dist/src/cli/main.js');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_IMPORT_DATABASE ?? 'fi_bench_import';
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? process.env.BENCH_IMPORT_PEOPLE ?? 100_000);
const MILLION = Number(process.env.BENCH_MILLION ?? process.env.BENCH_IMPORT_MILLION ?? 1_000_000);
const WORK = process.env.BENCH_IMPORT_DIR ?? join(ROOT, 'bench/results/import-files');
const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;

/** Writes the file a line at a time, waiting for the disk, so the generator itself stays small. */
async function generate(file: string, people: number): Promise<number> {
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"enterprises":[{"id":"${ENTERPRISE}","name":"Bench Finance","is_active":true}],\n"people":[\n`);
  for (let i = 0; i < people; i++) await write(`${i === 0 ? '' : ',\n'}${JSON.stringify(benchPerson(i))}`);
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
  return statSync(file).size;
}

const recreateDatabase = (): Promise<string> => freshDatabase(SERVER_URL, DATABASE);

interface Run {
  name: string;
  records: number;
  seconds: number;
  peakRssMiB: number;
  /** The CLI's own CPU time (user + system), seconds. */
  cpuSeconds: number;
  summary: string;
}

interface CliRun {
  seconds: number;
  peakRssMiB: number;
  cpuSeconds: number;
  stdout: string;
}

/** Runs the CLI under GNU time (`%e %M %U %S`: elapsed seconds, maximum RSS in KiB, CPU seconds). */
function cli(args: string[], databaseUrl: string): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %M %U %S', process.execPath, CLI, ...args], {
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
      const match = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
      if (code !== 0 || !match) return fail(new Error(`${args.join(' ')} failed (${code}):\n${stdout}\n${stderr}`));
      const cpuSeconds = Number(match[3]) + Number(match[4]);
      done({ seconds: Number(match[1]), peakRssMiB: Number(match[2]) / 1024, cpuSeconds, stdout });
    });
  });
}

async function measure(name: string, records: number, args: string[], url: string): Promise<Run> {
  process.stderr.write(`\n== ${name}\n`);
  const { seconds, peakRssMiB, cpuSeconds, stdout } = await cli([...args, '--progress-interval', '15'], url);
  const summary = /people: .*/.exec(stdout)?.[0] ?? stdout.trim().split('\n').pop() ?? '';
  return { name, records, seconds, peakRssMiB, cpuSeconds, summary };
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
  process.stderr.write(`\n== raw baseline: ${PEOPLE.toLocaleString('en')} people by COPY\n`);
  const raw = await loadRawBaseline(url, APP_KEY, PEOPLE);
  runs.push({
    name: `raw baseline: ${PEOPLE.toLocaleString('en')} people by COPY (triggers on, no checks)`,
    records: PEOPLE,
    seconds: raw.seconds,
    peakRssMiB: NaN,
    cpuSeconds: raw.cpuSeconds,
    summary: `${raw.rows.toLocaleString('en')} rows in ${raw.tables} tables`,
  });

  url = await recreateDatabase();
  await cli(['migrate'], url);
  const created = await measure(`${PEOPLE.toLocaleString('en')} people created`, PEOPLE, ['import', small], url);
  runs.push({
    ...created,
    summary: `${(created.seconds / raw.seconds).toFixed(2)}x the raw baseline; ${created.summary}`,
  });
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
    `Commit ${commit()}, CLI ${CLI}. Machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, load average ` +
      `${loadAtStart.toFixed(1)} at the start and ${(loadavg()[0] ?? 0).toFixed(1)} at the end; PostgreSQL at ` +
      `${new URL(SERVER_URL).host}.`,
    '',
    '| run | time (s) | records/s | CPU of the CLI (s) | peak RSS (MiB) | summary |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...runs.map(
      (r) =>
        `| ${r.name} | ${r.seconds.toFixed(1)} | ${Math.round(r.records / r.seconds).toLocaleString('en')} | ` +
        `${r.cpuSeconds.toFixed(1)} | ${Number.isNaN(r.peakRssMiB) ? '' : r.peakRssMiB.toFixed(0)} | ${r.summary} |`,
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
