import type { DataSource } from 'typeorm';
import { selectRows } from '../database/sql.js';
import { DecryptionError, type FieldCipher } from './field-cipher.js';

/** Every column holding values encrypted with APP_KEY. */
export const ENCRYPTED_COLUMNS = [
  { table: 'people', column: 'first_name_encrypted' },
  { table: 'enterprises', column: 'signprovider_b_key_encrypted' },
  { table: 'key_check', column: 'value_encrypted' },
  { table: 'webhook_endpoints', column: 'secret_encrypted' },
  { table: 'webhook_endpoints', column: 'previous_secret_encrypted' },
] as const;

export type EncryptedColumn = (typeof ENCRYPTED_COLUMNS)[number];

export const ROTATION_BATCH = 500;

/** A stored value the configured keys cannot read: rotation stops there (what came before is kept). */
export class UnreadableValue extends Error {
  constructor(column: EncryptedColumn, id: string) {
    super(
      `A value in ${column.table}.${column.column} (row ${id}) cannot be decrypted with APP_KEY or APP_PREVIOUS_KEYS; ` +
        'add the key it was written with to APP_PREVIOUS_KEYS and run key:rotate again.',
    );
    this.name = 'UnreadableValue';
  }
}

export type RotationProgress = (column: EncryptedColumn, done: number, total: number) => void;

/** Values of the column not written with the current key (the key id is the third part). */
const staleFilter = (column: EncryptedColumn) =>
  `${column.column} IS NOT NULL AND split_part(${column.column}, ':', 3) <> $1`;

/**
 * Re-encrypts every value written with an older key with the current one, in batches of
 * `batch` rows, each batch its own transaction: an interrupted run keeps what it did and the
 * next run carries on with what is left. A row changed meanwhile (by the running service) is
 * left to the next batch. Returns how many values were re-encrypted, per column.
 */
export async function rotateEncryptedValues(
  dataSource: DataSource,
  cipher: FieldCipher,
  progress: RotationProgress,
  batch = ROTATION_BATCH,
): Promise<Map<EncryptedColumn, number>> {
  const done = new Map<EncryptedColumn, number>();
  for (const column of ENCRYPTED_COLUMNS) {
    const [{ total } = { total: 0 }] = await selectRows<{ total: number }>(
      dataSource,
      `SELECT count(*)::int AS total FROM ${column.table} WHERE ${staleFilter(column)}`,
      [cipher.currentKeyId],
    );
    let count = 0;
    progress(column, count, total);
    for (;;) {
      const rotated = await dataSource.transaction(async (manager) => {
        const rows = await selectRows<{ id: string; value: string }>(
          manager,
          `SELECT id::text AS id, ${column.column} AS value FROM ${column.table}
            WHERE ${staleFilter(column)} ORDER BY id LIMIT ${batch} FOR UPDATE`,
          [cipher.currentKeyId],
        );
        if (rows.length === 0) return undefined;
        const fresh = rows.map((row) => {
          try {
            return cipher.encrypt(cipher.decrypt(row.value));
          } catch (error) {
            if (error instanceof DecryptionError) throw new UnreadableValue(column, row.id);
            throw error;
          }
        });
        await manager.query(
          `UPDATE ${column.table} AS t SET ${column.column} = k.value
             FROM unnest($1::text[], $2::text[]) AS k(id, value)
            WHERE t.id::text = k.id`,
          [rows.map((r) => r.id), fresh],
        );
        return rows.length;
      });
      if (rotated === undefined) break;
      count += rotated;
      progress(column, count, Math.max(total, count));
    }
    done.set(column, count);
  }
  return done;
}
