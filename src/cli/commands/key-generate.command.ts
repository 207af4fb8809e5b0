import type { CliCommand } from '../cli-command.js';
import { generateAppKey } from '../../config/app-key.js';

export const keyGenerateCommand: CliCommand = {
  name: 'key:generate',
  summary: 'Print a new random APP_KEY value.',
  needsDatabase: false,
  run({ out }) {
    out(generateAppKey());
    return Promise.resolve();
  },
};
