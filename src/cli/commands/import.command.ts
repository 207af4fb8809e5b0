import { CliUsageError, type CliCommand } from '../cli-command.js';
import { importFile } from '../import/importer.js';

export class ImportRejected extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`The import was rejected: ${problems.length} problem(s); nothing was written.`);
    this.name = 'ImportRejected';
  }
}

export const importCommand: CliCommand = {
  name: 'import',
  summary: 'Load a JSON file (format: docs/import-format.md): validated whole, written in one transaction.',
  positionals: ['<file.json>'],
  needsDatabase: true,
  async run({ dataSource, cipher, out }, args) {
    const [file] = args.positionals;
    if (!file) throw new CliUsageError('import needs a file: import <file.json>');
    const outcome = await importFile(dataSource, cipher, file);
    if (!outcome.ok) throw new ImportRejected(outcome.problems);
    out('Imported:');
    for (const [resource, { total, created, updated }] of Object.entries(outcome.counts)) {
      out(`  ${resource}: ${total} (${created} created, ${updated} updated, ${total - created - updated} unchanged)`);
    }
  },
};
