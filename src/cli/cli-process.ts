import 'reflect-metadata';
import { invokeCli } from './invoke-cli.js';

/** Runs the invocation of this process's arguments and exits with its status. */
export async function runThisProcess(): Promise<never> {
  const code = await invokeCli(process.argv.slice(2), process, process.env);
  // Exits once both outputs have taken every byte: a pipe is written asynchronously, exit would cut it.
  return new Promise<never>(() => {
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
}
