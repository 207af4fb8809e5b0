import { createInterface } from 'node:readline';

/** A secret from `--<option>` or, when absent, the first line of standard input. */
export async function optionOrStdin(value: string | undefined, what: string): Promise<string> {
  if (value !== undefined) return value;
  if (process.stdin.isTTY) process.stderr.write(`${what}: `);
  const reader = createInterface({ input: process.stdin, terminal: false });
  for await (const line of reader) {
    reader.close();
    return line;
  }
  return '';
}
