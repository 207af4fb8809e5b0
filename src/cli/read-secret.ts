import { createInterface } from 'node:readline';
import type { CliIo } from './cli-command.js';

/** A secret from `--<option>` or, when absent, the first line of standard input. */
export async function optionOrStdin(value: string | undefined, what: string, io: CliIo): Promise<string> {
  if (value !== undefined) return value;
  if (io.stdin.isTTY) io.stderr.write(`${what}: `);
  const reader = createInterface({ input: io.stdin, terminal: false });
  for await (const line of reader) {
    reader.close();
    return line;
  }
  return '';
}
