import { CliUsageError, type CliCommand } from '../cli-command.js';
import { selectRows } from '../../database/sql.js';
import { endpointLags } from '../../webhook-endpoints/webhook-backlog.queries.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Outbound webhooks (issue 31): which endpoints there are, and how far behind each one is. */
export const webhookListCommand: CliCommand = {
  name: 'webhook:list',
  summary:
    'List webhook endpoints (id, enterprise, url, enabled, lag: seconds since its oldest undelivered change), oldest first.',
  options: [{ name: 'enterprise', description: "only this enterprise's endpoints" }],
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, out }, args) {
    const enterprise = args.options.enterprise;
    if (enterprise !== undefined) {
      if (!UUID.test(enterprise)) throw new CliUsageError(`--enterprise must be an enterprise id (a UUID).`);
      const [found] = await selectRows(dataSource, `SELECT 1 FROM enterprises WHERE id = $1`, [enterprise]);
      if (!found) throw new CliUsageError(`No enterprise with the id ${enterprise}.`);
    }
    const endpoints = await endpointLags(dataSource, enterprise);
    if (endpoints.length === 0) {
      out(enterprise === undefined ? 'No webhook endpoints.' : 'No webhook endpoints in this enterprise.');
      return;
    }
    out(['id', 'enterprise', 'url', 'enabled', 'lag'].join('\t'));
    for (const e of endpoints) {
      out([e.id, e.enterprise_id, e.url, e.enabled ? 'yes' : 'no', `${Math.floor(e.lag_seconds)}s`].join('\t'));
    }
  },
};
