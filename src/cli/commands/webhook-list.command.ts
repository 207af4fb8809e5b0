import type { CliCommand } from '../cli-command.js';
import { endpointLags } from '../../webhook-endpoints/webhook-backlog.queries.js';
import { enterpriseOption, table } from './list.commands.js';

/** Outbound webhooks (issue 31): which endpoints there are, and how far behind each one is. */
export const webhookListCommand: CliCommand = {
  name: 'webhook:list',
  summary:
    'List webhook endpoints (id, enterprise, url, enabled, lag: seconds since its oldest undelivered change), oldest first.',
  options: [{ name: 'enterprise', description: "only this enterprise's endpoints" }],
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, out }, args) {
    const enterprise = await enterpriseOption(dataSource, args.options.enterprise);
    const endpoints = await endpointLags(dataSource, enterprise);
    if (endpoints.length === 0) {
      out(enterprise === undefined ? 'No webhook endpoints.' : 'No webhook endpoints in this enterprise.');
      return;
    }
    const rows = endpoints.map((e) => [
      e.id,
      e.enterprise_id,
      e.url,
      e.enabled ? 'yes' : 'no',
      `${Math.floor(e.lag_seconds)}s`,
    ]);
    for (const line of table(['id', 'enterprise', 'url', 'enabled', 'lag'], rows)) out(line);
  },
};
