import type { CliCommand } from '../cli-command.js';
import { rotateEncryptedValues, type EncryptedColumn } from '../../common/crypto/key-rotation.js';

const LABELS: Record<EncryptedColumn['table'], string> = {
  people: 'person first names',
  enterprises: 'provider B keys',
  key_check: 'key check',
};

export const keyRotateCommand: CliCommand = {
  name: 'key:rotate',
  summary:
    'Re-encrypt every encrypted value with the current APP_KEY (in batches, resumable); afterwards APP_PREVIOUS_KEYS can be emptied.',
  needsDatabase: true,
  async run({ dataSource, cipher, out }) {
    // Progress goes to standard error, so standard output holds only the summary.
    const done = await rotateEncryptedValues(dataSource, cipher, (column, count, total) => {
      process.stderr.write(`${LABELS[column.table]}: ${count}/${total}\n`);
    });
    const parts = [...done].map(([column, count]) => `${LABELS[column.table]} ${count}`);
    out(`Re-encrypted with the current key: ${parts.join(', ')}.`);
    out('Every value now reads with APP_KEY alone: APP_PREVIOUS_KEYS can be removed.');
  },
};
