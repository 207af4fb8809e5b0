import type { DataSource } from 'typeorm';
import { importDocument } from '../cli/import/importer.js';
import { verifyPassword } from '../auth/password-hasher.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { selectRows } from '../database/sql.js';
import { DEMO_CREDENTIALS, DEMO_ENTERPRISE_ID, demoDocument } from './demo-document.js';
import { realEnterprise } from '../database/no-enterprise.js';

export interface SeedOutcome {
  seeded: boolean;
  /** Lines for the start-up banner: the demo credentials when the demo data is there. */
  banner: string[];
}

function credentialLines(): string[] {
  return [
    `  Demo enterprise: ${DEMO_ENTERPRISE_ID}`,
    ...DEMO_CREDENTIALS.map((c) => `  Demo login: ${c.email} / ${c.password}`),
  ];
}

/**
 * The demo credentials as they are now: a password is printed only while it still logs in
 * (`user:password` changes it, `user:deactivate` ends it); otherwise the line says so.
 */
async function currentCredentialLines(dataSource: DataSource): Promise<string[]> {
  const rows = await selectRows<{ email: string; password_hash: string; is_active: number }>(
    dataSource,
    'SELECT email, password_hash, is_active FROM users WHERE lower(email) = ANY($1)',
    [DEMO_CREDENTIALS.map((c) => c.email.toLowerCase())],
  );
  const byEmail = new Map(rows.map((row) => [row.email.toLowerCase(), row]));
  const lines = [`  Demo enterprise: ${DEMO_ENTERPRISE_ID}`];
  for (const credential of DEMO_CREDENTIALS) {
    const row = byEmail.get(credential.email.toLowerCase());
    if (!row) continue;
    const valid = row.is_active === 1 && (await verifyPassword(row.password_hash, credential.password));
    lines.push(
      valid
        ? `  Demo login: ${credential.email} / ${credential.password}`
        : `  Demo login: ${credential.email} (its demo password no longer works: changed or deactivated)`,
    );
  }
  return lines;
}

/** Loads the demo data set through the importer (idempotent: stable ids). */
export async function seedDemo(dataSource: DataSource, cipher: FieldCipher): Promise<string[]> {
  const outcome = await importDocument(dataSource, cipher, demoDocument());
  if (!outcome.ok) throw new Error(`The demo data set did not import:\n${outcome.problems.join('\n')}`);
  return credentialLines();
}

/** The embedded database's first start: seed when there is no enterprise at all. */
export async function seedDemoIfEmpty(dataSource: DataSource, cipher: FieldCipher): Promise<SeedOutcome> {
  const rows: { present: boolean; demo: boolean }[] = await dataSource.query(
    `SELECT EXISTS (SELECT 1 FROM enterprises e WHERE ${realEnterprise('e')}) AS present, EXISTS (SELECT 1 FROM enterprises WHERE id = $1) AS demo`,
    [DEMO_ENTERPRISE_ID],
  );
  const state = rows[0] ?? { present: false, demo: false };
  if (!state.present) return { seeded: true, banner: await seedDemo(dataSource, cipher) };
  return { seeded: false, banner: state.demo ? await currentCredentialLines(dataSource) : [] };
}
