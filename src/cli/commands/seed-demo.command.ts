import type { CliCommand } from '../cli-command.js';
import { seedDemo } from '../../demo/seed-demo.js';

export const seedDemoCommand: CliCommand = {
  name: 'seed:demo',
  summary: 'Load the demo data set (known passwords: never on a production database).',
  needsDatabase: true,
  async run({ dataSource, cipher, out }) {
    const lines = await seedDemo(dataSource, cipher);
    out('Demo data loaded.');
    lines.forEach(out);
  },
};
