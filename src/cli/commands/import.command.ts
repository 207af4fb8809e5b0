import { CliUsageError, type CliCommand } from '../cli-command.js';
import { importFile } from '../import/importer.js';
import { progressInterval, PROGRESS_INTERVAL_OPTION } from '../progress-option.js';
import { StderrProgress } from '../progress.js';

export class ImportRejected extends Error {
  /** `problems`: the first ones with their paths; `total`: how many were found in all. */
  constructor(
    readonly problems: readonly string[],
    readonly total: number = problems.length,
  ) {
    super(
      `The import was rejected: ${total} problem(s)` +
        (total > problems.length ? ` (the first ${problems.length} are listed)` : '') +
        '; nothing was written.',
    );
    this.name = 'ImportRejected';
  }
}

export const importCommand: CliCommand = {
  name: 'import',
  summary:
    'Load a JSON file (.json.gz: gzip) in the format of docs/import-format.md: streamed, validated whole, ' +
    'written in one transaction.',
  positionals: ['<file.json>'],
  options: [PROGRESS_INTERVAL_OPTION],
  needsDatabase: true,
  async run({ dataSource, cipher, out, io }, args) {
    const [file] = args.positionals;
    if (!file) throw new CliUsageError('import needs a file: import <file.json>');
    const intervalSeconds = progressInterval(args);
    const outcome = await importFile(dataSource, cipher, file, {
      progress: (bytes, totalBytes) =>
        new StderrProgress({ verb: 'import', stream: io.stderr, bytes, totalBytes, intervalSeconds }),
    });
    if (!outcome.ok) throw new ImportRejected(outcome.problems, outcome.problemCount);
    out('Imported:');
    for (const [resource, { total, created, updated }] of Object.entries(outcome.counts)) {
      out(`  ${resource}: ${total} (${created} created, ${updated} updated, ${total - created - updated} unchanged)`);
    }
  },
};
