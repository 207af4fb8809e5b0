import { requireOption, type CliCommand } from '../cli-command.js';
import { setUserActive } from '../../users/user-activation.js';

export const userDeactivateCommand: CliCommand = {
  name: 'user:deactivate',
  summary: 'Lock a user out: no login, and every token of theirs answers 401 (password and tokens kept).',
  options: [{ name: 'email', description: 'login email', required: true }],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    await setUserActive(dataSource, requireOption(args, 'email'), false);
    out('User deactivated; their tokens answer 401 until user:activate.');
  },
};

export const userActivateCommand: CliCommand = {
  name: 'user:activate',
  summary: 'Let a deactivated user back in: login works again, and so do their unexpired tokens.',
  options: [{ name: 'email', description: 'login email', required: true }],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    await setUserActive(dataSource, requireOption(args, 'email'), true);
    out('User activated.');
  },
};
