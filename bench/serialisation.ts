import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastJson from 'fast-json-stringify';
import { createApp } from '../src/app.factory.js';
import { JsonText } from '../src/database/json-text.js';
import type { AddressRecord, EmailRecord, PhoneNumberRecord } from '../src/contacts/contact.presenter.js';
import { pageEnvelope } from '../src/common/http/pagination.js';
import { loadConfig } from '../src/config/app-config.js';
import { resolveDatabase } from '../src/database/database-target.js';
import { buildOpenApiDocuments } from '../src/openapi/openapi-documents.js';
import type { FinancialRecord, PersonRecord } from '../src/people/person.presenter.js';

/**
 * `npm run bench:serialisation`: what a serialiser compiled by fast-json-stringify from the v2
 * people page's response schema (the one in the served OpenAPI document) would save against
 * `JSON.stringify` on a page of 100 people shaped like the read benchmark's, and whether its
 * bytes are the same. Alternating rounds in one process; prints the median time per page.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PAGES_PER_ROUND = 200;

type JsonSchema = Record<string, unknown>;

async function peoplePageSchema(): Promise<JsonSchema> {
  // The application needs a database to start, not to describe itself: a throwaway embedded one.
  const dataDir = mkdtempSync(join(tmpdir(), 'finance-intake-serialisation-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', MIGRATIONS_RUN: 'false' });
    const database = await resolveDatabase(config, { role: 'cli', command: 'bench:serialisation' });
    const app = await createApp(config, database);
    try {
      const document = buildOpenApiDocuments(app).v2 as unknown as {
        paths: Record<
          string,
          { get: { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> } }
        >;
        components: JsonSchema;
      };
      const list = document.paths['/api/v2/people']?.get.responses['200']?.content['application/json']?.schema;
      if (!list) throw new Error('no 200 schema for GET /api/v2/people in the v2 document');
      // References point at #/components/...: keep them resolvable from the schema's root.
      return { ...list, components: document.components };
    } finally {
      await app.close();
      await database.release();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function at(i: number): Date {
  return new Date(Date.UTC(2025, 0, 1) + i * 1000);
}

/** Nested rows as an organisation's record carries them: their JSON text. */
function collection<T>(data: T[]): JsonText<{ data: T[] }> {
  return new JsonText(JSON.stringify({ data }));
}

/** A page of 100 people as the bench database holds them, with a null, an accent and a quote. */
function peoplePage(): unknown {
  const records = Array.from({ length: 100 }, (_, i) => {
    const stamp = at(i).toISOString();
    const person: Omit<PersonRecord, 'phone_numbers' | 'emails' | 'addresses' | 'financials'> = {
      id: randomUUID(),
      enterprise_id: randomUUID(),
      title: 'Ms',
      first_name: 'Jane',
      middle_name: i % 2 ? null : 'Zoë "Jo"',
      last_name: `Citizen ${i}`,
      salutation: null,
      maiden_name: null,
      birthday: '1980-01-01',
      gender: 'Female',
      licence: String(10000000 + i),
      licence_card: null,
      licence_state: 'New South Wales',
      licence_expiry: '2030-01-01',
      dependents: i % 4,
      dependents_ages: '4, 7',
      marital_status: 'Married',
      residency_status: 'Citizen',
      created_at: stamp,
      updated_at: stamp,
    };
    const phones: PhoneNumberRecord[] = ['Mobile', 'Work'].map((type, n) => ({
      id: randomUUID(),
      type,
      number: `0400 000 ${n}`,
      is_primary: n === 0,
      created_at: stamp,
      updated_at: stamp,
    }));
    const email: EmailRecord = {
      id: randomUUID(),
      address: `person-${i}@example.com`,
      is_primary: true,
      created_at: stamp,
      updated_at: stamp,
    };
    const address: AddressRecord = {
      id: randomUUID(),
      type: 'Residential',
      address: '1 Main St, Sydney, New South Wales, 2000',
      line1: '1 Main St',
      line2: null,
      line3: null,
      suburb: 'Sydney',
      state: 'New South Wales',
      postcode: '2000',
      created_at: stamp,
      updated_at: stamp,
    };
    const financials: FinancialRecord[] = [
      { type: 'Income', amount: '5200.00', category: 'Salary And Wages' },
      { type: 'Expense', amount: '1200.50', category: 'Rent' },
    ].map((f) => ({ id: randomUUID(), ...f, created_at: stamp, updated_at: stamp }));
    return {
      ...person,
      phone_numbers: collection(phones),
      emails: collection([email]),
      addresses: collection([address]),
      financials: collection(financials),
    };
  });
  // A plain object, as the answer reaches the serialiser after the v1/v2 steps.
  return JSON.parse(JSON.stringify(pageEnvelope(records, 100_000, 1, 'http://127.0.0.1:3000/api/v2/people')));
}

function timePerPage(serialise: (value: unknown) => string, value: unknown): number {
  const start = process.hrtime.bigint();
  let bytes = 0;
  for (let i = 0; i < PAGES_PER_ROUND; i++) bytes += serialise(value).length;
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  if (bytes === 0) throw new Error('nothing serialised');
  return elapsed / PAGES_PER_ROUND;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : length;
}

async function main(): Promise<void> {
  const schema = await peoplePageSchema();
  const compiled = fastJson(schema as unknown as Parameters<typeof fastJson>[0]);
  const page = peoplePage();
  const plain = JSON.stringify(page);
  const fast = compiled(page);
  const at = firstDifference(plain, fast);

  const stringify: number[] = [];
  const fastest: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    stringify.push(timePerPage((v) => JSON.stringify(v), page));
    fastest.push(timePerPage((v) => compiled(v), page));
  }
  process.stdout.write(
    [
      `People page of 100 (v2), ${ROUNDS} alternating rounds of ${PAGES_PER_ROUND} pages:`,
      `  JSON.stringify:              ${median(stringify).toFixed(3)} ms a page (median), ${plain.length} bytes`,
      `  fast-json-stringify (schema): ${median(fastest).toFixed(3)} ms a page (median), ${fast.length} bytes`,
      at === -1
        ? '  bytes: identical'
        : `  bytes: differ from character ${at}: ${JSON.stringify(plain.slice(at, at + 60))} against ${JSON.stringify(fast.slice(at, at + 60))}`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
