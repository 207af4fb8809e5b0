import { ConfigError } from '../config/config-error.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { sqlStateOf, UNDEFINED_TABLE } from '../database/sql-state.js';
import { DecryptionError, type FieldCipher } from './field-cipher.js';

/** The plaintext of the key check; its only job is to decrypt to exactly this. */
export const KEY_CHECK_PLAINTEXT = 'finance-intake key check v1';

/** The configured keys cannot read the data: the process stops with this one line. */
export class KeyMismatch extends ConfigError {
  constructor() {
    super(
      'The key does not match the data: neither APP_KEY (or, when it is unset, DATA_DIR/app-key) ' +
        'nor any APP_PREVIOUS_KEYS entry decrypts the stored key check. Start with the key the data was written with.',
    );
    this.name = 'KeyMismatch';
  }
}

function reads(cipher: FieldCipher, stored: string, expected?: string): boolean {
  try {
    const plain = cipher.decrypt(stored);
    return expected === undefined || plain === expected;
  } catch (error) {
    if (error instanceof DecryptionError) return false;
    throw error;
  }
}

/** One value already encrypted in the database (a person's first name, a provider B key), if any. */
async function anyEncryptedValue(db: SqlExecutor): Promise<string | undefined> {
  const [row] = await selectRows<{ value: string }>(
    db,
    `(SELECT first_name_encrypted AS value FROM people WHERE first_name_encrypted IS NOT NULL LIMIT 1)
     UNION ALL
     (SELECT signprovider_b_key_encrypted FROM enterprises WHERE signprovider_b_key_encrypted IS NOT NULL LIMIT 1)
     LIMIT 1`,
  );
  return row?.value;
}

/**
 * Verifies that the configured keys read the data, or throws KeyMismatch. The first time (no
 * key check yet) it stores one, encrypted with the current key, unless values already stored
 * (a database older than the key check) show that the key is the wrong one.
 */
export async function verifyKeyCheck(db: SqlExecutor, cipher: FieldCipher): Promise<void> {
  const read = () => selectRows<{ value: string }>(db, `SELECT value_encrypted AS value FROM key_check WHERE id = 1`);
  let row: { value: string } | undefined;
  try {
    [row] = await read();
  } catch (error) {
    // Not migrated yet (MIGRATIONS_RUN=false before `migrate`): there is nothing to check against.
    if (sqlStateOf(error) === UNDEFINED_TABLE) return;
    throw error;
  }
  if (!row) {
    const existing = await anyEncryptedValue(db);
    if (existing !== undefined && !reads(cipher, existing)) throw new KeyMismatch();
    // Several workers may start at once: the first insert wins, and every one checks it.
    await db.query(`INSERT INTO key_check (id, value_encrypted) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [
      cipher.encrypt(KEY_CHECK_PLAINTEXT),
    ]);
    [row] = await read();
  }
  if (!row || !reads(cipher, row.value, KEY_CHECK_PLAINTEXT)) throw new KeyMismatch();
}
