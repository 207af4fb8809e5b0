import type { CliCommand } from '../cli-command.js';
import { runMigrations } from '../../database/migration-runner.js';

export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'Apply pending database migrations.',
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, appliedMigrations, out }) {
    // Every database command migrates first (run-cli), so most of the work is already done.
    const applied = [...appliedMigrations, ...(await runMigrations(dataSource))];
    out(applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
  },
};
