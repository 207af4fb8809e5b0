import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `npm run cli` in a copy of the project (its own dist/, so the suites running from the real
 * one are left alone): built when needed, never rebuilt while the build is up to date.
 */
describe('npm run cli builds only when the sources changed', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'finance-intake-cli-build-'));
    for (const path of [
      'src',
      'migrations',
      'scripts',
      'tsconfig.json',
      'tsconfig.build.json',
      'package.json',
      'package-lock.json',
    ]) {
      cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = () => {
    const started = Date.now();
    const run = spawnSync('npm', ['run', '-s', 'cli', '--', '--help'], { cwd: dir, encoding: 'utf8' });
    return { ...run, ms: Date.now() - started };
  };

  it('builds the first time, then runs the build as it is, and rebuilds after a source changes', () => {
    const first = cli();
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('Building dist/');
    expect(first.stdout).toContain('export');

    const again = cli();
    expect(again.status).toBe(0);
    // Nothing compiled: no build line, and well under the compile's time.
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(first.stdout);
    expect(again.ms).toBeLessThan(first.ms);

    // A changed command summary shows in the next call.
    const file = join(dir, 'src/cli/commands/export.command.ts');
    const source = readFileSync(file, 'utf8');
    const edited = source.replace("'Write the database", "'Write (edited) the database");
    expect(edited).not.toBe(source);
    writeFileSync(file, edited);
    const changed = cli();
    expect(changed.status).toBe(0);
    expect(changed.stderr).toContain('Sources changed: rebuilding dist/');
    expect(changed.stdout).toContain('Write (edited) the database');
    expect(cli().stderr).toBe('');
  }, 240_000);

  it('says what to do instead of failing in tsc when the build is stale on a production install', () => {
    const now = new Date(Date.now() + 5_000);
    utimesSync(join(dir, 'src/cli/main.ts'), now, now);
    unlinkSync(join(dir, 'node_modules'));
    const run = cli();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('not installed (a production install)');
    expect(run.stderr).toContain('npm run setup && npm run build');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  });
});
