import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { SqlExecutor } from '../../database/sql.js';
import {
  destinationOf,
  DIRECT_TABLES,
  directName,
  type Column,
  type Row,
  type StageName,
  type StageTable,
} from './import-tables.js';

/** Rows buffered per staging table before they are sent in one COPY (or INSERT)... */
const FLUSH_ROWS = 2000;
/** ...or fewer when the records buffered held this many characters of JSON (records with long texts). */
const FLUSH_CHARS = 4_000_000;
/**
 * People loaded straight into their table per batch, sent with their nested rows: there each
 * statement fires the table's change-capture trigger, at a fixed cost of several milliseconds
 * (100,000 people took 21 s in batches of 2,000, 13 s in batches of 10,000)...
 */
const DIRECT_PEOPLE = 10_000;
/** ...or fewer when their records held this many characters of JSON. */
const DIRECT_CHARS = 16_000_000;
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

/** Characters of COPY text gathered in a string before they are written into a buffer. */
const TEXT_PIECE_CHARS = 1 << 13;
/** Bytes of a buffer that COPY text is written into. */
const SLAB_BYTES = 1 << 16;
/** Buffers kept for reuse, at most: more than the batches on their way ever hold. */
const POOLED_SLABS = 128;

/**
 * Buffers for COPY text, reused once the database has taken the text in them: new memory costs
 * the kernel a page fault per page first touched, which the text of a large import would pay
 * again and again.
 */
class SlabPool {
  private readonly free: Buffer[] = [];

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
  }

  /** Gives back the buffers of chunks the database has taken; chunks of other buffers are left alone. */
  release(chunks: readonly Buffer[]): void {
    for (const chunk of chunks) {
      if (this.free.length >= POOLED_SLABS) return;
      if (chunk.byteOffset === 0 && chunk.buffer.byteLength === SLAB_BYTES) {
        this.free.push(Buffer.from(chunk.buffer, 0, SLAB_BYTES));
      }
    }
  }
}

const slabs = new SlabPool();

/**
 * COPY text of a batch of rows, kept outside the JavaScript heap: lines are gathered in a short
 * string and written into a reused buffer every few kilobytes. A batch of rows held as objects
 * until it is sent outlives the young generation and is copied by every garbage collection on
 * the way; its text in buffers is not. `CopyText.release` gives the buffers back once the
 * database has the text.
 */
export class CopyText {
  private chunks: Buffer[] = [];
  private slab: Buffer | null = null;
  private used = 0;
  private pending = '';
  private lines = 0;

  add(line: string): void {
    this.pending += line;
    this.lines++;
    if (this.pending.length >= TEXT_PIECE_CHARS) this.write();
  }

  get rowCount(): number {
    return this.lines;
  }

  /** The text gathered so far, which is then forgotten. */
  take(): Buffer[] {
    if (this.pending !== '') this.write();
    this.closeSlab();
    const chunks = this.chunks;
    this.chunks = [];
    this.lines = 0;
    return chunks;
  }

  /** Gives back the buffers of text taken from a CopyText, once the database has it. */
  static release(chunks: readonly Buffer[]): void {
    slabs.release(chunks);
  }

  private write(): void {
    const text = this.pending;
    this.pending = '';
    // UTF-8 takes at most three bytes for each UTF-16 unit.
    if (text.length * 3 > SLAB_BYTES) {
      this.closeSlab();
      this.chunks.push(Buffer.from(text, 'utf8'));
      return;
    }
    if (this.slab === null || this.used + text.length * 3 > SLAB_BYTES) {
      this.closeSlab();
      this.slab = slabs.take();
    }
    this.used += this.slab.write(text, this.used, 'utf8');
  }

  private closeSlab(): void {
    if (this.slab !== null && this.used > 0) this.chunks.push(this.slab.subarray(0, this.used));
    else if (this.slab !== null) slabs.release([this.slab]);
    this.slab = null;
    this.used = 0;
  }
}

/** COPY ... FROM STDIN in text format: the fast path on a PostgreSQL server. */
export class CopySink implements StageSink {
  constructor(private readonly client: PoolClient) {}

  async write(table: StageTable, rows: readonly Row[]): Promise<void> {
    const text = new CopyText();
    for (const row of rows) text.add(copyLine(table, row));
    const chunks = text.take();
    await this.writeText(table, chunks);
    CopyText.release(chunks);
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
  /** Work queued before each batch of rows loaded straight into their tables (its check). */
  beforeDirectBatch?: () => (() => Promise<void>) | undefined;
  /** Characters of JSON of the records whose rows are buffered. */
  private bufferedChars = 0;
  /** The same, since the last batch of rows loaded straight into their tables. */
  private directChars = 0;
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
      text.add(copyLine(destinationOf(name).table, row));
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
    this.directChars += chars;
  }

  /**
   * Sends the buffers that are full, or all of them when the records buffered are large; the
   * last batch sent may still be on its way. Rows loaded straight into their tables go in
   * batches of their own: the people first, then their nested rows.
   */
  async flushFull(): Promise<void> {
    const all = this.bufferedChars >= FLUSH_CHARS;
    if (all) this.bufferedChars = 0;
    for (const [name, buffer] of this.buffers) {
      if (destinationOf(name).staging && (all || buffer.length >= FLUSH_ROWS)) await this.flush(name);
    }
    for (const [name, text] of this.texts) {
      if (destinationOf(name).staging && (all || text.rowCount >= FLUSH_ROWS)) await this.flushText(name, text);
    }
    const people = this.rowsBuffered(directName('people'));
    if (people > 0 && (people >= DIRECT_PEOPLE || this.directChars >= DIRECT_CHARS)) await this.flushDirect();
  }

  private rowsBuffered(name: StageName): number {
    return (this.buffers.get(name)?.length ?? 0) + (this.texts.get(name)?.rowCount ?? 0);
  }

  private async flushDirect(): Promise<void> {
    this.directChars = 0;
    const check = this.beforeDirectBatch?.();
    if (check !== undefined) await this.enqueue(null, 0, check);
    for (const table of DIRECT_TABLES) {
      const name = directName(table);
      await this.flush(name);
      const text = this.texts.get(name);
      if (text !== undefined) await this.flushText(name, text);
    }
  }

  /** Hands every buffered row to the connection; the batches may still be on their way. */
  async flushBuffered(): Promise<void> {
    for (const name of this.buffers.keys()) if (destinationOf(name).staging) await this.flush(name);
    for (const [name, text] of this.texts) if (destinationOf(name).staging) await this.flushText(name, text);
    await this.flushDirect();
  }

  /** Sends every buffered row and waits until the database has them all. */
  async flushAll(): Promise<void> {
    await this.flushBuffered();
    await this.drain();
  }

  /** Waits until the database has taken every batch handed to it (a failed one throws). */
  private async drain(): Promise<void> {
    this.inFlight.length = 0;
    await this.tail;
  }

  /**
   * Queues other work on the connection behind the batches handed to it so far (it sees their
   * rows), as a batch is queued: reading goes on meanwhile.
   */
  async after(work: () => Promise<void>): Promise<void> {
    await this.enqueue(null, 0, work);
  }

  /** As `after`, and waits until the work is done: reading stops meanwhile. */
  async runNext<T>(work: () => Promise<T>): Promise<T> {
    let result: { value: T } | undefined;
    await this.after(async () => {
      result = { value: await work() };
    });
    await this.drain();
    if (result === undefined) throw new Error('The queued work did not run');
    return result.value;
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

  /** Staging tables that hold rows (not the targets loaded straight into). */
  stagedNames(): StageName[] {
    return [...this.counts.keys()].filter((name) => destinationOf(name).staging);
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
    await this.enqueue(name, buffer.length, async () => {
      const rows = preparer ? await preparer(buffer) : buffer;
      await this.sink.write(destinationOf(name).table, rows);
    });
  }

  /** As `flush`, for a table whose rows are already COPY text. */
  private async flushText(name: StageName, text: CopyText): Promise<void> {
    const rows = text.rowCount;
    if (rows === 0) return;
    const chunks = text.take();
    await this.enqueue(name, rows, async () => {
      const sending = this.sink.writeText?.(destinationOf(name).table, chunks);
      if (sending === undefined) throw new Error('This sink takes rows, not COPY text');
      await sending;
      CopyText.release(chunks);
    });
  }

  /**
   * Queues a batch behind the ones before it. A failed batch fails every later one with the same
   * error, which surfaces in the reading loop at its next wait (or in `flushAll`).
   */
  private async enqueue(name: StageName | null, rows: number, send: () => Promise<void>): Promise<void> {
    while (this.inFlight.length >= MAX_IN_FLIGHT) await this.inFlight.shift();
    const sending = this.tail.then(async () => {
      if (name !== null) await this.ensureCreated(name);
      await send();
    });
    // Rejections surface when the batch is awaited; until then they are not "unhandled".
    sending.catch(() => undefined);
    this.tail = sending;
    this.inFlight.push(sending);
    if (name !== null) this.counts.set(name, (this.counts.get(name) ?? 0) + rows);
  }

  private async ensureCreated(name: StageName): Promise<void> {
    if (this.created.has(name)) return;
    const { table, staging } = destinationOf(name);
    if (!staging) return;
    const definition = table.columns.map((c) => `${c.name} ${c.type}`).join(', ');
    await this.db.query(`CREATE TEMP TABLE ${table.name} (${definition}) ON COMMIT DROP`);
    this.created.add(name);
  }
}
