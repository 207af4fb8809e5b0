import 'reflect-metadata';
import { UnreadableValue } from '../crypto/key-rotation.js';
import { ConfigError } from '../config/config-error.js';
import { AccountError } from '../users/user-accounts.js';
import { EnterpriseAdminError } from '../enterprises/enterprise-admin.js';
import { CliUsageError } from './cli-command.js';
import { COMMANDS } from './commands/index.js';
import { ImportRejected } from './commands/import.command.js';
import { runCli } from './run-cli.js';

const OPERATOR_ERRORS = [CliUsageError, ConfigError, AccountError, EnterpriseAdminError, UnreadableValue];

/** Exits once `text` has reached standard error: a pipe is written asynchronously, exit would cut it. */
function failWith(text: string): void {
  process.stderr.write(text, () => process.exit(1));
}

runCli(process.argv.slice(2), COMMANDS, (line) => process.stdout.write(`${line}\n`))
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    if (error instanceof ImportRejected) {
      failWith([...error.problems, error.message].map((line) => `${line}\n`).join(''));
    } else if (OPERATOR_ERRORS.some((type) => error instanceof type)) {
      failWith(`${(error as Error).message}\n`);
    } else {
      failWith(`Failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
  });
