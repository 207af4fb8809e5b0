import type { CliCommand } from '../cli-command.js';
import { runMigrations } from '../../database/migration-runner.js';

export const migrateCommand: CliCommand = {
  name: 'migrate',
  summary: 'Apply pending database migrations.',
  needsDatabase: true,
  async run({ dataSource, out }) {
    const applied = await runMigrations(dataSource);
    out(applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
  },
};
