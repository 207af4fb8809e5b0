import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { FieldCipher } from '../crypto/field-cipher.js';

/** The streams of one invocation: the process's own, or a test's when it runs the CLI in-process. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export interface OutputContext {
  /** One line to standard output. */
  readonly out: (line: string) => void;
  readonly io: CliIo;
}

/** What a command that needs no database gets: the output and the environment to read. */
export interface StandaloneContext extends OutputContext {
  readonly env: NodeJS.ProcessEnv;
}

export interface CliContext extends OutputContext {
  readonly config: AppConfig;
  readonly dataSource: DataSource;
  readonly cipher: FieldCipher;
  /** Names of the migrations applied by this invocation before the command ran. */
  readonly appliedMigrations: readonly string[];
}

export interface CliOption {
  readonly name: string;
  readonly description: string;
  readonly required?: boolean;
  /** A switch without a value (`--all`); read as the string `'true'` when given. */
  readonly flag?: boolean;
  /** May be given more than once; the values are read joined by commas (`--enterprise A --enterprise B` is `A,B`). */
  readonly repeatable?: boolean;
}

/** A comma-separated option's values, trimmed, empty ones left out; undefined when not given. */
export function listOption(args: CliArguments, name: string): string[] | undefined {
  const value = args.options[name];
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
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
  /**
   * false: runs without first verifying that the configured keys read the data (the key
   * check). Only for commands that neither read nor write encrypted values.
   */
  readonly checksKey?: false;
  run(context: CliContext, args: CliArguments): Promise<void>;
}

/** A command that needs neither configuration nor database. */
export interface StandaloneCommand extends CommandDescription {
  readonly needsDatabase: false;
  run(context: StandaloneContext, args: CliArguments): Promise<void>;
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
