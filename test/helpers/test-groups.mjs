import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * A whole `npm test` loads the files of these folders a few at a time, each few through one entry
 * under test/groups/, instead of one file per Jest module registry. A registry costs a file about
 * 1.5 CPU-s before its first test (Jest's environment, the application's modules compiled again,
 * the response check's documents), which is most of what a short file costs. Run with paths
 * (`npm test -- test/api/people.e2e-spec.ts`, `npm test -- test/api`), every file runs on its own.
 */
export const GROUPED_FOLDERS = ['unit', 'api', 'cli', 'e2e'];

/**
 * Files of those folders that build their application while Jest collects their tests (a
 * top-level `await`, for tests generated from its routes): they run in a registry of their own.
 */
export const RUN_ALONE = ['test/api/resource-safety-net.e2e-spec.ts'];

const ROOT = resolve(import.meta.dirname, '../..');
const GROUPS_DIR = join(ROOT, 'test/groups');
const SPEC = /\.(e2e-)?spec\.ts$/;

/** A grouped folder's spec files (repository paths, sorted), those that run alone left out. */
export function groupedFiles(folder) {
  return readdirSync(join(ROOT, 'test', folder))
    .filter((name) => SPEC.test(name))
    .sort()
    .map((name) => `test/${folder}/${name}`)
    .filter((path) => !RUN_ALONE.includes(path));
}

/** How many entries test/groups/ has for a folder (`<folder>-<n>.group-spec.ts`). */
export function groupCount(folder) {
  return readdirSync(GROUPS_DIR).filter((name) => new RegExp(`^${folder}-\\d+\\.group-spec\\.ts$`).test(name)).length;
}

/** The files of group `index` (1-based) of a folder: every n-th file of the sorted list. */
export function filesOfGroup(folder, index) {
  const count = groupCount(folder);
  return groupedFiles(folder).filter((_, i) => i % count === index - 1);
}

/** Imports the files of one group, in order, so their tests register in this file's registry. */
export async function importGroup(folder, index) {
  for (const path of filesOfGroup(folder, index)) await import(join(ROOT, path));
}

/**
 * Whether Jest runs everything (no test paths, patterns or changed-file selection given): only
 * then do the groups stand in for their files. `argv` as jest-cli's `buildArgv` parses it.
 */
export function wholeRun(argv) {
  return (
    argv._.length === 0 &&
    !argv.testPathPatterns?.length &&
    !argv.findRelatedTests &&
    !argv.onlyChanged &&
    !argv.lastCommit &&
    !argv.changedSince &&
    !argv.watch
  );
}

/**
 * testPathIgnorePatterns for a run: in a whole run the grouped folders' files (the groups load
 * them), those that run alone excepted; otherwise the group entries.
 */
export function groupIgnorePatterns(whole) {
  if (!whole) return ['<rootDir>/test/groups/'];
  const alone = RUN_ALONE.map((path) => path.split('/').pop()?.replace(/\./g, '\\.'));
  const except = alone.length > 0 ? `(?!(${alone.join('|')})$)` : '';
  return GROUPED_FOLDERS.map((folder) => `<rootDir>/test/${folder}/${except}[^/]+\\.(e2e-)?spec\\.ts$`);
}
