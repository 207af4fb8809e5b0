import pg from 'pg';
import { hashPassword } from '../../src/auth/password-hasher.js';
import type { FieldCipher } from '../../src/crypto/field-cipher.js';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';

export const BENCH_PEOPLE = Number(process.env.BENCH_PEOPLE ?? 100_000);
export const BENCH_LEADS = 1_000;
/** Organisations and applications each; every application has two quotes, one of them active. */
export const BENCH_BUSINESS_RECORDS = 1_000;
export const BENCH_USER = { email: 'bench@example.com', password: 'bench-password' };
export const BENCH_DOCUMENT = 'bench-document-1';
/** The database the bench creates afresh on the server (BENCH_DATABASE to run two at once). */
const BENCH_DATABASE = process.env.BENCH_DATABASE ?? 'finance_intake_bench';

export interface BenchData {
  url: string;
  enterpriseId: string;
  userId: string;
  leadId: string;
  /** Distinct leads for the update scenario: one per connection, so writers never queue on one row. */
  leadIds: string[];
  lastPage: number;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

const FIRST_NAMES = ['Jane', 'John', 'Aisha', 'Wei', 'Priya', 'Liam', 'Olivia', 'Noah', 'Mia', 'Lucas'];

/**
 * A fresh database (`finance_intake_bench` unless BENCH_DATABASE says), migrated, holding one enterprise with BENCH_PEOPLE
 * people (2 phones, 1 email, 1 address, 3 financials each, one of them 0.00), leads,
 * organisations, applications with their quotes, a user and a provider A document. Generated in SQL: loading 800,000 rows through the importer would
 * measure the importer, not the API.
 */
export async function prepareBenchDatabase(serverUrl: string, cipher: FieldCipher): Promise<BenchData> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  if (!/^[a-z_][a-z0-9_]*$/.test(BENCH_DATABASE)) throw new Error('BENCH_DATABASE must be a plain lowercase name');
  await admin.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${BENCH_DATABASE}`);
  await admin.end();
  const url = withDatabase(serverUrl, BENCH_DATABASE);

  const dataSource = await openDataSource({ url, poolMax: 2 });
  await runMigrations(dataSource);
  const q = (sql: string, params: unknown[] = []): Promise<unknown> => dataSource.query(sql, params);
  try {
    const [{ id: enterpriseId }] = (await q(
      `INSERT INTO enterprises (name, signprovider_b_key_encrypted) VALUES ('Bench Finance', $1) RETURNING id`,
      [cipher.encrypt('bench-provider-b-key')],
    )) as [{ id: string }];
    const [{ id: userId }] = (await q(
      `INSERT INTO users (name, email, password_hash) VALUES ('Bench Broker', $1, $2) RETURNING id`,
      [BENCH_USER.email, await hashPassword(BENCH_USER.password)],
    )) as [{ id: string }];
    await q(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [userId, enterpriseId]);

    const names = FIRST_NAMES.map((name) => cipher.encrypt(name));
    await q(
      `INSERT INTO people (enterprise_id, title, first_name_encrypted, last_name, birthday, gender, licence,
                           licence_state, licence_expiry, dependents, dependents_ages, marital_status,
                           residency_status, created_at, updated_at)
       SELECT $1, 'Ms', ($2::text[])[1 + i % 10], 'Citizen ' || i, DATE '1980-01-01' + (i % 9000),
              'Female', (10000000 + i)::text, 'New South Wales', DATE '2030-01-01', i % 4, '4, 7',
              'Married', 'Citizen', TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 second',
              TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 second'
         FROM generate_series(1, $3::int) AS i`,
      [enterpriseId, names, BENCH_PEOPLE],
    );
    await q(
      `INSERT INTO phone_numbers (enterprise_id, person_id, type, number, is_primary, created_at, updated_at)
       SELECT p.enterprise_id, p.id, k.type, '0400 000 ' || k.n, k.primary_flag, p.created_at, p.created_at
         FROM people p CROSS JOIN (VALUES ('mobile', 1, 1), ('work', 2, 0)) AS k(type, n, primary_flag)`,
    );
    await q(
      `INSERT INTO emails (enterprise_id, person_id, address, is_primary, created_at, updated_at)
       SELECT enterprise_id, id, 'person-' || id || '@example.com', 1, created_at, created_at FROM people`,
    );
    await q(
      `INSERT INTO addresses (enterprise_id, person_id, type, address, line1, suburb, state, postcode, created_at, updated_at)
       SELECT enterprise_id, id, 'Residential', '1 Main St, Sydney, New South Wales, 2000', '1 Main St', 'Sydney',
              'New South Wales', '2000', created_at, created_at FROM people`,
    );
    await q(
      `INSERT INTO financials (enterprise_id, person_id, type, amount, category, created_at, updated_at)
       SELECT p.enterprise_id, p.id, k.type, k.amount, k.category, p.created_at, p.created_at
         FROM people p CROSS JOIN (VALUES ('income', 5200.00, 'salary and wages'),
                                          ('expense', 1200.50, 'rent'),
                                          ('expense', 0.00, 'other')) AS k(type, amount, category)`,
    );
    await q(
      `INSERT INTO organisations (enterprise_id, legal_name, legal_structure, abn, gst_registered, industry,
                                  employees_count, created_at, updated_at)
       SELECT $1, 'Bench Holdings ' || i || ' Pty Ltd', 'Company', lpad(i::text, 11, '5'), i % 2, 'Finance',
              i % 50, TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute', TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute'
         FROM generate_series(1, $2::int) AS i`,
      [enterpriseId, BENCH_BUSINESS_RECORDS],
    );
    await q(
      `INSERT INTO applications (enterprise_id, contract_number, source_of_business, crm_deal_id, created_at, updated_at)
       SELECT $1, 'C-' || i, 'Referral', 'deal-' || i, TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute',
              TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute'
         FROM generate_series(1, $2::int) AS i`,
      [enterpriseId, BENCH_BUSINESS_RECORDS],
    );
    await q(
      `INSERT INTO quotes (enterprise_id, application_id, is_active, asset_type, asset_description, financier,
                           total_finance_amount, created_at, updated_at)
       SELECT a.enterprise_id, a.id, k.active, 'Motor vehicle', 'Sedan', 'Bench Bank', 25000.00 + k.active,
              a.created_at + k.active * INTERVAL '1 second', a.created_at + k.active * INTERVAL '1 second'
         FROM applications a CROSS JOIN (VALUES (0), (1)) AS k(active)`,
    );
    const leads = (await q(
      `INSERT INTO leads (enterprise_id, title, person_name, finance_amount, created_at, updated_at)
       SELECT $1, 'Car loan ' || i, 'Jane Citizen', to_jsonb(20000 + i), TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute',
              TIMESTAMPTZ '2025-01-01' + i * INTERVAL '1 minute'
         FROM generate_series(1, $2::int) AS i
       RETURNING id`,
      [enterpriseId, BENCH_LEADS],
    )) as { id: string }[];
    const leadId = leads[0]?.id ?? '';
    await q(
      `INSERT INTO signing_documents (enterprise_id, provider, external_id, status) VALUES ($1, 'a', $2, 'sent')`,
      [enterpriseId, BENCH_DOCUMENT],
    );
    await q('VACUUM ANALYZE');
    return {
      url,
      enterpriseId,
      userId,
      leadId,
      leadIds: leads.slice(-100).map((lead) => lead.id),
      lastPage: Math.max(1, Math.ceil(BENCH_PEOPLE / 100)),
    };
  } finally {
    await dataSource.destroy();
  }
}
