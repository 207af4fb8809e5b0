import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';

/**
 * Comments, test names and docs say a rule in a few words or link the project's own docs
 * (docs/api-guide.md, docs/decisions/): a rule number ("R7", "R9's order") or a section number
 * of a specification the repository does not ship ("spec 4.3", "section 8") means nothing to
 * the next maintainer. RFCs are public, so "RFC 6750 section 2.1" is fine.
 */
const root = process.cwd();
const self = relative(root, new URL(import.meta.url).pathname);

/** The trees and files a maintainer reads. */
const SCANNED = ['src', 'test', 'bench', 'scripts', 'docs', 'examples', 'README.md'];
// Also what git ignores and tools write: bench:import's generated files reach 1.3 GB.
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage', '.data', 'import-files']);
const TEXT_FILE = /\.(ts|mts|cts|js|mjs|cjs|json|md|sh|ya?ml|txt)$/;

/** A line the file itself marks as an example a checker must catch (a pattern's self-test). */
const EXAMPLE_MARKER = 'rule-citation example';

const CITATIONS: { pattern: RegExp; what: string }[] = [
  { pattern: /\bR\d{1,2}\b/, what: 'a rule number' },
  { pattern: /\bspec(ification)?('s)?\s*(section\s*)?\d/i, what: 'a specification section' },
  { pattern: /(?<!\bRFC\s?\d+\s)\bsections?\s+\d/i, what: 'a section number' },
  { pattern: /\brulings?\b/i, what: 'a ruling' },
  { pattern: /§/, what: 'a section sign' },
];

const FIX =
  'say the rule in a few words (e.g. "newest first, then by id") or link a section of ' +
  "the project's own docs (docs/api-guide.md#errors, docs/decisions/...)";

/** Histograms in bench results are base64 text: letters and digits that are not prose. */
function withoutEncodedData(line: string): string {
  return line.replace(/"HISTF[A-Za-z0-9+/=]*"/g, '""');
}

/** What a line cites, or undefined when it cites nothing. */
export function citationIn(line: string): string | undefined {
  if (line.includes(EXAMPLE_MARKER)) return undefined;
  const text = withoutEncodedData(line);
  return CITATIONS.find(({ pattern }) => pattern.test(text))?.what;
}

function filesUnder(path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED_DIRECTORIES.has(entry.name)) return [];
    const child = join(path, entry.name);
    if (entry.isDirectory()) return filesUnder(child);
    return TEXT_FILE.test(entry.name) ? [child] : [];
  });
}

describe('comments, test names and docs stand alone: no rule numbers or specification sections', () => {
  it('the checker finds each form of citation and leaves plain words alone', () => {
    for (const cited of [
      '/** Newest first (R7). */',
      "// R9's order",
      "it('answers 403 (R11)')",
      ' * The v2 lead body of spec 4.3.',
      'see Specification 7',
      'as section 8 says',
      'the rulings say',
      'see § 4',
    ])
      expect({ cited, found: citationIn(cited) !== undefined }).toEqual({
        cited,
        found: true,
      });
    for (const plain of [
      'RATE_LIMIT_PER_MINUTE',
      'HMAC-SHA256 over the raw body',
      'RFC 6750 section 2.1: the scheme is case-insensitive',
      'the import section of leads',
      'R2D2x',
      '"latencies": "HISTFAAAR7R9xyz=="',
    ])
      expect({ plain, found: citationIn(plain) }).toEqual({ plain, found: undefined });
  });

  it(`finds none in ${SCANNED.join(', ')}`, () => {
    const files = SCANNED.flatMap(filesUnder).filter((file) => file !== self);
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => {
          const what = citationIn(line);
          return what === undefined ? [] : [`${file}:${i + 1}: cites ${what}: ${line.trim().slice(0, 120)}`];
        }),
    );
    expect({ found, fix: found.length === 0 ? undefined : FIX }).toEqual({ found: [], fix: undefined });
  });
});
