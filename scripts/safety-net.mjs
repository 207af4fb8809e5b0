#!/usr/bin/env node
// `npm run test:safety-net`: the extension recipe's safety net, tested. Each mistake a maintainer
// can make while adding a resource (docs/extending.md, "What catches each mistake") is applied to
// a scratch copy of this working tree, on an existing resource or list; the test the recipe names
// must then fail, with a message that names the fix. A check that cannot fail, or fails without
// saying what to do, is reported here. Runs on the embedded database; nothing of this tree is
// changed.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * A mistake: `edits` replace a text of a file of the scratch copy (each must be found, so the list
 * cannot go stale silently), `tests` are the files the recipe says fail, and `names` the words
 * their output must hold: the fix, not only the symptom.
 */
const MISTAKES = [
  {
    mistake: 'a migration left out of MIGRATIONS',
    edits: [
      {
        file: 'src/database/migrations.ts',
        from: /\n {2}EveryRecordHasAnEnterprise1765400000000,/,
        to: '',
      },
      {
        file: 'src/database/migrations.ts',
        from: /\nimport \{ EveryRecordHasAnEnterprise1765400000000 \}[^\n]*/,
        to: '',
      },
    ],
    tests: ['test/unit/hand-kept-lists.spec.ts'],
    names: ['MIGRATIONS', '1765400000000-every-record-has-an-enterprise.ts'],
  },
  {
    mistake: 'migrations listed out of their timestamps’ order',
    edits: [
      {
        file: 'src/database/migrations.ts',
        from: /\n {2}PrimaryKeysWithEnterprise1765300000000,\n {2}EveryRecordHasAnEnterprise1765400000000,/,
        to: '\n  EveryRecordHasAnEnterprise1765400000000,\n  PrimaryKeysWithEnterprise1765300000000,',
      },
    ],
    tests: ['test/unit/hand-kept-lists.spec.ts'],
    names: ['MIGRATIONS', 'order'],
  },
  {
    mistake: 'a descriptor with neither changeType nor noChangeType',
    edits: [{ file: 'src/applications/applications.resource.ts', from: "\n  changeType: 'application',", to: '' }],
    tests: ['test/unit/tenant-resources.spec.ts'],
    names: ['addTenantTable'],
  },
  {
    mistake: 'a tag used by two descriptors',
    edits: [
      {
        file: 'src/applications/applications.resource.ts',
        from: "tag: { name: 'Applications',",
        to: "tag: { name: 'Quotes',",
      },
    ],
    tests: ['test/unit/tenant-resources.spec.ts'],
    names: ['tag Quotes is used by applications and quotes', 'give each descriptor its own'],
  },
  {
    mistake: 'the resource page not written again after a descriptor changed',
    edits: [{ file: 'docs/resources.md', from: /\n\| Applications \|[^\n]*/, to: '' }],
    tests: ['test/unit/hand-kept-lists.spec.ts'],
    names: ['docs/resources.md is out of date', 'npm run docs:resources'],
  },
  {
    mistake: 'a CHECK over several columns the samples cannot read, and no validSample',
    edits: [
      {
        file: 'src/applications/application.entity.ts',
        from: 'import { Column, Entity,',
        to: 'import { Check, Column, Entity,',
      },
      {
        file: 'src/applications/application.entity.ts',
        from: '\nexport class Application {',
        to: `\n@Check('applications_probe_check', "contract_number <> (crm_deal_id || 'x')")\nexport class Application {`,
      },
    ],
    tests: ['test/unit/import-sections.spec.ts'],
    names: ['applications_probe_check', 'validSample'],
  },
  {
    mistake: 'a descriptor without an import section',
    edits: [{ file: 'src/applications/applications.resource.ts', from: "\n  importSection: 'entity',", to: '' }],
    tests: ['test/unit/import-sections.spec.ts'],
    names: ['applications has no import section', "importSection: 'entity'"],
  },
  {
    mistake: 'a writable descriptor without the module of its controllers',
    edits: [{ file: 'src/leads/leads.resource.ts', from: /\n {2}writeModule: [^\n]*/, to: '' }],
    tests: ['test/unit/tenant-resources.spec.ts'],
    names: ['leads is writable', 'writeModule'],
  },
  {
    mistake: "a write that accepts a reference to another enterprise's record",
    edits: [
      {
        file: 'src/writes/table-writes.ts',
        from: 'WHERE enterprise_id = $1 AND id = $${i + 2}',
        to: 'WHERE $1::uuid IS NOT NULL AND id = $${i + 2}',
      },
    ],
    tests: ['test/e2e/table-writes.e2e-spec.ts'],
    names: ['person_id', 'The selected person id is invalid.'],
  },
  {
    mistake: 'a nullable column documented as always present',
    edits: [
      {
        file: 'src/applications/application.schema.ts',
        from: '@TextField({ nullable: true }) contract_number',
        to: '@TextField() contract_number',
      },
    ],
    tests: ['test/unit/schema-nullability.spec.ts'],
    names: ['applications.contract_number', 'give its field { nullable: true }'],
  },
  {
    mistake: 'a type rule left off a written field',
    edits: [
      {
        file: 'src/leads/dto/lead-v2.input.ts',
        from: '@Required() @IsText() @MaxChars(NAME_MAX_CHARS) @IsStorable() title?: unknown;',
        to: '@Required() @MaxChars(NAME_MAX_CHARS) @IsStorable() title?: unknown;',
      },
    ],
    tests: ['test/api/writable-resources.e2e-spec.ts'],
    names: ['v2 POST /leads, title', 'give the field its rule in the input class'],
  },
  {
    mistake: 'a create that does not apply the Idempotency-Key',
    edits: [
      {
        file: 'src/leads/v2/leads.controller.ts',
        from: 'this.writes.run(write, (db) => this.leads.create(',
        to: 'this.writes.run({ ...write, keyHeader: undefined }, (db) => this.leads.create(',
      },
    ],
    tests: ['test/api/writable-resources.e2e-spec.ts'],
    names: ['v2 POST /leads twice with one Idempotency-Key', 'this.writes.run(write'],
  },
  {
    mistake: 'a descriptor left out of TENANT_RESOURCES',
    edits: [{ file: 'src/resources/tenant-resources.ts', from: ' APPLICATIONS,', to: '' }],
    tests: ['test/unit/tenant-resources.spec.ts'],
    names: ['change type application', 'TENANT_RESOURCES (src/resources/tenant-resources.ts)'],
  },
  {
    mistake: 'an entity column that disagrees with its migration',
    edits: [
      {
        file: 'src/applications/application.entity.ts',
        from: '@VarcharColumn({ nullable: true }) contractNumber',
        to: '@VarcharColumn({ nullable: true, length: 64 }) contractNumber',
      },
    ],
    tests: ['test/e2e/entities-match-migrations.e2e-spec.ts'],
    names: ['contract_number'],
  },
];

function run(command, args, cwd, env = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The tracked and new files of this working tree (not what .gitignore leaves out), copied. */
function scratchCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-safety-net-'));
  const listed = run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT);
  if (listed.code !== 0) throw new Error(`git ls-files failed:\n${listed.output}`);
  for (const file of listed.output.split('\0').filter((f) => f !== '')) {
    try {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      cpSync(join(ROOT, file), join(dir, file));
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error; // a file deleted in the working tree
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

function applyEdits(dir, edits) {
  const originals = new Map();
  for (const edit of edits) {
    const path = join(dir, edit.file);
    const text = readFileSync(path, 'utf8');
    if (!originals.has(path)) originals.set(path, text);
    const found = typeof edit.from === 'string' ? text.includes(edit.from) : edit.from.test(text);
    if (!found) throw new Error(`${edit.file}: the text to change is not there any more (${String(edit.from)})`);
    writeFileSync(path, text.replace(edit.from, edit.to));
  }
  return () => {
    for (const [path, text] of originals) writeFileSync(path, text);
  };
}

function main() {
  const only = process.argv.slice(2);
  const dir = scratchCopy();
  const failures = [];
  const jestEnv = { TZ: 'UTC', NODE_OPTIONS: '--experimental-vm-modules --no-warnings', DATABASE_URL: '' };
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const jest = join(dir, 'node_modules/.bin/jest');
    // The tree as it is must pass the named tests, or a red one below proves nothing.
    const clean = run(npm, ['run', 'build', '--silent'], dir);
    if (clean.code !== 0) throw new Error(`the scratch copy does not build:\n${clean.output}`);
    const allTests = [...new Set(MISTAKES.flatMap((m) => m.tests))];
    const baseline = run(jest, ['--ci', ...allTests], dir, jestEnv);
    if (baseline.code !== 0) throw new Error(`the named tests fail before any mistake:\n${baseline.output}`);
    for (const entry of MISTAKES) {
      if (only.length > 0 && !only.some((word) => entry.mistake.includes(word))) continue;
      const started = Date.now();
      const restore = applyEdits(dir, entry.edits);
      try {
        const built = run(npm, ['run', 'build', '--silent'], dir);
        const tested = built.code === 0 ? run(jest, ['--ci', ...entry.tests], dir, jestEnv) : built;
        const missing = entry.names.filter((word) => !tested.output.includes(word));
        const seconds = ((Date.now() - started) / 1000).toFixed(0);
        if (tested.code === 0) {
          failures.push(`${entry.mistake}: ${entry.tests.join(', ')} passed; the check cannot fail`);
          process.stdout.write(`FAIL  ${entry.mistake}: not caught (${seconds} s)\n`);
        } else if (missing.length > 0) {
          failures.push(`${entry.mistake}: red, but the output does not name ${missing.join(', ')}`);
          process.stdout.write(`FAIL  ${entry.mistake}: red without naming ${missing.join(', ')} (${seconds} s)\n`);
          if (process.env.SAFETY_NET_VERBOSE === 'true') process.stdout.write(`${tested.output}\n`);
        } else {
          process.stdout.write(
            `ok    ${entry.mistake}: ${entry.tests.join(', ')} red, naming ${entry.names.join(', ')} (${seconds} s)\n`,
          );
        }
      } finally {
        restore();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    process.stderr.write(`\nThe safety net has holes:\n${failures.map((f) => `- ${f}`).join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(`\nEvery listed mistake turned its test red and named the fix.\n`);
}

main();
