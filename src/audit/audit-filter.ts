import { FormValidationException } from '../common/http/validation-failed.exception.js';
import { AUDIT_ACTIONS, type AuditFilter } from './audit-trail.js';

/** The query's filters, checked: 422 naming each one that is wrong. */
export function auditFilter(query: Record<string, unknown>): AuditFilter {
  const errors: Record<string, string[]> = {};
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') errors[name] = [`The ${name} must be given once, not empty.`];
    return typeof value === 'string' ? value : undefined;
  };
  const action = text('action');
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    errors.action = [`The action must be one of: ${AUDIT_ACTIONS.join(', ')}.`];
  }
  const moment = (name: string): Date | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const date = new Date(value);
    if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
      errors[name] = [`The ${name} must be a date and time (ISO 8601).`];
      return undefined;
    }
    return date;
  };
  const since = moment('since');
  const until = moment('until');
  if (Object.keys(errors).length > 0) throw new FormValidationException(errors);
  return { ...(action ? { action } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}) };
}
