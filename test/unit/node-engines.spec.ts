import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import semver from 'semver';
import { SUPPORTED_NODE, unsupportedNodeReason } from '../../src/config/node-runtime.js';
import { readDockerfile } from '../helpers/dockerfile.js';

const root = process.cwd();

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

/** The directories of every package installed under a node_modules directory, nested ones too. */
function installedPackages(modules: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@')
      ? readdirSync(join(modules, entry.name), { withFileTypes: true })
          .filter((scoped) => scoped.isDirectory())
          .map((scoped) => join(modules, entry.name, scoped.name))
      : [join(modules, entry.name)];
    for (const dir of dirs) {
      found.push(dir);
      const nested = join(dir, 'node_modules');
      if (readdirSync(dir).includes('node_modules')) found.push(...installedPackages(nested));
    }
  }
  return found;
}

/**
 * Every installed package with a Node range of its own: name@version -> range. These are what
 * `npm ci` compares with the running Node (an EBADENGINE warning for each one that refuses it).
 */
function declaredRanges(): Map<string, string> {
  const ranges = new Map<string, string>();
  for (const dir of installedPackages(join(root, 'node_modules'))) {
    let pkg: Manifest;
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    } catch {
      continue; // a directory that is not a package (a bin folder, ...)
    }
    if (Array.isArray(pkg.engines) || typeof pkg.engines?.node !== 'string' || !pkg.name) continue;
    ranges.set(`${pkg.name}@${pkg.version ?? '?'}`, pkg.engines.node);
  }
  return ranges;
}

/** The Node 24 LTS releases from the first our range admits; what an operator installs. */
const ADMITTED = ['24.11.0', '24.12.0', '24.21.0'];
/** Just outside the range, and the lines it leaves out on purpose (20 past its end of life, 22, 25). */
const REFUSED = ['20.19.0', '20.20.2', '22.13.0', '22.20.0', '24.10.0', '25.0.0'];

describe('package.json engines', () => {
  const ours = manifest.engines.node;
  const ranges = declaredRanges();

  it('is a valid range that admits the versions it is meant to, and the one the tests run on', () => {
    expect(semver.validRange(ours)).not.toBeNull();
    for (const version of ADMITTED)
      expect({ version, ok: semver.satisfies(version, ours) }).toEqual({ version, ok: true });
    for (const version of REFUSED)
      expect({ version, ok: semver.satisfies(version, ours) }).toEqual({ version, ok: false });
    expect(semver.satisfies(process.versions.node, ours)).toBe(true);
  });

  it('is within every installed package’s own Node range, tracing’s included (no EBADENGINE on install)', () => {
    expect(ranges.size).toBeGreaterThan(50);
    expect([...ranges.keys()].some((name) => name.startsWith('@opentelemetry/sdk-node@'))).toBe(true);
    const narrower = [...ranges].filter(([, range]) => !semver.subset(ours, range, { includePrerelease: false }));
    expect(narrower).toEqual([]);
  });

  it('needs Node 22.15 or later for tracing, so Node 20 cannot run the service at all', () => {
    const refusing20 = [...ranges].filter(([, range]) => !semver.satisfies('20.20.2', range)).map(([name]) => name);
    expect(refusing20.some((name) => name.startsWith('@opentelemetry/sdk-node@'))).toBe(true);
  });

  it('is the range the service checks at start', () => {
    expect(SUPPORTED_NODE.range).toBe(ours);
    for (const version of ADMITTED)
      expect({ version, reason: unsupportedNodeReason(version) }).toEqual({ version, reason: null });
    for (const version of REFUSED)
      expect({ version, reason: unsupportedNodeReason(version) }).toEqual({
        version,
        reason: expect.stringContaining(`Node.js ${version} is not supported`),
      });
  });
});

describe('the project’s own Node', () => {
  it('is a dependency (a production install keeps it) pinned inside the range, whose install script npm is told to run', () => {
    const pinned = manifest.dependencies.node ?? '';
    expect(semver.valid(pinned)).toBe(pinned);
    expect(semver.satisfies(pinned, manifest.engines.node)).toBe(true);
    expect(manifest.allowScripts?.node).toBe(true);
  });

  it('is the Node this test suite runs on (npm test puts it first on the PATH)', () => {
    expect(process.versions.node).toBe(manifest.dependencies.node);
    expect(unsupportedNodeReason(process.versions.node)).toBeNull();
  });
});

describe('the image’s Node', () => {
  it('is a major line package.json admits, in every stage', () => {
    const stages = readDockerfile(resolve(root, 'Dockerfile'));
    expect(stages.length).toBeGreaterThan(0);
    for (const stage of stages) {
      const [, major] = /^node:(\d+)[-.]/.exec(stage.from) ?? [];
      expect({ from: stage.from, major }).toEqual({ from: stage.from, major: expect.stringMatching(/^\d+$/) });
      // A floating major tag (node:20-...) gets that line's newest release: admitted when the range
      // admits the line's newest versions (and the line is not refused altogether).
      expect({ from: stage.from, admitted: semver.intersects(`${major}.x`, manifest.engines.node) }).toEqual({
        from: stage.from,
        admitted: true,
      });
    }
  });
});
