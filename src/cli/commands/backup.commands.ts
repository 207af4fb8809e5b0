import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requireOption, CliUsageError, type CliCommand } from '../cli-command.js';
import { embeddedKeyFile, loadConfig } from '../../config/app-config.js';
import { FieldCipher } from '../../crypto/field-cipher.js';
import { verifyKeyCheck } from '../../crypto/key-check.js';
import { requestBackup } from '../../database/backup-control.js';
import { liveHolder } from '../../database/data-dir-lock.js';
import { restoreDataDir } from '../../database/restore-data-dir.js';
import { resolveDatabase } from '../../database/database-target.js';

/** Writes the file whole or not at all: a partial backup never carries the final name. */
function writeWhole(file: string, bytes: Buffer): void {
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, bytes, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

function embeddedOnly(databaseUrl: string | undefined, what: string): void {
  if (databaseUrl) {
    throw new CliUsageError(
      `${what} is for the embedded database; with DATABASE_URL use PostgreSQL's own tools (pg_dump, pg_restore).`,
    );
  }
}

export const backupCommand: CliCommand = {
  name: 'backup',
  summary:
    "Write a consistent copy of the embedded database (DATA_DIR) to a file, also while the service runs (through the service's local control socket).",
  options: [{ name: 'output', description: 'the file to write (gzipped tar)', required: true }],
  needsDatabase: false,
  async run({ env, out }, args) {
    const file = requireOption(args, 'output');
    const config = loadConfig(env);
    embeddedOnly(config.databaseUrl, 'backup');
    if (!existsSync(join(config.dataDir, 'pgdata'))) {
      throw new CliUsageError(`There is no embedded database in ${config.dataDir} to back up.`);
    }
    const holder = liveHolder(config.dataDir);
    let bytes: Buffer;
    if (holder?.role === 'service' && holder.control !== null) {
      bytes = await requestBackup(holder.control);
      writeWhole(file, bytes);
      out(`Backup written to ${file} (${bytes.length} bytes, taken by the running service, pid ${holder.pid}).`);
      return;
    }
    // Nobody serving: this process opens the database itself. Another holder (a CLI command, or
    // a service without a control socket) makes this refuse with who holds it and what to do.
    const database = await resolveDatabase(config, { role: 'cli', command: 'backup' });
    try {
      const dump = database.dumpDataDir;
      if (!dump) throw new Error('The embedded database cannot be dumped.');
      bytes = Buffer.from(await (await dump()).arrayBuffer());
    } finally {
      await database.release();
    }
    writeWhole(file, bytes);
    out(`Backup written to ${file} (${bytes.length} bytes).`);
  },
};

export const restoreCommand: CliCommand = {
  name: 'restore',
  summary: 'Restore a backup file into an empty DATA_DIR (with the APP_KEY or app-key file the data was written with).',
  options: [{ name: 'input', description: 'a file written by backup', required: true }],
  needsDatabase: false,
  async run({ env, out }, args) {
    const file = requireOption(args, 'input');
    // Only the key the data was written with reads it: never generate one here (a new key would
    // stay in DATA_DIR after the refused restore, and the next start would use it).
    const keyFile = embeddedKeyFile(env);
    if (!env.DATABASE_URL?.trim() && !env.APP_KEY?.trim() && !existsSync(keyFile)) {
      throw new CliUsageError(
        `restore needs the key the backup's data was written with: set APP_KEY, or copy the app-key file kept with the backup to ${keyFile}.`,
      );
    }
    const config = loadConfig(env);
    embeddedOnly(config.databaseUrl, 'restore');
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch {
      throw new CliUsageError(`${file}: no such file or not readable.`);
    }
    const counts = await restoreDataDir(config, bytes, (dataSource) =>
      verifyKeyCheck(dataSource, new FieldCipher(config.encryptionKeys)),
    );
    out(
      `Restored ${file} into ${config.dataDir}: ${counts.enterprises} enterprises, ${counts.users} users, ${counts.people} people.`,
    );
  },
};
