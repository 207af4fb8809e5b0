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
/**
 * Batches handed to the connection and not yet taken by the database, at most: reading goes on
 * while they wait their turn (one statement at a time on the one connection).
 */
const MAX_IN_FLIGHT = 6;
/** PostgreSQL's limit on bind parameters in one statement. */
const MAX_PARAMETERS = 65535;

/** How rows reach a staging table. */
export interface StageSink {
  write(table: StageTable, rows: readonly Row[]): Promise<void>;
  /** Rows already in COPY's text format, when the sink takes them. */
  writeText?(table: StageTable, chunks: readonly Buffer[]): Promise<void>;
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

/** One row in COPY's text format: its fields in the table's column order, and a line break. */
export function copyLine(table: StageTable, row: Row): string {
  const columns = table.columns;
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i] as Column;
    line += i === 0 ? copyField(row[column.name], column) : `\t${copyField(row[column.name], column)}`;
  }
  return `${line}\n`;
}

/** Characters of COPY text gathered in a string before they are moved into a buffer. */
const TEXT_CHUNK_CHARS = 1 << 15;

/**
 * COPY text of a batch of rows, kept outside the JavaScript heap: lines are gathered in a short
 * string and moved into a buffer every few dozen kilobytes. A batch of rows held as objects
 * until it is sent outlives the young generation and is copied by every garbage collection on
 * the way; its text in buffers is not.
 */
export class CopyText {
  private chunks: Buffer[] = [];
  private pending = '';
  private lines = 0;

  add(line: string): void {
    this.pending += line;
    this.lines++;
    if (this.pending.length >= TEXT_CHUNK_CHARS) {
      this.chunks.push(Buffer.from(this.pending, 'utf8'));
      this.pending = '';
    }
  }

  get rowCount(): number {
    return this.lines;
  }

  /** The text gathered so far, which is then forgotten. */
  take(): Buffer[] {
    if (this.pending !== '') this.chunks.push(Buffer.from(this.pending, 'utf8'));
    const chunks = this.chunks;
    this.chunks = [];
    this.pending = '';
    this.lines = 0;
    return chunks;
  }
}

/** COPY ... FROM STDIN in text format: the fast path on a PostgreSQL server. */
export class CopySink implements StageSink {
  constructor(private readonly client: PoolClient) {}

  async write(table: StageTable, rows: readonly Row[]): Promise<void> {
    const text = new CopyText();
    for (const row of rows) text.add(copyLine(table, row));
    await this.writeText(table, text.take());
  }

  async writeText(table: StageTable, chunks: readonly Buffer[]): Promise<void> {
    const names = table.columns.map((c) => c.name).join(', ');
    const copy = this.client.query(copyFrom(`COPY ${table.name} (${names}) FROM STDIN`));
    await pipeline(Readable.from(chunks), copy);
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
  /** Tables without a preparer, when the sink takes text: their rows are turned into COPY text as they come. */
  private readonly texts = new Map<StageName, CopyText>();
  /** Characters of JSON of the records whose rows are buffered. */
  private bufferedChars = 0;
  private readonly created = new Set<StageName>();
  private readonly counts = new Map<StageName, number>();
  /** The last batch handed to the connection: each is sent once the one before it is in. */
  private tail: Promise<void> = Promise.resolve();
  /** Batches handed to the connection, oldest first, until the database has them. */
  private readonly inFlight: Promise<void>[] = [];

  constructor(
    private readonly db: SqlExecutor,
    private readonly sink: StageSink,
    private readonly preparers: Partial<Record<StageName, RowPreparer>> = {},
  ) {}

  push(name: StageName, row: Row): void {
    if (this.sink.writeText !== undefined && this.preparers[name] === undefined) {
      let text = this.texts.get(name);
      if (text === undefined) {
        text = new CopyText();
        this.texts.set(name, text);
      }
      text.add(copyLine(stageOf(name), row));
      return;
    }
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
    for (const [name, text] of this.texts) {
      if (all || text.rowCount >= FLUSH_ROWS) await this.flushText(name, text);
    }
  }

  /** Sends every buffered row and waits until the database has them all. */
  async flushAll(): Promise<void> {
    for (const name of this.buffers.keys()) await this.flush(name);
    for (const [name, text] of this.texts) await this.flushText(name, text);
    this.inFlight.length = 0;
    await this.tail;
  }

  /**
   * Waits until no batch is on its way, whatever became of it: the transaction is ended on the
   * same connection, which must be idle by then.
   */
  async settle(): Promise<void> {
    this.inFlight.length = 0;
    await this.tail.catch(() => undefined);
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
   * Hands one table's buffer to the connection without waiting for the database to take it, so
   * reading the file goes on meanwhile (its preparer, which may look up stored rows, runs when
   * the batch's turn comes); waits only when `MAX_IN_FLIGHT` batches are still on their way.
   */
  private async flush(name: StageName): Promise<void> {
    const buffer = this.buffers.get(name);
    if (buffer === undefined || buffer.length === 0) return;
    this.buffers.set(name, []);
    const preparer = this.preparers[name];
    await this.enqueue(name, buffer.length, async (table) => {
      const rows = preparer ? await preparer(buffer) : buffer;
      await this.sink.write(table, rows);
    });
  }

  /** As `flush`, for a table whose rows are already COPY text. */
  private async flushText(name: StageName, text: CopyText): Promise<void> {
    const rows = text.rowCount;
    if (rows === 0) return;
    const chunks = text.take();
    await this.enqueue(name, rows, async (table) => {
      const sending = this.sink.writeText?.(table, chunks);
      if (sending === undefined) throw new Error('This sink takes rows, not COPY text');
      await sending;
    });
  }

  /**
   * Queues a batch behind the ones before it. A failed batch fails every later one with the same
   * error, which surfaces in the reading loop at its next wait (or in `flushAll`).
   */
  private async enqueue(name: StageName, rows: number, send: (table: StageTable) => Promise<void>): Promise<void> {
    while (this.inFlight.length >= MAX_IN_FLIGHT) await this.inFlight.shift();
    const sending = this.tail.then(async () => {
      await this.ensureCreated(name);
      await send(stageOf(name));
    });
    // Rejections surface when the batch is awaited; until then they are not "unhandled".
    sending.catch(() => undefined);
    this.tail = sending;
    this.inFlight.push(sending);
    this.counts.set(name, (this.counts.get(name) ?? 0) + rows);
  }

  private async ensureCreated(name: StageName): Promise<void> {
    if (this.created.has(name)) return;
    const table = stageOf(name);
    const definition = table.columns.map((c) => `${c.name} ${c.type}`).join(', ');
    await this.db.query(`CREATE TEMP TABLE ${table.name} (${definition}) ON COMMIT DROP`);
    this.created.add(name);
  }
}
