import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { demoDocument } from '../../src/demo/demo-document.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { writableAtAll } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

/**
 * The lists the documents keep by hand, checked against the descriptors: a new resource turns
 * this file red, naming the document and the sentence to add it to.
 */

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** The paragraph (or table) of `file` that starts with the line holding `phrase`. */
function paragraph(file: string, phrase: string): string {
  const text = read(file);
  const at = text.indexOf(phrase);
  if (at < 0) throw new Error(`${file} no longer says "${phrase}": update test/unit/hand-kept-lists.spec.ts`);
  const start = text.lastIndexOf('\n\n', at) + 2;
  const end = text.indexOf('\n\n', at);
  return text.slice(start, end < 0 ? undefined : end);
}

const word = (name: string): RegExp => new RegExp(`(^|[^\\w-])${name}([^\\w-]|$)`, 'i');

function missing(file: string, phrase: string, names: readonly string[], form: (n: string) => RegExp = word): string[] {
  const text = paragraph(file, phrase);
  return names.filter((name) => !form(name).test(text)).map((name) => `${file}, "${phrase}...": add ${name}`);
}

const paths = TENANT_RESOURCES.map((r) => r.path);
const readOnly = TENANT_RESOURCES.filter((r) => !writableAtAll(r)).map((r) => r.path);
const paged = TENANT_RESOURCES.filter((r) => r.rows.paged).map((r) => r.path);
const inFeed = TENANT_RESOURCES.filter((r) => r.changeType).map((r) => r.path);
/** Every character a regular expression gives a meaning (an unescaped `|` matched any text). */
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const tableRow = (p: string): RegExp => new RegExp(escape(`| \`/${p}\`, \`/${p}/{id}\` |`));

describe('the lists kept by hand in the documents name every resource', () => {
  it('the API guide', () => {
    expect([
      ...missing('docs/api-guide.md', '| Path (under `/api/v2`)', paths, tableRow),
      ...missing('docs/api-guide.md', 'are read-only. The writes', ['enterprises', ...readOnly]),
      ...missing('docs/api-guide.md', 'are paged, 100 records a page', paged),
      ...missing('docs/api-guide.md', 'lists the records of the enterprise that changed', inFeed),
      ...missing('docs/api-guide.md', '`types` (comma-separated', CHANGE_TYPES, (t) => new RegExp(`\`${t}\``)),
      ...missing('docs/api-guide.md', 'comma-separated list of:', CHANGE_TYPES),
      ...missing('docs/api-guide.md', 'Every list and retrieve of', inFeed),
    ]).toEqual([]);
  });

  it("can fail: a resource missing from the API guide's table is named", () => {
    expect(missing('docs/api-guide.md', '| Path (under `/api/v2`)', ['no-such-resources'], tableRow)).toEqual([
      'docs/api-guide.md, "| Path (under `/api/v2`)...": add no-such-resources',
    ]);
  });

  it('the README and the import format', () => {
    expect([
      ...missing('README.md', 'Broker CRM integrations read', paths),
      ...missing('docs/import-format.md', 'Its keys are any of the sections', paths, (p) => new RegExp(`\`${p}\``)),
      ...missing('docs/import-format.md', 'Everything else (', readOnly),
    ]).toEqual([]);
  });

  it('the demo data, which has records of every resource', () => {
    const demo = demoDocument();
    expect(
      paths
        .filter((path) => (demo[path]?.length ?? 0) === 0)
        .map((path) => `src/demo/demo-document.ts: give demoDocument() records of ${path}`),
    ).toEqual([]);
  });

  it("the recipe's example migration is newer than every migration", () => {
    const example = /migrations\/(\d{13})-notes\.ts/.exec(read('docs/extending.md'))?.[1];
    const newest = Math.max(...MIGRATIONS.map((m) => Number(/(\d{13})$/.exec(m.name)?.[1] ?? 0)));
    expect({ example: Number(example), newestIsOlder: newest < Number(example) }).toEqual({
      example: Number(example),
      newestIsOlder: true,
    });
  });
});

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
