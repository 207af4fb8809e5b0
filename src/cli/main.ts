import 'reflect-metadata';
import { invokeCli } from './invoke-cli.js';

const code = await invokeCli(process.argv.slice(2), process, process.env);
// Exits once both outputs have taken every byte: a pipe is written asynchronously, exit would cut it.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
