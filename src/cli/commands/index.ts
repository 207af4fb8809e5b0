import type { CliCommand } from '../cli-command.js';
import { auditListCommand } from './audit.commands.js';
import { enterpriseCreateCommand, enterpriseSigningKeyCommand } from './enterprise.commands.js';
import { exportCommand } from './export.command.js';
import { importCommand } from './import.command.js';
import { keyGenerateCommand } from './key-generate.command.js';
import { migrateCommand } from './migrate.command.js';
import { seedDemoCommand } from './seed-demo.command.js';
import { memberAddCommand, userCreateCommand, userPasswordCommand, userRoleCommand } from './user.commands.js';
// Token lifecycle and account locking (issue 16).
import { tokenCreateCommand, tokenListCommand, tokenRevokeCommand } from './token.commands.js';
import { userActivateCommand, userDeactivateCommand } from './user-activation.commands.js';
// Operator safety (issue 13): lists, key rotation, backup and restore.
import { backupCommand, restoreCommand } from './backup.commands.js';
import { keyRotateCommand } from './key-rotate.command.js';
import { enterpriseListCommand, userListCommand } from './list.commands.js';
// Outbound webhooks (issue 31).
import { webhookListCommand } from './webhook-list.command.js';

export const COMMANDS: readonly CliCommand[] = [
  migrateCommand,
  importCommand,
  exportCommand,
  seedDemoCommand,
  enterpriseCreateCommand,
  enterpriseSigningKeyCommand,
  userCreateCommand,
  userPasswordCommand,
  memberAddCommand,
  userRoleCommand,
  keyGenerateCommand,
  // Token lifecycle and account locking (issue 16).
  tokenCreateCommand,
  tokenListCommand,
  tokenRevokeCommand,
  userDeactivateCommand,
  userActivateCommand,
  // Operator safety (issue 13)
  userListCommand,
  enterpriseListCommand,
  keyRotateCommand,
  backupCommand,
  restoreCommand,
  // Outbound webhooks (issue 31)
  webhookListCommand,
  // Least privilege (issue 58)
  auditListCommand,
];
