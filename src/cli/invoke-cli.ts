import { UnreadableValue } from '../crypto/key-rotation.js';
import { ConfigError } from '../config/config-error.js';
import { AccountError } from '../users/user-accounts.js';
import { EnterpriseAdminError } from '../enterprises/enterprise-admin.js';
import { CliUsageError, type CliCommand, type CliIo } from './cli-command.js';
import { COMMANDS } from './commands/index.js';
import { ImportRejected } from './commands/import.command.js';
import { runCli } from './run-cli.js';

const OPERATOR_ERRORS = [CliUsageError, ConfigError, AccountError, EnterpriseAdminError, UnreadableValue];

/** What the operator reads on standard error when an invocation fails. */
function failureText(error: unknown): string {
  if (error instanceof ImportRejected) return [...error.problems, error.message].map((line) => `${line}\n`).join('');
  if (OPERATOR_ERRORS.some((type) => error instanceof type)) return `${(error as Error).message}\n`;
  return `Failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
}

/**
 * One CLI invocation as the binary runs it, minus the process: its exit status is returned,
 * failures are written to `io.stderr` (operator mistakes in one line, anything else with its
 * stack). Tests call it in-process with streams and an environment of their own.
 */
export async function invokeCli(
  argv: readonly string[],
  io: CliIo,
  env: NodeJS.ProcessEnv,
  commands: readonly CliCommand[] = COMMANDS,
): Promise<number> {
  try {
    await runCli(argv, commands, io, env);
    return 0;
  } catch (error) {
    io.stderr.write(failureText(error));
    return 1;
  }
}
