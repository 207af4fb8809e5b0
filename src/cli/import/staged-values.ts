import { hashPassword, verifyPassword } from '../../auth/password-hasher.js';
import { DecryptionError, type FieldCipher } from '../../crypto/field-cipher.js';
import { selectRows, type SqlExecutor } from '../../database/sql.js';
import type { Row, StageName } from './import-tables.js';
import { PLAIN } from './record-rows.js';
import type { RowPreparer } from './staging.js';

/** Password hashing is CPU and memory bound; a few at a time keep the thread pool busy. */
const HASH_CONCURRENCY = 4;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Turns the plaintext of a batch of staged rows into what is stored, looking up the stored rows
 * of the batch in one query: encrypted values are kept when they decrypt to the same text (the
 * encryption is randomised, so encrypting again would rewrite an unchanged row), passwords are
 * hashed only when they changed. Also marks which records existed before the import.
 */
export class StagedValues {
  /** Sections with at least one record that was already in the database. */
  readonly existing = new Set<StageName>();

  constructor(
    private readonly db: SqlExecutor,
    private readonly cipher: FieldCipher,
  ) {}

  preparers(): Partial<Record<StageName, RowPreparer>> {
    return {
      enterprises: (rows) => this.enterprises(rows),
      users: (rows) => this.users(rows),
      people: (rows) => this.people(rows),
      organisations: (rows) => this.organisations(rows),
    };
  }

  private async stored(table: string, column: string, rows: readonly Row[]): Promise<Map<string, string | null>> {
    const found = await selectRows<{ id: string; value: string | null }>(
      this.db,
      `SELECT id, ${column} AS value FROM ${table} WHERE id = ANY($1::uuid[])`,
      [rows.map((r) => r.id)],
    );
    return new Map(found.map((r) => [r.id, r.value]));
  }

  private markExisting(section: StageName, rows: Row[], stored: Map<string, unknown>): void {
    for (const row of rows) row.existed = stored.has(row.id as string);
    if (stored.size > 0) this.existing.add(section);
  }

  private async enterprises(rows: Row[]): Promise<Row[]> {
    const stored = await this.stored('enterprises', 'signprovider_b_key_encrypted', rows);
    for (const row of rows) {
      const plain = row[PLAIN.bKey] as string | null | undefined;
      const current = stored.get(row.id as string) ?? null;
      row.signprovider_b_key_encrypted = plain === undefined ? current : this.encryptUnlessSame(plain, current);
    }
    return rows;
  }

  private async people(rows: Row[]): Promise<Row[]> {
    const stored = await this.stored('people', 'first_name_encrypted', rows);
    this.markExisting('people', rows, stored);
    for (const row of rows) {
      row.first_name_encrypted = this.encryptUnlessSame(
        row[PLAIN.firstName] as string | null,
        stored.get(row.id as string),
      );
    }
    return rows;
  }

  private async organisations(rows: Row[]): Promise<Row[]> {
    this.markExisting('organisations', rows, await this.stored('organisations', 'id', rows));
    return rows;
  }

  private async users(rows: Row[]): Promise<Row[]> {
    const stored = await this.stored('users', 'password_hash', rows);
    this.markExisting('users', rows, stored);
    const hashes = await mapLimited(rows, HASH_CONCURRENCY, async (row) => {
      const current = stored.get(row.id as string) ?? null;
      const given = row[PLAIN.passwordHash] as string | undefined;
      const password = row[PLAIN.password] as string | undefined;
      if (given !== undefined) return given;
      if (password === undefined) return current;
      if (current !== null && (await verifyPassword(current, password))) return current;
      return hashPassword(password);
    });
    rows.forEach((row, i) => (row.password_hash = hashes[i]));
    return rows;
  }

  /** The stored ciphertext when it decrypts to `plain` with the current key, else a new one. */
  private encryptUnlessSame(plain: string | null, stored: string | null | undefined): string | null {
    if (plain === null) return null;
    if (stored && !this.cipher.needsRotation(stored)) {
      try {
        if (this.cipher.decrypt(stored) === plain) return stored;
      } catch (error) {
        if (!(error instanceof DecryptionError)) throw error;
      }
    }
    return this.cipher.encrypt(plain);
  }
}
