import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = process.cwd();

/** README, everything under docs/ and the examples' READMEs: what someone with a clone reads. */
function documents(): string[] {
  const inDocs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(root, 'docs', file));
  const examples = readdirSync(join(root, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, 'examples', entry.name, 'README.md'))
    .filter((file) => existsSync(file));
  return [join(root, 'README.md'), ...inDocs, ...examples];
}

/** The text outside fenced code blocks and inline code (links there are examples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower-case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

interface Link {
  file: string;
  target: string;
}

function relativeLinks(file: string): Link[] {
  const links: Link[] = [];
  for (const match of prose(readFileSync(file, 'utf8')).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    links.push({ file, target });
  }
  return links;
}

/** Why a relative link does not resolve, or undefined when it does. */
function brokenBecause({ file, target }: Link): string | undefined {
  const [path = '', anchor] = target.split('#');
  const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!resolved.startsWith(`${root}/`) && resolved !== root) return 'points outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor !== undefined && resolved.endsWith('.md') && statSync(resolved).isFile()) {
    if (!anchorsOf(resolved).has(anchor)) return `no heading #${anchor}`;
  }
  return undefined;
}

/** Rule numbers and specification section numbers mean nothing to a reader. */
const INTERNAL_REFERENCE = /\bR\d{1,2}\b|\bspec(ification)?\s*(section\s*)?\d|\u00a7/iu;

describe('README and docs/ stand on their own (issue 20)', () => {
  const files = documents();

  it('include the guides a user needs', () => {
    const names = files.map((f) => relative(root, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/api-guide.md',
        'docs/import-format.md',
        'docs/operator-guide.md',
        'docs/configuration.md',
        'docs/cli.md',
        'docs/scaling.md',
        'docs/benchmarks.md',
        'docs/testing.md',
        'docs/decisions/README.md',
        'examples/crm-sync/README.md',
      ]),
    );
  });

  it('link checker: finds a broken link, an outside link and a missing heading', () => {
    const readme = join(root, 'README.md');
    expect(brokenBecause({ file: readme, target: 'docs/nothing.md' })).toBe('no such file');
    expect(brokenBecause({ file: readme, target: '../shared/spec/decisions.md' })).toBe(
      'points outside the repository',
    );
    expect(brokenBecause({ file: readme, target: 'docs/api-guide.md#no-such-heading' })).toBe(
      'no heading #no-such-heading',
    );
    expect(brokenBecause({ file: readme, target: 'docs/api-guide.md#retrying-writes-safely-idempotency-key' })).toBe(
      undefined,
    );
    expect(relativeLinks(readme).length).toBeGreaterThan(3);
  });

  it('every relative link resolves to a file (and heading) inside the repository', () => {
    const broken = files
      .flatMap(relativeLinks)
      .map((link) => ({ file: relative(root, link.file), target: link.target, problem: brokenBecause(link) }))
      .filter((link) => link.problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('never mention ../shared, rule numbers or specification section numbers', () => {
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `${relative(root, file)}:${i + 1}`, line }))
        .filter(({ line }) => line.includes('../shared') || INTERNAL_REFERENCE.test(line)),
    );
    expect(found).toEqual([]);
  });

  it("the CLI's help names only documents the repository ships", () => {
    const cli = readdirSync(join(root, 'src', 'cli'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(join(root, 'src', 'cli', file), 'utf8'));
    const summaries = cli.flatMap((source) =>
      [...source.matchAll(/summary:\s*(['"`])(.*?)\1/g)].map((m) => m[2] ?? ''),
    );
    expect(summaries.length).toBeGreaterThan(5);
    const named = summaries.flatMap((summary) => [...summary.matchAll(/[\w./-]+\.md\b/g)].map((m) => m[0]));
    expect(named).toContain('docs/import-format.md');
    for (const document of named)
      expect({ document, exists: existsSync(join(root, document)) }).toEqual({ document, exists: true });
  });
});
