import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a service's CPU went, from the V8 CPU profiles `BENCH_CPU_PROFILE_DIR` makes `npm run
 * bench` write (one folder per target): self time per package or source folder, as a share of
 * all samples and in microseconds per request when told how many requests the run answered.
 *
 *   node dist/bench/profile-summary.js <folder> [requests] [rows]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A package under node_modules, a folder of the project's build, or V8's own bucket. */
function bucketOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') return `(${functionName || 'native'})`;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length).replace(/\/[^/]+$/, '/');
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

function profilesIn(folder: string): CpuProfile[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => JSON.parse(readFileSync(path, 'utf8')) as CpuProfile);
}

function summarise(folder: string, requests: number | undefined, rows: number): void {
  const selfMicros = new Map<string, number>();
  let total = 0;
  for (const profile of profilesIn(folder)) {
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, index) => {
      const node = byId.get(id);
      const micros = profile.timeDeltas[index] ?? 0;
      if (!node || node.callFrame.functionName === '(idle)') return;
      const bucket = bucketOf(node.callFrame);
      selfMicros.set(bucket, (selfMicros.get(bucket) ?? 0) + micros);
      total += micros;
    });
  }
  const sorted = [...selfMicros.entries()].sort((a, b) => b[1] - a[1]).slice(0, rows);
  process.stdout.write(
    `${folder}: ${(total / 1e6).toFixed(2)} s busy${requests ? `, ${(total / requests).toFixed(1)} µs per request` : ''}\n`,
  );
  for (const [bucket, micros] of sorted) {
    const share = ((100 * micros) / total).toFixed(1).padStart(5);
    const perRequest = requests ? `${(micros / requests).toFixed(2).padStart(8)} µs/req  ` : '';
    process.stdout.write(`  ${share}%  ${perRequest}${bucket}\n`);
  }
}

const [folder, requests, rows] = process.argv.slice(2);
if (!folder) {
  process.stderr.write('usage: node dist/bench/profile-summary.js <folder> [requests] [rows]\n');
  process.exit(2);
}
summarise(folder, requests ? Number(requests) : undefined, rows ? Number(rows) : 40);
