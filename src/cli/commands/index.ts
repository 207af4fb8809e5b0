import type { CliCommand } from '../cli-command.js';
import { enterpriseCreateCommand, enterpriseSigningKeyCommand } from './enterprise.commands.js';
import { exportCommand } from './export.command.js';
import { importCommand } from './import.command.js';
import { keyGenerateCommand } from './key-generate.command.js';
import { migrateCommand } from './migrate.command.js';
import { seedDemoCommand } from './seed-demo.command.js';
import { memberAddCommand, userCreateCommand, userPasswordCommand } from './user.commands.js';

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
  keyGenerateCommand,
];
