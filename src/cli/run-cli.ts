import { parseArgs } from 'node:util';
import { loadConfig } from '../config/app-config.js';
import { FieldCipher } from '../crypto/field-cipher.js';
import { verifyKeyCheck } from '../crypto/key-check.js';
import { resolveDatabase } from '../database/database-target.js';
import { migrationLocksTelling, runMigrations } from '../database/migration-runner.js';
import { openDataSource } from '../data-source.js';
import { CliUsageError, type CliArguments, type CliCommand, type CliIo } from './cli-command.js';
import { commandUsage, helpText } from './cli-help.js';

function parseCommandArguments(command: CliCommand, argv: readonly string[]): CliArguments {
  const options = Object.fromEntries(
    (command.options ?? []).map((o) => [
      o.name,
      { type: o.flag ? ('boolean' as const) : ('string' as const), multiple: o.repeatable === true },
    ]),
  );
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    const values: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(parsed.values))
      values[name] = Array.isArray(value)
        ? value.join(',')
        : typeof value === 'string'
          ? value
          : value === true
            ? 'true'
            : undefined;
    return { positionals: parsed.positionals, options: values };
  } catch (error) {
    throw new CliUsageError(
      `${error instanceof Error ? error.message : String(error)}\nUsage: ${commandUsage(command)}`,
    );
  }
}

/** Runs one CLI invocation on the given streams and environment; operator mistakes throw. */
export async function runCli(
  argv: readonly string[],
  commands: readonly CliCommand[],
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const out = (line: string): void => {
    io.stdout.write(`${line}\n`);
  };
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out(helpText(commands));
    return;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) throw new CliUsageError(`Unknown command "${name}". Run with --help for the list.`);
  if (rest.includes('--help')) {
    out(`Usage: npm run cli -- ${commandUsage(command)}\n${command.summary}`);
    return;
  }
  const args = parseCommandArguments(command, rest);
  if (!command.needsDatabase) {
    await command.run({ out, io, env }, args);
    return;
  }
  const config = loadConfig(env);
  // The embedded database is locked for this command: a running service makes this refuse.
  const database = await resolveDatabase(config, { role: 'cli', command: command.name });
  try {
    const dataSource = await openDataSource(database);
    try {
      const appliedMigrations = await runMigrations(
        dataSource,
        migrationLocksTelling((line) => io.stderr.write(`${line}\n`)),
      );
      const cipher = new FieldCipher(config.encryptionKeys);
      if (command.checksKey !== false) await verifyKeyCheck(dataSource, cipher);
      await command.run({ config, dataSource, cipher, appliedMigrations, out, io }, args);
    } finally {
      await dataSource.destroy();
    }
  } finally {
    await database.release();
  }
}
