import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { parseAppKey } from '../../src/config/app-key.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { benchPerson, ENTERPRISE, type BenchPerson } from './import-rows.js';

/**
 * The raw baseline of `bench:import`: the rows the import would write for the bench's people,
 * loaded by hand with one COPY per table in one transaction. The triggers stay on (row counts
 * and the change log are written as for the import); nothing is checked, nothing is looked up,
 * no staging table is used. The first names are encrypted, as stored.
 */

interface Table {
  readonly name: string;
  readonly columns: readonly string[];
  /** The COPY text lines of one person's rows. */
  readonly lines: (person: BenchPerson, now: string) => string[];
}

const tsv = (values: readonly (string | number | null)[]): string =>
  values.map((value) => (value === null ? '\\N' : String(value))).join('\t');
const flag = (value: boolean): number => (value ? 1 : 0);

function tables(cipher: FieldCipher): Table[] {
  return [
    {
      name: 'people',
      columns: [
        'id',
        'enterprise_id',
        'title',
        'first_name_encrypted',
        'last_name',
        'birthday',
        'gender',
        'licence',
        'licence_state',
        'licence_expiry',
        'dependents',
        'dependents_ages',
        'marital_status',
        'residency_status',
        'created_at',
        'updated_at',
      ],
      lines: (p) => [
        tsv([
          p.id,
          p.enterprise_id,
          p.title,
          cipher.encrypt(p.first_name),
          p.last_name,
          p.birthday,
          p.gender,
          p.licence,
          p.licence_state,
          p.licence_expiry,
          p.dependents,
          p.dependents_ages,
          p.marital_status,
          p.residency_status,
          p.created_at,
          p.updated_at,
        ]),
      ],
    },
    {
      name: 'phone_numbers',
      columns: ['id', 'enterprise_id', 'person_id', 'type', 'number', 'is_primary', 'created_at', 'updated_at'],
      lines: (p, now) =>
        p.phone_numbers.map((r) => tsv([r.id, p.enterprise_id, p.id, r.type, r.number, flag(r.is_primary), now, now])),
    },
    {
      name: 'emails',
      columns: ['id', 'enterprise_id', 'person_id', 'address', 'is_primary', 'created_at', 'updated_at'],
      lines: (p, now) =>
        p.emails.map((r) => tsv([r.id, p.enterprise_id, p.id, r.address, flag(r.is_primary), now, now])),
    },
    {
      name: 'addresses',
      columns: [
        'id',
        'enterprise_id',
        'person_id',
        'type',
        'address',
        'line1',
        'suburb',
        'state',
        'postcode',
        'created_at',
        'updated_at',
      ],
      lines: (p, now) =>
        p.addresses.map((r) =>
          tsv([
            r.id,
            p.enterprise_id,
            p.id,
            r.type,
            [r.line1, r.suburb, r.state, r.postcode].join(', '),
            r.line1,
            r.suburb,
            r.state,
            r.postcode,
            now,
            now,
          ]),
        ),
    },
    {
      name: 'financials',
      columns: ['id', 'enterprise_id', 'person_id', 'type', 'amount', 'category', 'created_at', 'updated_at'],
      lines: (p, now) =>
        p.financials.map((r) => tsv([r.id, p.enterprise_id, p.id, r.type, r.amount, r.category, now, now])),
    },
  ];
}

/** The COPY text of one table's rows, a thousand people per chunk (memory stays small). */
function* copyText(table: Table, people: number, now: string): Generator<string> {
  const CHUNK = 1000;
  for (let start = 0; start < people; start += CHUNK) {
    let text = '';
    for (let i = start; i < Math.min(people, start + CHUNK); i++) {
      for (const line of table.lines(benchPerson(i), now)) text += `${line}\n`;
    }
    yield text;
  }
}

export interface RawLoad {
  seconds: number;
  /** CPU time of this process while loading (generating the rows and the COPY text). */
  cpuSeconds: number;
  rows: number;
  tables: number;
}

/** Loads `people` bench people (and their enterprise) into the database at `url`, in one transaction. */
export async function loadRawBaseline(url: string, appKey: string, people: number): Promise<RawLoad> {
  const key = parseAppKey(appKey);
  if (!key) throw new Error('the bench APP_KEY is malformed');
  const list = tables(new FieldCipher([key]));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const started = performance.now();
  const cpu = process.cpuUsage();
  let rows = 0;
  try {
    await client.query('BEGIN');
    await client.query(`INSERT INTO enterprises (id, name, is_active) VALUES ($1, 'Bench Finance', 1)`, [ENTERPRISE]);
    const now = new Date().toISOString();
    for (const table of list) {
      const copy = client.query(copyFrom(`COPY ${table.name} (${table.columns.join(', ')}) FROM STDIN`));
      await pipeline(Readable.from(copyText(table, people, now)), copy);
      rows += Number(copy.rowCount ?? 0);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
  const used = process.cpuUsage(cpu);
  return {
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    rows,
    tables: list.length,
  };
}
