import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { PoolClient } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import type { z } from 'zod';
import type { FieldCipher } from '../../crypto/field-cipher.js';
import { CLI_ACTOR, recordAuditForEnterprises } from '../../audit/audit-trail.js';
import { AUDIT_SECTION, appendAuditHistory, auditEventRecord, type AuditEventInput } from '../audit-history.js';
import { selectRows } from '../../database/sql.js';
import { NO_PROGRESS, type Progress } from '../progress.js';
import { ImportChecks } from './import-checks.js';
import { describeIssues, problem } from './import-problems.js';
import {
  isImportSection,
  SECTION_RECORDS,
  type EnterpriseInput,
  type ImportSection,
  type LeadInput,
  type OrganisationInput,
  type PersonInput,
  type QuoteInput,
  type SigningDocumentInput,
  type UserInput,
} from './import-schema.js';
import { stageOf, type StageName } from './import-tables.js';
import { isDataError } from './data-error.js';
import { DirectLoad, DirectRefused } from './direct-load.js';
import { ImportedEnterprises } from './imported-enterprises.js';
import { ImportWrites, type ImportCounts } from './import-writes.js';
import { ProblemList } from './problem-list.js';
import { InvalidJson, readSectionRecords } from './record-reader.js';
import {
  enterpriseRow,
  entityRow,
  leadRow,
  quoteRow,
  signingDocumentRow,
  stageOrganisation,
  stagePerson,
  stageUser,
  type RowSink,
} from './record-rows.js';
import { StagedValues } from './staged-values.js';
import { CopySink, InsertSink, Stager } from './staging.js';

export type { ImportCounts } from './import-writes.js';

export type ImportOutcome = (
  | {
      ok: true;
      counts: ImportCounts;
      /** People loaded straight into their table (`DirectLoad`), of those created. */
      loadedStraightIn: number;
    }
  /** `problems`: the first ones with their paths; `problemCount`: how many in all. */
  | { ok: false; problems: string[]; problemCount: number }
) & {
  /** The file was read a second time, without loading straight in. */
  readAgain?: true;
};

/** Tables of at least this many staged or changed rows are analysed, so plans see their size. */
const ANALYZE_ROWS = 10_000;
/** Statistics target of the staging tables' ANALYZE (the server's default is 100). */
const STAGING_STATISTICS_TARGET = 10;

const rejected = (problems: string[]): ImportOutcome => ({ ok: false, problems, problemCount: problems.length });

/** Problems with the data itself, found by the database while writing (the write is rolled back). */
class WriteRejected extends Error {}

/** The import is to be refused after rows were loaded straight in: it is rolled back and read again without. */
class ReadAgain extends Error {}
const READ_AGAIN = Symbol('read again');

const embeddedByDataSource = new WeakMap<DataSource, boolean>();

/** The embedded database (PGlite behind its socket server) cannot carry COPY. */
async function isEmbedded(dataSource: DataSource, runner: QueryRunner): Promise<boolean> {
  let embedded = embeddedByDataSource.get(dataSource);
  if (embedded === undefined) {
    const [row] = await selectRows<{ version: string }>(runner, `SELECT version() AS version`);
    embedded = row?.version.includes('PGlite') ?? false;
    embeddedByDataSource.set(dataSource, embedded);
  }
  return embedded;
}

/** Stages one validated record (`value` is the output of its section's schema). */
function stageRecord(sink: RowSink, section: ImportSection, ord: number, value: unknown): void {
  switch (section) {
    case 'enterprises':
      return sink.push('enterprises', enterpriseRow(ord, value as EnterpriseInput));
    case 'users':
      return stageUser(sink, ord, value as UserInput);
    case 'people':
      return stagePerson(sink, ord, value as PersonInput);
    case 'organisations':
      return stageOrganisation(sink, ord, value as OrganisationInput);
    case 'quotes':
      return sink.push('quotes', quoteRow(ord, value as QuoteInput));
    case 'leads':
      return sink.push('leads', leadRow(ord, value as LeadInput));
    case 'signing_documents':
      return sink.push('signing_documents', signingDocumentRow(ord, value as SigningDocumentInput));
    default:
      return sink.push(section, entityRow(ord, value as Record<string, unknown>));
  }
}

type Text = AsyncIterable<string> | Iterable<string>;

/** How an import is run (tests compare both ways). */
export interface ImportTuning {
  /** Load the people of a file that creates them straight into their tables (`DirectLoad`); default true. */
  readonly direct?: boolean;
}

/**
 * Imports a stream of JSON text in one transaction, holding one record (and a batch of staged
 * rows) in memory at a time: every record is validated as it is read and staged into TEMP
 * tables (COPY on PostgreSQL), the checks that need the whole file run in SQL over the staging
 * tables, then one set-based upsert per table writes it. Any problem: nothing is written and
 * the first problems are returned with their paths, with the total count.
 *
 * Given a function that opens the text again from its start, the people of a file that creates
 * them are loaded straight into their tables (`DirectLoad`); if such an import is to be refused,
 * it is read again without.
 */
export async function importStream(
  dataSource: DataSource,
  cipher: FieldCipher,
  text: Text | (() => Text),
  progress: Progress = NO_PROGRESS,
  /** Names the input in a problem about the whole of it (the file's name). */
  label = '(input)',
  tuning: ImportTuning = {},
): Promise<ImportOutcome> {
  if (typeof text !== 'function') {
    return importOnce(dataSource, cipher, text, progress, label, false) as Promise<ImportOutcome>;
  }
  const direct = tuning.direct ?? true;
  let recordsRead = 0;
  // A second reading counts the records from zero again.
  const counting: Progress = {
    phase: (name) => progress.phase(name),
    addRecords: (count) => {
      recordsRead += count;
      progress.addRecords(count);
    },
    finish: (ending) => progress.finish(ending),
  };
  const outcome = await importOnce(dataSource, cipher, text(), counting, label, direct);
  if (outcome !== READ_AGAIN) return outcome;
  progress.addRecords(-recordsRead);
  const second: Progress = {
    phase: (name) => progress.phase(name === 'reading' ? 'reading again' : name),
    addRecords: (count) => progress.addRecords(count),
    finish: (ending) => progress.finish(ending),
  };
  const again = (await importOnce(dataSource, cipher, text(), second, label, false)) as ImportOutcome;
  return { ...again, readAgain: true };
}

async function importOnce(
  dataSource: DataSource,
  cipher: FieldCipher,
  text: Text,
  progress: Progress,
  label: string,
  direct: boolean,
): Promise<ImportOutcome | typeof READ_AGAIN> {
  const runner = dataSource.createQueryRunner();
  const client = (await runner.connect()) as PoolClient;
  try {
    await runner.startTransaction('READ COMMITTED');
    try {
      const [lock] = (await runner.query(`SELECT pg_try_advisory_xact_lock(${IMPORT_LOCK}, 0) AS free`)) as {
        free: boolean;
      }[];
      if (!lock?.free) {
        progress.phase('waiting for another import to finish');
        await runner.query(`SELECT pg_advisory_xact_lock(${IMPORT_LOCK}, 0)`);
      }
      const outcome = await importInTransaction(dataSource, runner, client, cipher, text, progress, label, direct);
      if (outcome.ok) await runner.commitTransaction();
      else await runner.rollbackTransaction();
      if (outcome.ok) await analyse(runner, outcome.tables, progress);
      return outcome.ok ? { ok: true, counts: outcome.counts, loadedStraightIn: outcome.loadedStraightIn } : outcome;
    } catch (error) {
      await runner.rollbackTransaction();
      if (error instanceof ReadAgain) return READ_AGAIN;
      if (error instanceof WriteRejected) {
        return rejected([problem([], `the database refused the data: ${error.message}`)]);
      }
      throw error;
    }
  } finally {
    await runner.release();
  }
}

/**
 * Held by an import for its whole transaction (an advisory lock, in the namespace range of the
 * change log's and the row-count fold's): imports run one at a time, so the look-up by id that
 * decides between updating a record and creating it cannot race another import creating the same
 * id in another enterprise, which the primary keys that include `enterprise_id` would not refuse.
 */
export const IMPORT_LOCK = 1179206451;

type TransactionOutcome =
  | { ok: true; counts: ImportCounts; tables: string[]; loadedStraightIn: number }
  | { ok: false; problems: string[]; problemCount: number };

async function importInTransaction(
  dataSource: DataSource,
  runner: QueryRunner,
  client: PoolClient,
  cipher: FieldCipher,
  text: Text,
  progress: Progress,
  label: string,
  direct: boolean,
): Promise<TransactionOutcome> {
  const values = new StagedValues(runner, cipher);
  const sink = (await isEmbedded(dataSource, runner)) ? new InsertSink(runner) : new CopySink(client);
  const stager = new Stager(runner, sink, values.preparers());
  const problems = new ProblemList();
  const named = new ImportedEnterprises();
  const history: AuditEventInput[] = [];
  const refused = (message: string): TransactionOutcome => ({ ok: false, problems: [message], problemCount: 1 });
  const writes = new ImportWrites(
    runner,
    (name) => stager.has(name),
    (name) => stager.rowCount(name),
    (section) => values.existing.has(section),
    (phase) => progress.phase(phase),
    (table): number => load.loaded(table),
  );
  const load = new DirectLoad(runner, stager, cipher, (): Promise<void> => writes.enterprisesAhead(), direct);
  /** Before refusing for what the database found: rows loaded straight in have not been checked. */
  const unlessLoadedStraightIn = (): void => {
    if (load.started) throw new ReadAgain();
  };

  progress.phase('reading');
  try {
    for await (const event of readSectionRecords(text, (key) => isImportSection(key) || key === AUDIT_SECTION)) {
      if (event.kind === 'problem') {
        problems.add(problem(event.path, event.message));
        continue;
      }
      progress.addRecords(1);
      const section = event.section;
      if (section === AUDIT_SECTION) {
        const entry = auditEventRecord.safeParse(event.value);
        if (!entry.success)
          for (const line of describeIssues(entry.error.issues, [section, event.index])) problems.add(line);
        else if (problems.empty) history.push(entry.data);
        continue;
      }
      const parsed = (SECTION_RECORDS[section] as z.ZodType).safeParse(event.value);
      if (!parsed.success) {
        for (const line of describeIssues(parsed.error.issues, [section, event.index])) problems.add(line);
        continue;
      }
      // After the first problem the rest of the file is only validated: nothing will be written.
      if (problems.empty) {
        named.add(section, parsed.data as object);
        const sink = await load.sinkFor(section, (parsed.data as { id: string }).id);
        stageRecord(sink, section, event.index, parsed.data);
        stager.addChars(event.chars);
        await stager.flushFull();
      }
    }
    if (!problems.empty) return { ok: false, problems: problems.kept, problemCount: problems.total };
    await stager.flushAll();
  } catch (error) {
    if (error instanceof InvalidJson) return refused(`${label}: is not valid JSON (${error.message})`);
    if (error instanceof DirectRefused) throw new ReadAgain();
    if (isDataError(error)) {
      unlessLoadedStraightIn();
      throw new WriteRejected(error.message);
    }
    throw error;
  } finally {
    // Batches may still be on their way when reading stops early (a problem, a bad file).
    await stager.settle();
  }

  progress.phase('checking');
  const staged = (name: StageName): boolean => stager.has(name);
  const large = stager.stagedNames().filter((name) => stager.rowCount(name) >= ANALYZE_ROWS);
  if (large.length > 0) {
    // Sizes and distinct counts are what these plans need: a small sample gives them.
    await runner.query(`SET LOCAL default_statistics_target = ${STAGING_STATISTICS_TARGET}`);
    for (const name of large) await runner.query(`ANALYZE ${stageOf(name).name}`);
    await runner.query(`SET LOCAL default_statistics_target TO DEFAULT`);
  }
  await new ImportChecks(runner, staged, problems).run();
  if (!problems.empty) {
    unlessLoadedStraightIn();
    return { ok: false, problems: problems.kept, problemCount: problems.total };
  }

  try {
    const counts = await writes.run();
    const historyProblems = await appendAuditHistory(runner, history);
    if (historyProblems.length > 0) {
      unlessLoadedStraightIn();
      for (const found of historyProblems) problems.add(problem(found.path, found.message));
      return { ok: false, problems: problems.kept, problemCount: problems.total };
    }
    // On the import's own transaction: an import that rolls back leaves no entry.
    await recordAuditForEnterprises(runner, named.ids(), CLI_ACTOR, {
      action: 'enterprise.imported',
      targetType: 'enterprise',
      targetId: null,
    });
    const tables = [...writes.changedRows].filter(([, rows]) => rows >= ANALYZE_ROWS).map(([table]) => table);
    return { ok: true, counts, tables, loadedStraightIn: load.loaded('people') };
  } catch (error) {
    if (isDataError(error)) {
      unlessLoadedStraightIn();
      throw new WriteRejected(error.message);
    }
    throw error;
  }
}

/** Fresh statistics after a large import, so the next queries are planned for the new sizes. */
async function analyse(runner: QueryRunner, tables: readonly string[], progress: Progress): Promise<void> {
  if (tables.length === 0) return;
  progress.phase('analysing');
  for (const table of tables) await runner.query(`ANALYZE ${table}`);
}

/** Imports a document already in memory (tests and fixtures), through the same streaming path. */
export async function importDocument(
  dataSource: DataSource,
  cipher: FieldCipher,
  input: unknown,
  tuning: ImportTuning = {},
): Promise<ImportOutcome> {
  const json = JSON.stringify(input) as string | undefined;
  if (json === undefined) {
    return rejected([problem([], 'must be a JSON object with the sections of the import format')]);
  }
  return importStream(dataSource, cipher, () => [json], NO_PROGRESS, undefined, tuning);
}

/** Counts the bytes that pass, for progress. */
class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void) {
    this.bytes += chunk.length;
    done(null, chunk);
  }
}

export interface ImportFileOptions {
  /** Creates the progress display once the file's size is known. */
  readonly progress?: (bytesRead: () => number, totalBytes: number) => Progress;
}

/**
 * Reads and imports a file (`.gz`: gzip-compressed); a file that is missing, not gzip or not
 * JSON is a problem like any other.
 */
export async function importFile(
  dataSource: DataSource,
  cipher: FieldCipher,
  file: string,
  options: ImportFileOptions = {},
): Promise<ImportOutcome> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'could not be read';
    return rejected([`${file}: ${reason}`]);
  }
  // The file is opened again when the import is read a second time; progress counts the bytes of the current reading.
  const current: { reading: FileReading | null } = { reading: null };
  const open = (): PassThrough => {
    current.reading?.text.destroy();
    current.reading = readFileText(file);
    return current.reading.text;
  };
  const progress = options.progress?.(() => current.reading?.counter.bytes ?? 0, size) ?? NO_PROGRESS;
  let ending: 'done' | 'rejected' | 'failed' = 'failed';
  try {
    const outcome = await importStream(dataSource, cipher, open, progress, file);
    ending = outcome.ok ? 'done' : 'rejected';
    return outcome;
  } catch (error) {
    const readError = current.reading?.error ?? null;
    if (error === readError && readError !== null) {
      const code = (readError as NodeJS.ErrnoException).code ?? '';
      const reason = code.startsWith('Z_') ? 'is not a valid gzip file' : 'could not be read';
      return rejected([`${file}: ${reason} (${readError.message})`]);
    }
    throw error;
  } finally {
    progress.finish(ending);
    current.reading?.text.destroy();
  }
}

interface FileReading {
  readonly counter: ByteCounter;
  /** The file's text (decompressed), destroyed with the error when reading fails. */
  readonly text: PassThrough;
  error: Error | null;
}

function readFileText(file: string): FileReading {
  const counter = new ByteCounter();
  const text = new PassThrough({ encoding: 'utf8' });
  const source = createReadStream(file, { highWaterMark: 1 << 16 });
  const reading: FileReading = { counter, text, error: null };
  // The error is noted as the failing stream emits it, before the pipeline passes it on to the
  // text: the reader then always finds it noted, however the pipeline orders its own promise.
  const note = (error: Error) => {
    reading.error ??= error;
  };
  source.on('error', note);
  const stages: Transform[] = file.endsWith('.gz') ? [counter, createGunzip()] : [counter];
  for (const stage of stages) stage.on('error', note);
  pipeline([source, ...stages, text]).catch((error: Error) => {
    note(error);
    text.destroy(error);
  });
  return reading;
}
