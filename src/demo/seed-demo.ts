import type { DataSource } from 'typeorm';
import { importDocument } from '../cli/import/importer.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { DEMO_CREDENTIALS, DEMO_ENTERPRISE_ID, demoDocument } from './demo-document.js';

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

/** Loads the demo data set through the importer (idempotent: stable ids). */
export async function seedDemo(dataSource: DataSource, cipher: FieldCipher): Promise<string[]> {
  const outcome = await importDocument(dataSource, cipher, demoDocument());
  if (!outcome.ok) throw new Error(`The demo data set did not import:\n${outcome.problems.join('\n')}`);
  return credentialLines();
}

/** The embedded database's first start: seed when there is no enterprise at all. */
export async function seedDemoIfEmpty(dataSource: DataSource, cipher: FieldCipher): Promise<SeedOutcome> {
  const rows: { present: boolean; demo: boolean }[] = await dataSource.query(
    `SELECT EXISTS (SELECT 1 FROM enterprises) AS present, EXISTS (SELECT 1 FROM enterprises WHERE id = $1) AS demo`,
    [DEMO_ENTERPRISE_ID],
  );
  const state = rows[0] ?? { present: false, demo: false };
  if (!state.present) return { seeded: true, banner: await seedDemo(dataSource, cipher) };
  return { seeded: false, banner: state.demo ? credentialLines() : [] };
}
