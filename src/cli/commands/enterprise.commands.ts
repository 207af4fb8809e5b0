import { requireOption, type CliCommand } from '../cli-command.js';
import { EnterpriseAdmin } from '../../enterprises/enterprise-admin.js';

export const enterpriseCreateCommand: CliCommand = {
  name: 'enterprise:create',
  summary: 'Create an enterprise; prints its id.',
  options: [{ name: 'name', description: 'display name', required: true }],
  needsDatabase: true,
  async run({ dataSource, cipher, out }, args) {
    const id = await new EnterpriseAdmin(dataSource, cipher).create(requireOption(args, 'name'));
    out(id);
  },
};

export const enterpriseSigningKeyCommand: CliCommand = {
  name: 'enterprise:signing-key',
  summary: "Set an enterprise's provider B webhook key (generated and printed when --key is absent).",
  options: [
    { name: 'enterprise', description: 'enterprise id', required: true },
    { name: 'key', description: 'the shared HMAC key configured at provider B' },
  ],
  needsDatabase: true,
  async run({ dataSource, cipher, out }, args) {
    const admin = new EnterpriseAdmin(dataSource, cipher);
    const given = args.options.key;
    const key = await admin.setSigningKey(requireOption(args, 'enterprise'), given);
    out(given === undefined ? `Generated key (configure it at provider B): ${key}` : 'Key stored.');
  },
};
