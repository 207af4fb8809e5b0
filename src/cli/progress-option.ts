import { CliUsageError, type CliArguments, type CliOption } from './cli-command.js';

/** Seconds between progress lines when standard error is not a terminal. */
const DEFAULT_INTERVAL_SECONDS = 10;

export const PROGRESS_INTERVAL_OPTION: CliOption = {
  name: 'progress-interval',
  description: `seconds between progress lines on standard error when it is not a terminal (default ${DEFAULT_INTERVAL_SECONDS})`,
};

export function progressInterval(args: CliArguments): number {
  const given = args.options['progress-interval'];
  if (given === undefined) return DEFAULT_INTERVAL_SECONDS;
  const seconds = Number(given);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new CliUsageError('--progress-interval must be a positive number of seconds.');
  return seconds;
}
