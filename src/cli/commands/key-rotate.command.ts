import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CLI_ACTOR, recordAuditForEnterprises } from '../../audit/audit-trail.js';
import { join } from 'node:path';
import type { CliCommand } from '../cli-command.js';
import { rotateEncryptedValues, type EncryptedColumn } from '../../crypto/key-rotation.js';
import type { AppConfig } from '../../config/app-config.js';
import { formatAppKey, parseAppKey } from '../../config/app-key.js';

const LABELS: Record<EncryptedColumn['column'], string> = {
  first_name_encrypted: 'person first names',
  signprovider_b_key_encrypted: 'provider B keys',
  value_encrypted: 'key check',
  secret_encrypted: 'webhook secrets',
  previous_secret_encrypted: 'previous webhook secrets',
};

/**
 * The embedded database keeps a generated key in DATA_DIR/app-key. After a rotation that file
 * would still hold the old key, and a start without APP_KEY would be refused: it gets the new one.
 */
function updateKeyFile(config: AppConfig): string | undefined {
  const current = config.encryptionKeys[0];
  const file = join(config.dataDir, 'app-key');
  if (config.databaseUrl || !current || !existsSync(file)) return undefined;
  if (parseAppKey(readFileSync(file, 'utf8'))?.equals(current)) return undefined;
  writeFileSync(`${file}.new`, `${formatAppKey(current)}\n`, { mode: 0o600 });
  renameSync(`${file}.new`, file);
  return file;
}

export const keyRotateCommand: CliCommand = {
  name: 'key:rotate',
  summary:
    'Re-encrypt every encrypted value with the current APP_KEY (in batches, resumable); afterwards APP_PREVIOUS_KEYS can be emptied.',
  needsDatabase: true,
  async run({ config, dataSource, cipher, out, io }) {
    // Progress goes to standard error, so standard output holds only the summary.
    const done = await rotateEncryptedValues(dataSource, cipher, (column, count, total) => {
      io.stderr.write(`${LABELS[column.column]}: ${count}/${total}\n`);
    });
    const parts = [...done].map(([column, count]) => `${LABELS[column.column]} ${count}`);
    await recordAuditForEnterprises(dataSource, null, CLI_ACTOR, {
      action: 'key.rotated',
      targetType: 'key',
      targetId: null,
      details: Object.fromEntries([...done].map(([column, count]) => [column.column, count])),
    });
    out(`Re-encrypted with the current key: ${parts.join(', ')}.`);
    const keyFile = updateKeyFile(config);
    if (keyFile) out(`${keyFile} now holds the current key.`);
    out('Every value now reads with APP_KEY alone: APP_PREVIOUS_KEYS can be removed.');
  },
};
