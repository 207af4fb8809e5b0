import 'reflect-metadata';
import { UnreadableValue } from '../common/crypto/key-rotation.js';
import { ConfigError } from '../config/config-error.js';
import { AccountError } from '../users/user-accounts.js';
import { EnterpriseAdminError } from '../enterprises/enterprise-admin.js';
import { CliUsageError } from './cli-command.js';
import { COMMANDS } from './commands/index.js';
import { ImportRejected } from './commands/import.command.js';
import { runCli } from './run-cli.js';

const OPERATOR_ERRORS = [CliUsageError, ConfigError, AccountError, EnterpriseAdminError, UnreadableValue];

runCli(process.argv.slice(2), COMMANDS, (line) => process.stdout.write(`${line}\n`))
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    if (error instanceof ImportRejected) {
      for (const problem of error.problems) process.stderr.write(`${problem}\n`);
      process.stderr.write(`${error.message}\n`);
    } else if (OPERATOR_ERRORS.some((type) => error instanceof type)) {
      process.stderr.write(`${(error as Error).message}\n`);
    } else {
      process.stderr.write(`Failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  });
