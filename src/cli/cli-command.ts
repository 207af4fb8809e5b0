import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { FieldCipher } from '../common/crypto/field-cipher.js';

export interface OutputContext {
  readonly out: (line: string) => void;
}

export interface CliContext extends OutputContext {
  readonly config: AppConfig;
  readonly dataSource: DataSource;
  readonly cipher: FieldCipher;
}

export interface CliOption {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** A flag without a value (`--include-secrets`); present means the string `true`. */
  readonly flag?: boolean;
}

interface CommandDescription {
  readonly name: string;
  readonly summary: string;
  /** Positional arguments, for the usage line (e.g. `<file.json>`). */
  readonly positionals?: readonly string[];
  readonly options?: readonly CliOption[];
}

export interface DatabaseCommand extends CommandDescription {
  readonly needsDatabase: true;
  run(context: CliContext, args: CliArguments): Promise<void>;
}

/** A command that needs neither configuration nor database. */
export interface StandaloneCommand extends CommandDescription {
  readonly needsDatabase: false;
  run(context: OutputContext, args: CliArguments): Promise<void>;
}

export type CliCommand = DatabaseCommand | StandaloneCommand;

export interface CliArguments {
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, string | undefined>>;
}

/** A problem the operator caused; printed without a stack trace, exit status 1. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

export function requireOption(args: CliArguments, name: string): string {
  const value = args.options[name];
  if (value === undefined || value === '') throw new CliUsageError(`--${name} is required.`);
  return value;
}
