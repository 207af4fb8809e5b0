import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { FieldCipher } from '../src/crypto/field-cipher.js';
import { parseAppKey } from '../src/config/app-key.js';
import { prepareBenchDatabase } from './lib/bench-database.js';
import { confirm, judge, needsConfirmation, type Judgement } from './lib/compare-verdict.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { roundOrder } from './lib/round-order.js';
import { startFlagsOf, startServer, type RunningServer } from './lib/processes.js';
import { buildRelease, nodeOf, nodeVersion } from './lib/release-builds.js';
import {
  APP_KEY,
  benchServiceEnv,
  checkScenario,
  login,
  merge,
  sampleIds,
  scenarios,
  selected,
  type Scenario,
  warmUpServers,
} from './lib/scenarios.js';

/**
 * `npm run bench:compare [REF]`: this working tree's build against REF's (default: the commit in
 * bench/compare-base), on one bench database, scenario by scenario, with a control on both sides:
 * two processes of this build and two of REF's run in alternating rounds (in a balanced order,
 * `roundOrder`), so a change in the machine's speed weighs on all four alike. A scenario is slower or
 * faster only when its ratio to REF is beyond the larger spread of two identical processes, and
 * slower only when four fresh processes find it slower again.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Four rounds: each server once in each place and once after each other server (`roundOrder`). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** Seconds each server is measured per scenario and round (after autocannon's 2-s warm-up). */
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 3);

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

function defaultRef(): string {
  const file = join(ROOT, 'bench/compare-base');
  const ref = readFileSync(file, 'utf8')
    .split('\n')
    .find((line) => line.trim() && !line.startsWith('#'))
    ?.trim();
  if (!ref) throw new Error(`${file} names no commit`);
  return ref;
}

interface Side {
  name: string;
  server: RunningServer;
  rounds: LoadResult[];
}

/** A scenario's measurement on one set of four processes. */
type Measured = Judgement & { ref: LoadResult; refControl: LoadResult; current: LoadResult; control: LoadResult };

interface Verdict extends Partial<Omit<Judgement, 'verdict'>> {
  scenario: string;
  ref?: LoadResult;
  /** REF's second process. */
  refControl?: LoadResult;
  current?: LoadResult;
  /** This build's second process. */
  control?: LoadResult;
  verdict: Judgement['verdict'] | 'not comparable';
  note?: string;
  /** The same scenario on four fresh processes, when the first run found it slower. */
  confirmation?: Judgement;
}

async function measureScenario(sides: readonly Side[], s: Scenario): Promise<Measured | string> {
  for (const side of sides) {
    try {
      await checkScenario(side.server, side.name, s);
    } catch (error) {
      return (error as Error).message.slice(0, 200);
    }
    side.rounds = [];
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const index of roundOrder(round)) {
      const side = sides[index];
      if (!side) continue;
      const options = { ...s, url: `${side.server.url}${s.path}`, durationSeconds: ROUND_SECONDS };
      side.rounds.push(await runLoad(side.server, options));
    }
  }
  const [ref, refControl, current, control] = sides.map((side) => merge(side.rounds));
  if (!ref || !refControl || !current || !control) throw new Error('four sides expected');
  return { ref, refControl, current, control, ...judge([ref, refControl], [current, control]) };
}

/** Each scenario measured on the same four servers, in order, its ratio printed as it ends. */
async function measureEach(
  sides: readonly Side[],
  list: readonly Scenario[],
): Promise<Map<Scenario, Measured | string>> {
  const measured = new Map<Scenario, Measured | string>();
  const first = list[0];
  if (first)
    await warmUpServers(
      sides.map((side) => side.server),
      first,
    );
  for (const s of list) {
    const m = await measureScenario(sides, s);
    measured.set(s, m);
    process.stderr.write(
      `  ${s.name.padEnd(36)} ${typeof m === 'string' ? 'not comparable' : `${m.ratio.toFixed(2)} ${m.verdict}`}\n`,
    );
  }
  return measured;
}

/** The first run's figures with the confirmed verdict. */
function verdictOf(s: Scenario, first: Measured | string, again?: Measured | string): Verdict {
  if (typeof first === 'string') return { scenario: s.name, verdict: 'not comparable', note: first };
  if (typeof again === 'string') return { scenario: s.name, ...first, verdict: 'not comparable', note: again };
  const confirmed = confirm(first, again);
  return {
    scenario: s.name,
    ...first,
    verdict: confirmed.verdict,
    ...(confirmed.unconfirmed ? { note: confirmed.unconfirmed } : {}),
    ...(again
      ? { confirmation: { ratio: again.ratio, spread: again.spread, cpuRatio: again.cpuRatio, verdict: again.verdict } }
      : {}),
  };
}

function table(verdicts: readonly Verdict[]): string {
  const head = [
    'scenario',
    'ref req/s',
    'B/B req/s',
    'this req/s',
    'A/A req/s',
    'ratio',
    'spread',
    'CPU ratio',
    'this p99/p50',
    'verdict',
  ];
  const rows = verdicts.map((v) => [
    v.scenario,
    v.ref?.requestsPerSecond.toFixed(0) ?? '',
    v.refControl?.requestsPerSecond.toFixed(0) ?? '',
    v.current?.requestsPerSecond.toFixed(0) ?? '',
    v.control?.requestsPerSecond.toFixed(0) ?? '',
    v.ratio?.toFixed(2) ?? '',
    v.spread === undefined ? '' : `${(100 * v.spread).toFixed(1)}%`,
    v.cpuRatio?.toFixed(2) ?? '',
    v.current && v.current.p50 > 0 ? (v.current.p99 / v.current.p50).toFixed(2) : '',
    v.note ? `${v.verdict} (${v.note.slice(0, 80)})` : v.verdict,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

/** bench/results/<name>.json, or <name>-2.json and on when a run of the same day and builds wrote it already. */
function unusedResultsFile(name: string): string {
  for (let n = 1; ; n++) {
    const file = join(ROOT, 'bench/results', n === 1 ? `${name}.json` : `${name}-${n}.json`);
    if (!existsSync(file)) return file;
  }
}

async function main(): Promise<void> {
  const refName = process.argv[2] ?? defaultRef();
  const sha = git('rev-parse', '--verify', `${refName}^{commit}`);
  const head = execFileSync('git', ['describe', '--always', '--dirty', '--exclude', '*'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const refDir = buildRelease(sha);
  const refNode = process.env.BENCH_COMPARE_REF_NODE ?? nodeOf(refDir);
  const key = parseAppKey(APP_KEY);
  if (!key) throw new Error('bench APP_KEY is malformed');
  process.stderr.write('Preparing the bench database...\n');
  const data = await prepareBenchDatabase(DATABASE_URL, new FieldCipher([key]));
  const env = benchServiceEnv(data.url);
  const thisMain = join(ROOT, 'dist/src/main.js');
  const refMain = join(refDir, 'dist/src/main.js');
  let started: RunningServer[] = [];
  const startSides = async (): Promise<Side[]> => {
    const start = async (name: string, main: string, node: string): Promise<Side> => {
      const server = await startServer(name, main, env, startFlagsOf(main), node);
      started.push(server);
      return { name, server, rounds: [] };
    };
    return [
      await start(`ref ${sha.slice(0, 7)}`, refMain, refNode),
      await start(`ref ${sha.slice(0, 7)} (B/B control)`, refMain, refNode),
      await start(`this ${head}`, thisMain, process.execPath),
      await start(`this ${head} (A/A control)`, thisMain, process.execPath),
    ];
  };
  const stopSides = async () => {
    for (const server of started) await server.stop();
    started = [];
  };
  try {
    let sides = await startSides();
    const token = await login(sides[2]?.server ?? started[0]!);
    const ids = await sampleIds(data);
    // The 304 scenario is left out: its ETag is of one build's page; the 200 scenarios cover the reads.
    const list = selected(scenarios(data, ids, token, '')).filter((s) => s.status !== 304);
    const runtimes = { ref: nodeVersion(refNode), this: process.version };
    process.stderr.write(
      `Comparing ${list.length} scenarios: ${ROUNDS} rounds of ${ROUND_SECONDS} s per server (ref on Node ${runtimes.ref}, this on ${runtimes.this}), load ${loadavg()[0]?.toFixed(2)}\n`,
    );
    const firsts = await measureEach(sides, list);
    const doubted = list.filter((s) => {
      const first = firsts.get(s);
      return first !== undefined && typeof first !== 'string' && needsConfirmation(first);
    });
    let agains = new Map<Scenario, Measured | string>();
    if (doubted.length > 0) {
      process.stderr.write(`Confirming ${doubted.length} slower on four fresh processes...\n`);
      await stopSides();
      sides = await startSides();
      agains = await measureEach(sides, doubted);
    }
    const verdicts = list.map((s) => verdictOf(s, firsts.get(s) ?? 'not measured', agains.get(s)));
    const load = loadavg();
    process.stdout.write(`${table(verdicts)}\n`);
    process.stdout.write(
      `ref ${sha.slice(0, 7)} (Node ${runtimes.ref}) against ${head} (Node ${runtimes.this}); load average at the end ${load.map((l) => l.toFixed(2)).join(' ')}\n`,
    );
    const date = new Date().toISOString();
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const file = unusedResultsFile(`compare-${date.slice(0, 10)}-${sha.slice(0, 7)}-${head}`);
    writeFileSync(
      file,
      `${JSON.stringify({ date, ref: sha, this: head, runtimes, rounds: ROUNDS, roundSeconds: ROUND_SECONDS, machine: { cores: cpus().length, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1), loadAverage: load }, verdicts: verdicts.map(({ ref, refControl, current, control, ...rest }) => ({ ...rest, refRps: ref?.requestsPerSecond, refControlRps: refControl?.requestsPerSecond, thisRps: current?.requestsPerSecond, controlRps: control?.requestsPerSecond, thisP50: current?.p50, thisP99: current?.p99, refCpuUs: ref?.cpuUsPerRequest, refControlCpuUs: refControl?.cpuUsPerRequest, thisCpuUs: current?.cpuUsPerRequest, controlCpuUs: control?.cpuUsPerRequest })) }, null, 2)}\n`,
    );
    process.stdout.write(`Results written to ${file}\n`);
    if (verdicts.some((v) => v.verdict === 'slower')) process.exitCode = 3;
  } finally {
    await stopSides();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
