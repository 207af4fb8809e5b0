import { CliUsageError, requireOption, type CliCommand } from '../cli-command.js';
import { auditFilter } from '../../audit/audit-filter.js';
import { listAuditEvents } from '../../audit/audit-trail.js';
import { FormValidationException } from '../../common/http/validation-failed.exception.js';
import { enterpriseOption, table } from './list.commands.js';

/** The operator's view of an enterprise's audit trail: the API's list, newest first. */
export const auditListCommand: CliCommand = {
  name: 'audit:list',
  summary:
    "List an enterprise's audit events, newest first, 100 a page (time, actor, user, token, action, target, details, client, request).",
  options: [
    { name: 'enterprise', description: 'the enterprise id', required: true },
    { name: 'action', description: 'only this action (e.g. token.issued, webhook_endpoint.created)' },
    { name: 'since', description: 'from this date and time (ISO 8601)' },
    { name: 'until', description: 'before this date and time (ISO 8601)' },
    { name: 'page', description: 'page number (default 1)' },
  ],
  needsDatabase: true,
  checksKey: false,
  async run({ dataSource, out }, args) {
    const enterprise = (await enterpriseOption(dataSource, requireOption(args, 'enterprise'))) ?? '';
    const { page = '1', ...filters } = args.options;
    if (!/^[1-9]\d{0,8}$/.test(page)) throw new CliUsageError('--page must be a whole number from 1.');
    let filter;
    try {
      filter = auditFilter({ action: filters.action, since: filters.since, until: filters.until });
    } catch (error) {
      if (error instanceof FormValidationException) {
        throw new CliUsageError(Object.values(error.errors).flat().join(' '));
      }
      throw error;
    }
    const { records } = await listAuditEvents(dataSource, enterprise, filter, Number(page));
    if (records.length === 0) {
      out('No audit events.');
      return;
    }
    const rows = records.map((e) => [
      e.occurred_at,
      e.actor.type,
      e.actor.user_id ?? '',
      e.actor.token_id ?? '',
      e.action,
      `${e.target.type}:${e.target.id ?? ''}`,
      JSON.stringify(e.details),
      e.client_ip ?? '',
      e.request_id ?? '',
    ]);
    for (const line of table(
      ['time', 'actor', 'user', 'token', 'action', 'target', 'details', 'client', 'request'],
      rows,
    ))
      out(line);
  },
};
