import { escapeControlCharacters } from '../../common/text/control-characters.js';
import { CliUsageError, type CliCommand } from '../cli-command.js';
import { selectRows, type SqlExecutor } from '../../database/sql.js';
import { realEnterprise } from '../../database/no-enterprise.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The `--enterprise` option of a list command: absent, or the id of an enterprise that exists
 * (a usage error otherwise).
 */
export async function enterpriseOption(db: SqlExecutor, enterprise: string | undefined): Promise<string | undefined> {
  if (enterprise === undefined) return undefined;
  if (!UUID.test(enterprise)) throw new CliUsageError(`--enterprise must be an enterprise id (a UUID).`);
  const [found] = await selectRows(db, `SELECT 1 FROM enterprises e WHERE e.id = $1 AND ${realEnterprise('e')}`, [
    enterprise,
  ]);
  if (!found) throw new CliUsageError(`No enterprise with the id ${enterprise}.`);
  return enterprise;
}

/** Rows as tab-separated lines under a header, so they read in a terminal and cut/awk alike. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [header.join('\t'), ...rows.map((row) => row.map(printable).join('\t'))];
}

/** A cell as it may be printed: control characters escaped (see escapeControlCharacters). */
export const printable = escapeControlCharacters;

const active = (flag: number): string => (flag === 1 ? 'yes' : 'no');

export const userListCommand: CliCommand = {
  name: 'user:list',
  summary: 'List users (id, email, name, active, enterprises), oldest first.',
  options: [{ name: 'enterprise', description: "only this enterprise's members" }],
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, out }, args) {
    const enterprise = await enterpriseOption(dataSource, args.options.enterprise);
    const users = await selectRows<{ id: string; email: string; name: string; is_active: number; enterprises: string }>(
      dataSource,
      `SELECT u.id, u.email, u.name, u.is_active,
              COALESCE(string_agg(m.enterprise_id::text, ',' ORDER BY m.enterprise_id), '') AS enterprises
         FROM users u
         LEFT JOIN memberships m ON m.user_id = u.id
        WHERE $1::uuid IS NULL OR EXISTS (SELECT 1 FROM memberships f WHERE f.user_id = u.id AND f.enterprise_id = $1)
        GROUP BY u.id
        ORDER BY u.created_at, u.id`,
      [enterprise ?? null],
    );
    if (users.length === 0) {
      out(enterprise === undefined ? 'No users.' : 'No users in this enterprise.');
      return;
    }
    table(
      ['id', 'email', 'name', 'active', 'enterprises'],
      users.map((u) => [u.id, u.email, u.name, active(u.is_active), u.enterprises]),
    ).forEach(out);
  },
};

export const enterpriseListCommand: CliCommand = {
  name: 'enterprise:list',
  summary: 'List enterprises (id, name, active, members, provider B key set), oldest first.',
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, out }) {
    const enterprises = await selectRows<{
      id: string;
      name: string;
      is_active: number;
      members: number;
      keyed: boolean;
    }>(
      dataSource,
      `SELECT e.id, e.name, e.is_active, e.signprovider_b_key_encrypted IS NOT NULL AS keyed,
              (SELECT count(*)::int FROM memberships m WHERE m.enterprise_id = e.id) AS members
         FROM enterprises e
        WHERE ${realEnterprise('e')}
        ORDER BY e.created_at, e.id`,
    );
    if (enterprises.length === 0) {
      out('No enterprises.');
      return;
    }
    table(
      ['id', 'name', 'active', 'members', 'provider_b_key'],
      enterprises.map((e) => [e.id, e.name, active(e.is_active), String(e.members), e.keyed ? 'set' : 'unset']),
    ).forEach(out);
  },
};
