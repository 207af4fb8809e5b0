import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { DataSource, QueryRunner } from 'typeorm';
import type { FieldCipher } from '../../crypto/field-cipher.js';
import { selectRows } from '../../database/sql.js';
import { givenEnterprise, NO_ENTERPRISE, realEnterprise } from '../../database/no-enterprise.js';
import { LEAD_MIXED, LEAD_TEXT } from '../import/import-tables.js';
import { AUDIT_EXPORT_COLUMNS, AUDIT_SECTION } from '../audit-history.js';
import { ENTITY_SECTIONS } from '../import/entity-sections.js';
import { IMPORT_SECTIONS, type HandSection, type ImportSection } from '../import/import-schema.js';
import { NO_PROGRESS, type Progress } from '../progress.js';

/** Records read per query: keyset pages by id, nested rows fetched per page. */
const PAGE = 1000;

export interface ExportOptions {
  /** Only this enterprise's records, its members and their memberships of it. */
  readonly enterpriseId?: string;
  /** Provider B keys decrypted into the file; otherwise they are left out. */
  readonly includeSecrets: boolean;
}

export type ExportCounts = Record<ImportSection, number>;

type Row = Record<string, unknown>;

const ts = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column.replace(/^\w+\./, '')}`;
const TIMESTAMPS = `${ts('created_at')}, ${ts('updated_at')}`;
const flag = (column: string): string => `(${column} = 1) AS ${column}`;

/** A person's columns after the first name, in the import format's order. */
const PEOPLE_AFTER_FIRST_NAME = `middle_name, last_name, salutation, maiden_name, birthday::text AS birthday, gender,
           licence, licence_card, licence_state, licence_expiry::text AS licence_expiry, dependents, dependents_ages,
           marital_status, residency_status, ${TIMESTAMPS}`;

/** A record of no enterprise is written out as it was given: `enterprise_id: null`. */
const GIVEN_ENTERPRISE = `${givenEnterprise('enterprise_id')} AS enterprise_id`;

/** The columns of each section, in the import format's order and with its names. */
const HAND_SELECTS: Record<HandSection, string> = {
  enterprises: `id, name, ${flag('is_active')}, signprovider_b_key_encrypted AS signprovider_b_key, ${TIMESTAMPS}`,
  users: `id, name, email, ${flag('is_active')}, password_hash, ${TIMESTAMPS}`,
  people: `id, ${GIVEN_ENTERPRISE}, title, first_name_encrypted AS first_name, ${PEOPLE_AFTER_FIRST_NAME}`,
  organisations: `id, ${GIVEN_ENTERPRISE}, legal_name, legal_structure, short_name, trust_name, acn, abn, entity_type,
           abn_registration::text AS abn_registration, abn_status, ${flag('gst_registered')},
           gst_date::text AS gst_date, business_name, business_name2, business_name3, former_name, former_name2,
           former_name3, description, established_date::text AS established_date, employees_count, industry,
           website, ${TIMESTAMPS}`,
  quotes: `id, enterprise_id, application_id, ${flag('is_active')},
           json_build_object('asset_type', asset_type, 'asset_description', asset_description,
                             'financier', financier, 'total_finance_amount', total_finance_amount::text)
             AS calculation, ${TIMESTAMPS}`,
  leads: `id, ${GIVEN_ENTERPRISE}, ${[...LEAD_TEXT, ...LEAD_MIXED].join(', ')}, ${TIMESTAMPS}`,
  signing_documents: `id, enterprise_id, provider, external_id, status, ${ts('signed_at')}, ${ts('declined_at')},
           ${ts('revoked_at')}, ${TIMESTAMPS}`,
};

function isHandSection(section: string): section is HandSection {
  return Object.hasOwn(HAND_SELECTS, section);
}

/** The columns of a section, hand-written or derived from its entity. */
function selectOf(section: ImportSection): string {
  if (isHandSection(section)) return HAND_SELECTS[section];
  const derived = ENTITY_SECTIONS.find((entitySection) => entitySection.name === section);
  if (!derived) throw new Error(`The export has no columns for the section ${section}`);
  return derived.exportColumns;
}

const NESTED_SELECTS = {
  phone_numbers: `id, type, number, ${flag('is_primary')}`,
  emails: `id, address, ${flag('is_primary')}`,
  addresses: `id, type, address, line1, line2, line3, suburb, state, postcode`,
  financials: `id, type, amount::text AS amount, category`,
} as const;
type NestedTable = keyof typeof NESTED_SELECTS;

/** The nested rows of one owner as a JSON array, compact like JSON.stringify (json_agg spaces its elements). */
function nestedArray(table: NestedTable, column: string): string {
  // Byte order of the fixed-width UTC text is the order of the moments.
  return `COALESCE((SELECT ('[' || string_agg(row_to_json(n)::text, ',' ORDER BY n.created_at COLLATE "C", n.id) || ']')::json
                      FROM (SELECT ${NESTED_SELECTS[table]}, ${TIMESTAMPS} FROM ${table} WHERE ${column} = r.id) n),
                   '[]'::json) AS ${table}`;
}

/**
 * A page of people or organisations, each as JSON text: `head` (a person's fields before the
 * first name), `first_name` (still encrypted) and `tail` (the rest, nested rows included; an
 * organisation's whole record).
 */
function ownerRecordsSql(section: 'people' | 'organisations', scope: string): string {
  const column = section === 'people' ? 'person_id' : 'organisation_id';
  const tables: NestedTable[] = ['phone_numbers', 'emails', 'addresses'];
  if (section === 'people') tables.push('financials');
  const nested = tables.map((table) => nestedArray(table, column)).join(', ');
  if (section === 'organisations') {
    return `SELECT r.id, NULL AS head, NULL AS first_name,
                   (SELECT row_to_json(x)::text FROM (SELECT ${HAND_SELECTS.organisations}, ${nested}) x) AS tail
              FROM organisations r WHERE r.id > $1 AND ${scope} ORDER BY r.id LIMIT ${PAGE}`;
  }
  return `SELECT r.id, (SELECT row_to_json(x)::text FROM (SELECT id, ${GIVEN_ENTERPRISE}, title) x) AS head,
                 r.first_name_encrypted AS first_name,
                 (SELECT row_to_json(x)::text FROM (SELECT ${PEOPLE_AFTER_FIRST_NAME}, ${nested}) x) AS tail
            FROM people r WHERE r.id > $1 AND ${scope} ORDER BY r.id LIMIT ${PAGE}`;
}

/** Writes text to a stream, waiting whenever its buffer is full (memory stays bounded). */
class TextOut {
  bytes = 0;
  constructor(private readonly out: Writable) {}

  async write(text: string): Promise<void> {
    this.bytes += Buffer.byteLength(text);
    if (!this.out.write(text)) await once(this.out, 'drain');
  }
}

/**
 * Writes the database (or one enterprise) in the import format, a page of records at a time,
 * from one REPEATABLE READ snapshot, so the file is consistent while the service keeps running.
 * Importing the file into an empty database with the same APP_KEY gives the same API answers.
 */
export class Exporter {
  private text: TextOut | null = null;
  private progress: Progress = NO_PROGRESS;

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
    private readonly options: ExportOptions,
  ) {}

  /** Bytes of JSON written so far (before compression). */
  get bytesWritten(): number {
    return this.text?.bytes ?? 0;
  }

  async run(out: Writable, progress: Progress = NO_PROGRESS): Promise<{ counts: ExportCounts; bytes: number }> {
    const runner = this.dataSource.createQueryRunner();
    const text = new TextOut(out);
    this.text = text;
    this.progress = progress;
    try {
      await runner.startTransaction('REPEATABLE READ');
      await runner.query('SET TRANSACTION READ ONLY');
      const counts = {} as ExportCounts;
      await text.write('{');
      const sections = IMPORT_SECTIONS;
      for (const [i, section] of sections.entries()) {
        this.progress.phase(section);
        await text.write(`${i === 0 ? '' : ',\n'}${JSON.stringify(section)}:[`);
        counts[section] = await this.section(runner, section, text);
        await text.write('\n]');
      }
      this.progress.phase(AUDIT_SECTION);
      await text.write(`,\n${JSON.stringify(AUDIT_SECTION)}:[`);
      counts[AUDIT_SECTION] = await this.auditTrail(runner, text);
      await text.write('\n]');
      await text.write('}\n');
      await runner.commitTransaction();
      return { counts, bytes: text.bytes };
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  }

  /** The trail of the enterprises exported, oldest first, a page at a time. */
  private async auditTrail(runner: QueryRunner, text: TextOut): Promise<number> {
    let after: [string, string] = ['-infinity', '00000000-0000-0000-0000-000000000000'];
    let count = 0;
    const scoped = this.options.enterpriseId !== undefined;
    for (;;) {
      const rows = await selectRows<Row & { position: string }>(
        runner,
        `SELECT ${AUDIT_EXPORT_COLUMNS}, occurred_at::text AS position FROM audit_events r
          WHERE (r.occurred_at, r.id) > ($1::timestamptz, $2::uuid) AND ${scoped ? 'r.enterprise_id = $3' : 'TRUE'}
          ORDER BY r.occurred_at, r.id LIMIT ${PAGE}`,
        scoped ? [...after, this.options.enterpriseId] : after,
      );
      if (rows.length === 0) return count;
      let chunk = '';
      for (const { position: _position, ...row } of rows)
        chunk += `${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`;
      await text.write(chunk);
      this.progress.addRecords(rows.length);
      const last = rows[rows.length - 1];
      after = [String(last?.position), String(last?.id)];
      if (rows.length < PAGE) return count;
    }
  }

  private scope(section: ImportSection): string {
    if (this.options.enterpriseId === undefined) return section === 'enterprises' ? realEnterprise('r') : 'TRUE';
    if (section === 'enterprises') return `r.id = $2 AND ${realEnterprise('r')}`;
    if (section === 'users') {
      return 'EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = r.id AND m.enterprise_id = $2)';
    }
    // The reserved keeper of records of no enterprise is no enterprise: nothing to export, as for an unknown id.
    return `r.enterprise_id = $2 AND $2::uuid <> '${NO_ENTERPRISE}'`;
  }

  private async section(runner: QueryRunner, section: ImportSection, text: TextOut): Promise<number> {
    if (section === 'people' || section === 'organisations') return this.ownerSection(runner, section, text);
    const table = section;
    let after = '00000000-0000-0000-0000-000000000000';
    let count = 0;
    const scoped = this.options.enterpriseId !== undefined;
    for (;;) {
      const rows = await selectRows<Row>(
        runner,
        `SELECT ${selectOf(section)} FROM ${table} r WHERE r.id > $1 AND ${this.scope(section)} ORDER BY r.id LIMIT ${PAGE}`,
        scoped ? [after, this.options.enterpriseId] : [after],
      );
      if (rows.length === 0) return count;
      await this.complete(runner, section, rows);
      let chunk = '';
      for (const row of rows) chunk += `${count++ === 0 ? '\n' : ',\n'}${JSON.stringify(row)}`;
      await text.write(chunk);
      this.progress.addRecords(rows.length);
      after = String(rows[rows.length - 1]?.id);
      if (rows.length < PAGE) return count;
    }
  }

  /**
   * People and organisations with their nested rows: PostgreSQL writes each record's JSON (the
   * same text JSON.stringify gives: compact, keys in column order), so the export reads one
   * text per record instead of five rows of values. A person's first name is decrypted here
   * and put in its place between the two halves of the record.
   */
  private async ownerSection(runner: QueryRunner, section: 'people' | 'organisations', text: TextOut): Promise<number> {
    let after = '00000000-0000-0000-0000-000000000000';
    let count = 0;
    const scoped = this.options.enterpriseId !== undefined;
    const sql = ownerRecordsSql(section, this.scope(section));
    for (;;) {
      const rows = await selectRows<{ id: string; head: string; first_name: string | null; tail: string }>(
        runner,
        sql,
        scoped ? [after, this.options.enterpriseId] : [after],
      );
      if (rows.length === 0) return count;
      let chunk = '';
      for (const row of rows) {
        const record =
          section === 'people'
            ? `${row.head.slice(0, -1)},"first_name":${JSON.stringify(this.cipher.decryptNullable(row.first_name))},${row.tail.slice(1)}`
            : row.tail;
        chunk += `${count++ === 0 ? '\n' : ',\n'}${record}`;
      }
      await text.write(chunk);
      this.progress.addRecords(rows.length);
      after = String(rows[rows.length - 1]?.id);
      if (rows.length < PAGE) return count;
    }
  }

  /** Decrypts, drops what is not exported, and adds the nested rows and memberships of a page. */
  private async complete(runner: QueryRunner, section: ImportSection, rows: Row[]): Promise<void> {
    const ids = rows.map((r) => r.id);
    if (section === 'signing_documents') {
      // The file leaves a moment out rather than giving null (the import format's convention).
      for (const row of rows) {
        for (const key of ['signed_at', 'declined_at', 'revoked_at']) if (row[key] === null) delete row[key];
      }
    } else if (section === 'enterprises') {
      for (const row of rows) {
        if (this.options.includeSecrets) {
          row.signprovider_b_key = this.cipher.decryptNullable(row.signprovider_b_key as string | null);
        } else delete row.signprovider_b_key;
      }
    } else if (section === 'users') {
      const scoped = this.options.enterpriseId !== undefined;
      const memberships = await selectRows<{ user_id: string; enterprise_ids: string[] }>(
        runner,
        `SELECT user_id, array_agg(enterprise_id ORDER BY enterprise_id)::text[] AS enterprise_ids FROM memberships
          WHERE user_id = ANY($1::uuid[]) ${scoped ? 'AND enterprise_id = $2' : ''} GROUP BY user_id`,
        scoped ? [ids, this.options.enterpriseId] : [ids],
      );
      const byUser = new Map(memberships.map((m) => [m.user_id, m.enterprise_ids]));
      for (const row of rows) row.enterprise_ids = byUser.get(row.id as string) ?? [];
    }
  }
}
