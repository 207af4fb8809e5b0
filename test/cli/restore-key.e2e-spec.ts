import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../helpers/run-cli.js';

describe('restore without the key the data was written with', () => {
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-restore-key-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is refused before anything is written: no generated key is left in DATA_DIR', async () => {
    const backup = join(dir, 'finance-intake-backup.tar.gz');
    writeFileSync(backup, 'not read: the key is missing first');
    const dataDir = join(dir, 'restored');
    const run = await runCli(['restore', '--input', backup], { env: { DATA_DIR: dataDir } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('restore needs the key the backup');
    expect(run.stderr).toContain(join(dataDir, 'app-key'));
    expect(existsSync(join(dataDir, 'app-key'))).toBe(false);
  });
});
