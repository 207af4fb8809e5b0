import { CliUsageError, listOption, requireOption, type CliCommand } from '../cli-command.js';
import { TOKEN_ABILITIES } from '../../auth/token-abilities.js';
import { TokenAdmin, type TokenListing } from '../../auth/token-admin.js';
import { printable } from './list.commands.js';

function parseDays(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new CliUsageError('--expires-in-days must be a whole number of days.');
  return Number(text);
}

const when = (date: Date | null, none: string): string => (date ? date.toISOString() : none);

function listingLine(token: TokenListing, now: Date): string {
  const expired = token.expiresAt !== null && token.expiresAt <= now ? ' (expired)' : '';
  return [
    token.id,
    token.kind === 'login' ? '(login)' : (token.name ?? ''),
    when(token.createdAt, ''),
    when(token.lastUsedAt, 'never'),
    `${when(token.expiresAt, 'never')}${expired}`,
    token.abilities === null ? 'all' : token.abilities.join(','),
    token.enterpriseIds === null ? 'all' : token.enterpriseIds.join(','),
  ]
    .map(printable)
    .join('\t');
}

export const tokenCreateCommand: CliCommand = {
  name: 'token:create',
  summary: 'Issue an integration token for a user (e.g. a CRM system account); it is printed once.',
  options: [
    { name: 'email', description: "the user's login email", required: true },
    { name: 'name', description: 'what the token is for, shown by token:list (e.g. "CRM sync")', required: true },
    { name: 'expires-in-days', description: 'days until it stops working (default: until revoked)' },
    {
      name: 'abilities',
      description: `what it may do, comma-separated, of: ${TOKEN_ABILITIES.join(', ')} (default: everything its user may)`,
    },
    {
      name: 'enterprise',
      description: 'an enterprise id it may act for; repeat for more (default: every enterprise of its user)',
      repeatable: true,
    },
  ],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    const token = await new TokenAdmin(dataSource).issueIntegrationToken({
      email: requireOption(args, 'email'),
      name: requireOption(args, 'name'),
      expiresInDays: parseDays(args.options['expires-in-days']),
      abilities: listOption(args, 'abilities'),
      enterpriseIds: listOption(args, 'enterprise'),
    });
    // Only the token on standard output, so a script can capture it; it cannot be shown again.
    out(token);
  },
};

export const tokenListCommand: CliCommand = {
  name: 'token:list',
  summary: "List a user's tokens (id, name, created, last used, expires, abilities, enterprises); never the secrets.",
  options: [{ name: 'email', description: "the user's login email", required: true }],
  needsDatabase: true,
  async run({ dataSource, config, out }, args) {
    const tokens = await new TokenAdmin(dataSource).list(requireOption(args, 'email'), config.tokenLifetimeMinutes);
    const now = new Date();
    out(['id', 'name', 'created', 'last used', 'expires', 'abilities', 'enterprises'].join('\t'));
    for (const token of tokens) out(listingLine(token, now));
  },
};

export const tokenRevokeCommand: CliCommand = {
  name: 'token:revoke',
  summary: 'Revoke one token (--id) or every token of a user (--email with --all); they answer 401 at once.',
  options: [
    { name: 'id', description: 'the token id (first column of token:list)' },
    { name: 'email', description: "the user's login email, with --all" },
    { name: 'all', description: 'every token of the user given by --email', flag: true },
  ],
  needsDatabase: true,
  async run({ dataSource, out }, args) {
    const { id, email, all } = args.options;
    const admin = new TokenAdmin(dataSource);
    if (id !== undefined && email === undefined && all === undefined) {
      await admin.revoke(id);
      out('Token revoked.');
      return;
    }
    if (id === undefined && email !== undefined && all === 'true') {
      const count = await admin.revokeAll(email);
      out(`${count} ${count === 1 ? 'token' : 'tokens'} revoked.`);
      return;
    }
    throw new CliUsageError('Give either --id <token id>, or --email <email> --all.');
  },
};
