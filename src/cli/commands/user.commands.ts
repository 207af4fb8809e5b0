import { CliUsageError, requireOption, type CliArguments, type CliCommand } from '../cli-command.js';
import type { EnterpriseRole } from '../../common/access/authenticated-user.js';
import { MEMBER_ROLES } from '../../users/membership.entity.js';
import { optionOrStdin } from '../read-secret.js';
import { UserAccounts } from '../../users/user-accounts.js';

const PASSWORD_OPTION = { name: 'password', description: 'password (read from standard input when absent)' };

const ROLE_OPTION = {
  name: 'role',
  description: "admin or member (default: admin for the enterprise's first member, else member)",
};

/** --role, checked; undefined when not given. */
function roleOption(args: CliArguments): EnterpriseRole | undefined {
  const role = args.options.role;
  if (role === undefined) return undefined;
  if (!MEMBER_ROLES.includes(role as EnterpriseRole)) throw new CliUsageError('--role must be admin or member.');
  return role as EnterpriseRole;
}

export const userCreateCommand: CliCommand = {
  name: 'user:create',
  summary: 'Create a user (argon2id password hash); optionally add it to an enterprise.',
  options: [
    { name: 'email', description: 'login email', required: true },
    { name: 'name', description: 'display name', required: true },
    PASSWORD_OPTION,
    { name: 'enterprise', description: 'enterprise id to join' },
    ROLE_OPTION,
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
    const role = roleOption(args);
    if (role !== undefined && enterprise === undefined) throw new CliUsageError('--role needs --enterprise.');
    if (enterprise !== undefined) await accounts.addMembership(email, enterprise, role);
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
    ROLE_OPTION,
  ],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    await new UserAccounts(dataSource).addMembership(
      requireOption(args, 'email'),
      requireOption(args, 'enterprise'),
      roleOption(args),
    );
    out('Membership added.');
  },
};

export const userRoleCommand: CliCommand = {
  name: 'user:role',
  summary: "Set a member's role in an enterprise: admin (also manages its webhook endpoints) or member.",
  options: [
    { name: 'email', description: 'login email', required: true },
    { name: 'enterprise', description: 'enterprise id', required: true },
    { name: 'role', description: 'admin or member', required: true },
  ],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    const role = roleOption(args) ?? 'member';
    await new UserAccounts(dataSource).setRole(requireOption(args, 'email'), requireOption(args, 'enterprise'), role);
    out(`Role set to ${role}.`);
  },
};
