import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { demoDocument } from '../../src/demo/demo-document.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { RESOURCES_PAGE, RESOURCES_PAGE_COMMAND, resourcesPage } from '../../src/docs/resources-page.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

/**
 * The lists kept by hand, checked against the descriptors and the files: a new resource or
 * migration turns this file red, naming the list to add it to. The documents keep none: their
 * resource table is written from the descriptors.
 */

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

const paths = TENANT_RESOURCES.map((r) => r.path);

describe('the documents name every resource', () => {
  it(`${RESOURCES_PAGE}, the resource table and the derived import sections, is what ${RESOURCES_PAGE_COMMAND} writes`, () => {
    const written = read(RESOURCES_PAGE);
    expect(
      written === resourcesPage() ? 'current' : `${RESOURCES_PAGE} is out of date: run ${RESOURCES_PAGE_COMMAND}`,
    ).toBe('current');
  });

  it('the guides keep no list of resources of their own: they link to the resource table', () => {
    for (const file of ['README.md', 'docs/api-guide.md', 'docs/import-format.md']) {
      expect(`${file}: ${read(file).includes('resources.md')}`).toBe(`${file}: true`);
    }
  });

  it('the demo data, which has records of every resource', () => {
    const demo = demoDocument();
    expect(
      paths
        .filter((path) => (demo[path]?.length ?? 0) === 0)
        .map((path) => `src/demo/demo-document.ts: give demoDocument() records of ${path}`),
    ).toEqual([]);
  });

  it('the migrations: each listed once, in the order of their timestamps, its class named as its file', () => {
    const files = readdirSync(new URL('../../migrations/', import.meta.url)).filter((file) => file.endsWith('.ts'));
    const listed = MIGRATIONS.map((migration) => migration.name);
    expect(migrationProblems(files, listed)).toEqual([]);
  });

  it('can fail: an unlisted migration, one out of order or listed twice, and a class named apart from its file are named', () => {
    expect(
      migrationProblems(
        ['1765200000000-tenancy.ts', '1796000000000-notes.ts', '1700000000000-old.ts'],
        ['Tenancy1765200000000', 'Old1700000000000', 'Other1790000000000', 'Tenancy1765200000000'],
      ),
    ).toEqual([
      'src/database/migrations.ts: Old1700000000000 is listed after a later migration; keep MIGRATIONS in timestamp order',
      "src/database/migrations.ts: Other1790000000000 has no file migrations/1790000000000-*.ts; name the class with its file's timestamp",
      'src/database/migrations.ts: Tenancy1765200000000 is listed twice (or shares its timestamp); list each migration once',
      'src/database/migrations.ts: Tenancy1765200000000 is listed after a later migration; keep MIGRATIONS in timestamp order',
      'migrations/1796000000000-notes.ts: not in MIGRATIONS (src/database/migrations.ts); add its class at the end',
    ]);
  });
});

/** What is wrong with the migration files and the list of their classes, in words naming the fix. */
function migrationProblems(files: readonly string[], listed: readonly string[]): string[] {
  const problems: string[] = [];
  const stamp = (name: string): string => /(\d{13})$/.exec(name)?.[1] ?? '';
  let previous = '';
  for (const [index, name] of listed.entries()) {
    const at = stamp(name);
    if (listed.slice(0, index).some((earlier) => stamp(earlier) === at))
      problems.push(
        `src/database/migrations.ts: ${name} is listed twice (or shares its timestamp); list each migration once`,
      );
    if (at < previous)
      problems.push(
        `src/database/migrations.ts: ${name} is listed after a later migration; keep MIGRATIONS in timestamp order`,
      );
    previous = at > previous ? at : previous;
    if (!files.some((file) => file.startsWith(`${at}-`)))
      problems.push(
        `src/database/migrations.ts: ${name} has no file migrations/${at || '<timestamp>'}-*.ts; name the class with its file's timestamp`,
      );
  }
  for (const file of files) {
    const at = /^(\d{13})-/.exec(file)?.[1];
    if (at === undefined) problems.push(`migrations/${file}: name it <timestamp in ms>-<name>.ts`);
    else if (!listed.some((name) => stamp(name) === at))
      problems.push(`migrations/${file}: not in MIGRATIONS (src/database/migrations.ts); add its class at the end`);
  }
  return problems;
}

describe('the recipe of docs/extending.md', () => {
  it('names the pieces of src/writes/ that exist, under those names', async () => {
    const recipe = read('docs/extending.md');
    const modules: Record<string, string[]> = {
      'src/writes/writable-routes.ts': ['writableRoutes'],
      'src/writes/write-routes.ts': ['CreateRoute', 'UpdateRoute'],
      'src/writes/resource-body.decorator.ts': ['ResourceBody'],
      'src/writes/v2-input.ts': ['validatedV2Input'],
      'src/writes/write-rules.ts': ['Required', 'IsText', 'MaxChars', 'IsOneOf', 'IsDateTime', 'IsRecordId'],
      'src/writes/write-access.guard.ts': ['recordWriteAccess'],
    };
    const missing: string[] = [];
    for (const [file, names] of Object.entries(modules)) {
      if (!recipe.includes(`\`${file}\``)) missing.push(`docs/extending.md does not name ${file}`);
      const exported = (await import(`../../${file.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
      for (const name of names) if (exported[name] === undefined) missing.push(`${file} no longer exports ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
