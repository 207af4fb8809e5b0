import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// One template per checkout, so two clones (or worktrees) can run their suites against one
// PostgreSQL server at the same time without dropping each other's template.
const checkout = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TEMPLATE_DATABASE = `finance_intake_test_template_${createHash('sha256').update(checkout).digest('hex').slice(0, 8)}`;

/** The maintenance database on the same server, for CREATE/DROP DATABASE. */
export function adminUrl(url) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}
