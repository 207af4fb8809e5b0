import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { buildArgv } from 'jest-cli';
import {
  filesOfGroup,
  groupCount,
  groupedFiles,
  GROUPED_FOLDERS,
  groupIgnorePatterns,
  RUN_ALONE,
  wholeRun,
} from '../helpers/test-groups.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

/** What a whole run's ignore patterns leave out, as Jest applies them (against absolute paths). */
function ignoredInWholeRun(path: string): boolean {
  return groupIgnorePatterns(true).some((pattern) =>
    new RegExp(pattern.replace('<rootDir>', ROOT)).test(join(ROOT, path)),
  );
}

/**
 * What a file may not do when it shares a registry with others: hooks or tests outside a
 * `describe`, `apiSuite` (whose hooks go where it is called) included, since they would wrap every
 * file of its group; and a top-level `await` (collection would start its application while the
 * files before it are still to run).
 */
const OUTSIDE_DESCRIBE =
  /^(beforeAll|afterAll|beforeEach|afterEach|it|test|apiSuite)(\.each)?\(|^(const|let|var) [^=]+= (await |apiSuite\()|^await /m;

describe('the test groups of a whole run', () => {
  it.each(GROUPED_FOLDERS)('load every spec file of test/%s exactly once, those that run alone apart', (folder) => {
    const count = groupCount(folder);
    expect(count).toBeGreaterThan(0);
    const loaded = Array.from({ length: count }, (_, i) => filesOfGroup(folder, i + 1)).flat();
    const files = readdirSync(join(ROOT, 'test', folder))
      .filter((name) => /\.(e2e-)?spec\.ts$/.test(name))
      .map((name) => `test/${folder}/${name}`);
    expect(files.length).toBeGreaterThan(count);
    expect([...loaded, ...RUN_ALONE.filter((path) => path.startsWith(`test/${folder}/`))].sort()).toEqual(files.sort());
    for (let i = 1; i <= count; i++) expect(filesOfGroup(folder, i).length).toBeGreaterThan(0);
  });

  it('name files that exist, in grouped folders', () => {
    for (const path of RUN_ALONE) {
      expect(GROUPED_FOLDERS).toContain(path.split('/')[1]);
      expect(() => readFileSync(join(ROOT, path))).not.toThrow();
    }
  });

  it.each(GROUPED_FOLDERS)('hold only files of test/%s whose hooks and tests sit inside a describe', (folder) => {
    const offending = groupedFiles(folder).filter((path) =>
      OUTSIDE_DESCRIBE.test(readFileSync(join(ROOT, path), 'utf8')),
    );
    expect(offending).toEqual([]);
  });

  it('tell a file that does not belong (a root-level hook or apiSuite, a top-level await)', () => {
    expect(OUTSIDE_DESCRIBE.test("import x from 'y';\nbeforeAll(async () => {});\n")).toBe(true);
    expect(OUTSIDE_DESCRIBE.test('const t: TestApp = await createTestApp();\n')).toBe(true);
    expect(OUTSIDE_DESCRIBE.test('const suite = apiSuite({ login: false });\n')).toBe(true);
    expect(OUTSIDE_DESCRIBE.test("describe('x', () => {\n  beforeAll(async () => {});\n});\n")).toBe(false);
  });

  it('stand in for their files only in a whole run, which never runs a grouped file on its own', async () => {
    expect(wholeRun(await buildArgv([]))).toBe(true);
    expect(wholeRun(await buildArgv(['-t', 'people', '--json']))).toBe(true);
    expect(wholeRun(await buildArgv(['test/api/people.e2e-spec.ts']))).toBe(false);
    expect(wholeRun(await buildArgv(['test/api']))).toBe(false);
    expect(wholeRun(await buildArgv(['--testPathPatterns', 'people']))).toBe(false);
    expect(wholeRun(await buildArgv(['--findRelatedTests', 'src/main.ts']))).toBe(false);

    expect(ignoredInWholeRun('test/api/people.e2e-spec.ts')).toBe(true);
    expect(ignoredInWholeRun('test/unit/pg-timestamps.spec.ts')).toBe(true);
    expect(ignoredInWholeRun('test/groups/api-1.group-spec.ts')).toBe(false);
    expect(ignoredInWholeRun('test/process/embedded-data-dir.e2e-spec.ts')).toBe(false);
    for (const path of RUN_ALONE) expect(ignoredInWholeRun(path)).toBe(false);
    expect(groupIgnorePatterns(false)).toEqual(['<rootDir>/test/groups/']);
  });
});
