import { readFile } from 'node:fs/promises';
import type { DataSource } from 'typeorm';
import type { FieldCipher } from '../../common/crypto/field-cipher.js';
import { describeIssues, problem } from './import-problems.js';
import { checkReferences } from './import-references.js';
import { importDocumentSchema } from './import-schema.js';
import { ImportWriter, type ImportCounts } from './import-writer.js';

export type { ImportCounts } from './import-writer.js';

export type ImportOutcome = { ok: true; counts: ImportCounts } | { ok: false; problems: string[] };

/** Problems found against the file and the database before anything is written. */
class ReferenceProblems extends Error {
  constructor(readonly problems: string[]) {
    super('reference problems');
  }
}

/** Problems with the data itself, found by the database while writing (the write is rolled back). */
class WriteRejected extends Error {}

/**
 * Validates the whole document, checks its references, then writes it in one transaction.
 * Any problem: nothing is written and every problem is returned with its path.
 */
export async function importDocument(
  dataSource: DataSource,
  cipher: FieldCipher,
  input: unknown,
): Promise<ImportOutcome> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [problem([], 'must be a JSON object with the sections of the import format')] };
  }
  const parsed = importDocumentSchema.safeParse(input);
  if (!parsed.success) return { ok: false, problems: describeIssues(parsed.error.issues) };
  const doc = parsed.data;
  try {
    const counts = await dataSource.transaction('READ COMMITTED', async (manager) => {
      const problems = await checkReferences(manager, doc);
      if (problems.length > 0) throw new ReferenceProblems(problems);
      try {
        return await new ImportWriter(manager, cipher).write(doc);
      } catch (error) {
        if (isDataError(error)) throw new WriteRejected(error.message);
        throw error;
      }
    });
    return { ok: true, counts };
  } catch (error) {
    if (error instanceof ReferenceProblems) return { ok: false, problems: error.problems };
    if (error instanceof WriteRejected) {
      return { ok: false, problems: [problem([], `the database refused the data: ${error.message}`)] };
    }
    throw error;
  }
}

/** Constraint violations and bad values (SQLSTATE classes 22 and 23), not connection faults. */
function isDataError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code ?? (error as { driverError?: { code?: unknown } }).driverError?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/** Reads and imports a file; a file that is missing or not JSON is a problem like any other. */
export async function importFile(dataSource: DataSource, cipher: FieldCipher, file: string): Promise<ImportOutcome> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'could not be read';
    return { ok: false, problems: [`${file}: ${reason}`] };
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`${file}: is not valid JSON (${(error as Error).message})`] };
  }
  return importDocument(dataSource, cipher, input);
}
