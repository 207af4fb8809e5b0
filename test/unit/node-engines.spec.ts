import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import semver from 'semver';

const root = process.cwd();

interface LockedPackage {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};

/**
 * Packages whose declared range is narrower than ours, loaded only by a feature the service does
 * not use or an operator turns on: file-type is @nestjs/common's, loaded only by its file-upload
 * pipes, which this API has none of; OpenTelemetry (Node 22.15 and later) is imported only when
 * tracing is on (`OTEL_EXPORTER_OTLP_ENDPOINT`), and the operator guide says which Node it needs.
 */
const notLoadedByDefault = (name: string): boolean => name === 'file-type' || name.startsWith('@opentelemetry/');

/** Every installed package with a Node range of its own: name@version -> range. */
function declaredRanges(): Map<string, string> {
  const ranges = new Map<string, string>();
  for (const [path, pkg] of Object.entries(lock.packages)) {
    if (path === '' || Array.isArray(pkg.engines) || typeof pkg.engines?.node !== 'string') continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (!notLoadedByDefault(name)) ranges.set(`${name}@${pkg.version ?? '?'}`, pkg.engines.node);
  }
  return ranges;
}

/** The first release of each line our range admits, and a later one: what an operator installs. */
const ADMITTED = ['20.19.0', '20.20.2', '22.13.0', '22.20.0', '24.11.0', '24.12.0', '25.0.0'];
/** Just outside each edge of our range. */
const REFUSED = ['20.18.3', '21.7.3', '22.12.0', '23.11.1', '24.10.0'];

describe('package.json engines (issue 20)', () => {
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

  it('is within every installed dependency’s own Node range', () => {
    expect(ranges.size).toBeGreaterThan(50);
    const narrower = [...ranges].filter(([, range]) => !semver.subset(ours, range, { includePrerelease: false }));
    expect(narrower).toEqual([]);
  });

  it('is no wider than it must be: each version just outside is refused by some dependency', () => {
    for (const version of REFUSED) {
      const refusing = [...ranges].filter(([, range]) => !semver.satisfies(version, range)).map(([name]) => name);
      expect({ version, refused: refusing.length > 0 }).toEqual({ version, refused: true });
    }
  });
});
