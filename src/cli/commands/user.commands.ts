import { requireOption, type CliCommand } from '../cli-command.js';
import { optionOrStdin } from '../read-secret.js';
import { UserAccounts } from '../../users/user-accounts.js';

const PASSWORD_OPTION = { name: 'password', description: 'password (read from standard input when absent)' };

export const userCreateCommand: CliCommand = {
  name: 'user:create',
  summary: 'Create a user (argon2id password hash); optionally add it to an enterprise.',
  options: [
    { name: 'email', description: 'login email', required: true },
    { name: 'name', description: 'display name', required: true },
    PASSWORD_OPTION,
    { name: 'enterprise', description: 'enterprise id to join' },
  ],
  needsDatabase: true,
  async run({ dataSource, out, io }, args) {
    const accounts = new UserAccounts(dataSource);
    const email = requireOption(args, 'email');
    const id = await accounts.create({
      email,
      name: requireOption(args, 'name'),
      password: await optionOrStdin(args.options.password, 'Password', io),
    });
    const enterprise = args.options.enterprise;
    if (enterprise !== undefined) await accounts.addMembership(email, enterprise);
    out(id);
  },
};

export const userPasswordCommand: CliCommand = {
  name: 'user:password',
  summary: "Change a user's password; all of the user's tokens stop working.",
  options: [{ name: 'email', description: 'login email', required: true }, PASSWORD_OPTION],
  needsDatabase: true,
  async run({ dataSource, out, io }, args) {
    const email = requireOption(args, 'email');
    const password = await optionOrStdin(args.options.password, 'Password', io);
    await new UserAccounts(dataSource).changePassword(email, password);
    out('Password changed; existing tokens revoked.');
  },
};

export const memberAddCommand: CliCommand = {
  name: 'member:add',
  summary: 'Make a user a member of an enterprise.',
  options: [
    { name: 'email', description: 'login email', required: true },
    { name: 'enterprise', description: 'enterprise id', required: true },
  ],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    await new UserAccounts(dataSource).addMembership(requireOption(args, 'email'), requireOption(args, 'enterprise'));
    out('Membership added.');
  },
};
