import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SqlExecutor } from '../../database/sql.js';
import { stageOf, type Column, type Row, type StageName, type StageTable } from './import-tables.js';

/** Rows buffered per staging table before they are sent in one COPY (or INSERT)... */
const FLUSH_ROWS = 2000;
/** ...or fewer when the records buffered held this many characters of JSON (records with long texts). */
const FLUSH_CHARS = 4_000_000;
/** PostgreSQL's limit on bind parameters in one statement. */
const MAX_PARAMETERS = 65535;

/** How rows reach a staging table. */
export interface StageSink {
  write(table: StageTable, rows: readonly Row[]): Promise<void>;
}

function textOf(value: unknown, column: Column): string | null {
  if (value === null || value === undefined) return null;
  if (column.type === 'jsonb') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new TypeError(`a ${typeof value} cannot be staged in ${column.name}`);
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const NEEDS_ESCAPE = /[\\\n\r\t]/;

function copyText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\n\r\t]/g, (ch) => COPY_ESCAPES[ch] ?? ch) : text;
}

/** A value as a field of COPY's text format. */
function copyField(value: unknown, column: Column): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string' && column.type !== 'jsonb') return copyText(value);
  return copyText(textOf(value, column) as string);
}

/** The rows in COPY's text format: one line per row, fields in the table's column order. */
export function copyLines(table: StageTable, rows: readonly Row[]): string {
  const columns = table.columns;
  let text = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as Column;
      line += i === 0 ? copyField(row[column.name], column) : `\t${copyField(row[column.name], column)}`;
    }
    text += `${line}\n`;
  }
  return text;
}

/** COPY ... FROM STDIN in text format: the fast path on a PostgreSQL server. */
export class CopySink implements StageSink {
  constructor(private readonly client: PoolClient) {}

  async write(table: StageTable, rows: readonly Row[]): Promise<void> {
    const names = table.columns.map((c) => c.name).join(', ');
    const copy = this.client.query(copyFrom(`COPY ${table.name} (${names}) FROM STDIN`));
    await pipeline(Readable.from([copyLines(table, rows)]), copy);
  }
}

/**
 * Multi-row INSERTs: the embedded database's socket server cannot carry COPY's sub-protocol
 * (the connection is dropped), so it gets the same rows as bind parameters.
 */
export class InsertSink implements StageSink {
  constructor(private readonly db: SqlExecutor) {}

  async write(table: StageTable, rows: readonly Row[]): Promise<void> {
    const width = table.columns.length;
    const perStatement = Math.floor(MAX_PARAMETERS / width);
    const names = table.columns.map((c) => c.name).join(', ');
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const params: (string | null)[] = [];
      const tuples = chunk.map((row) => {
        const slots = table.columns.map((c) => {
          params.push(textOf(row[c.name], c));
          return `$${params.length}::${c.type}`;
        });
        return `(${slots.join(', ')})`;
      });
      await this.db.query(`INSERT INTO ${table.name} (${names}) VALUES ${tuples.join(', ')}`, params);
    }
  }
}

/** Turns rows into their staged form just before they are sent (encryption, hashing). */
export type RowPreparer = (rows: Row[]) => Promise<Row[]>;

/**
 * Buffers rows per staging table and sends them in batches. A staging table is created when its
 * first row arrives (TEMP, dropped at the end of the transaction), so a small import only pays
 * for the sections it has.
 */
export class Stager {
  private readonly buffers = new Map<StageName, Row[]>();
  /** Characters of JSON of the records whose rows are buffered. */
  private bufferedChars = 0;
  private readonly created = new Set<StageName>();
  private readonly counts = new Map<StageName, number>();
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: SqlExecutor,
    private readonly sink: StageSink,
    private readonly preparers: Partial<Record<StageName, RowPreparer>> = {},
  ) {}

  push(name: StageName, row: Row): void {
    let buffer = this.buffers.get(name);
    if (buffer === undefined) {
      buffer = [];
      this.buffers.set(name, buffer);
    }
    buffer.push(row);
  }

  /** Counts the size of a record whose rows were pushed (its JSON text), to bound the buffers' memory. */
  addChars(chars: number): void {
    this.bufferedChars += chars;
  }

  /**
   * Sends the buffers that are full, or all of them when the records buffered are large; the
   * last batch sent may still be on its way.
   */
  async flushFull(): Promise<void> {
    const all = this.bufferedChars >= FLUSH_CHARS;
    if (all) this.bufferedChars = 0;
    for (const [name, buffer] of this.buffers) {
      if (all || buffer.length >= FLUSH_ROWS) await this.flush(name);
    }
  }

  /** Sends every buffered row and waits until the database has them all. */
  async flushAll(): Promise<void> {
    for (const name of this.buffers.keys()) await this.flush(name);
    await this.sending;
  }

  /** Staging tables that hold at least one row. */
  has(name: StageName): boolean {
    return (this.counts.get(name) ?? 0) > 0;
  }

  rowCount(name: StageName): number {
    return this.counts.get(name) ?? 0;
  }

  stagedNames(): StageName[] {
    return [...this.counts.keys()];
  }

  /** Creates the staging tables no row reached, so every later statement can name them. */
  async createMissing(names: readonly StageName[]): Promise<void> {
    for (const name of names) await this.ensureCreated(name);
  }

  /**
   * Sends one table's buffer without waiting for the database to take it, so reading the file
   * goes on meanwhile; the previous batch is awaited first (one connection, one COPY at a time),
   * which also bounds the rows in flight to one batch.
   */
  private async flush(name: StageName): Promise<void> {
    const buffer = this.buffers.get(name);
    if (buffer === undefined || buffer.length === 0) return;
    this.buffers.set(name, []);
    await this.sending;
    await this.ensureCreated(name);
    const preparer = this.preparers[name];
    const rows = preparer ? await preparer(buffer) : buffer;
    const sending = this.sink.write(stageOf(name), rows);
    // Rejections surface when the next flush awaits it; until then they are not "unhandled".
    sending.catch(() => undefined);
    this.sending = sending;
    this.counts.set(name, (this.counts.get(name) ?? 0) + rows.length);
  }

  private async ensureCreated(name: StageName): Promise<void> {
    if (this.created.has(name)) return;
    const table = stageOf(name);
    const definition = table.columns.map((c) => `${c.name} ${c.type}`).join(', ');
    await this.db.query(`CREATE TEMP TABLE ${table.name} (${definition}) ON COMMIT DROP`);
    this.created.add(name);
  }
}
