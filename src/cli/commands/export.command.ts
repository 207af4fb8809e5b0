import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { CliUsageError, type CliCommand } from '../cli-command.js';
import { CLI_ACTOR, recordAuditForEnterprises } from '../../audit/audit-trail.js';
import { Exporter } from '../export/exporter.js';
import { progressInterval, PROGRESS_INTERVAL_OPTION } from '../progress-option.js';
import { StderrProgress } from '../progress.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const exportCommand: CliCommand = {
  name: 'export',
  summary:
    'Write the database (or one enterprise) in the import format, password hashes included: streamed, .gz compressed when the name ends so, the file readable by its owner only.',
  options: [
    { name: 'enterprise', description: 'only this enterprise, its members and their memberships of it' },
    { name: 'output', description: 'the file to write (FILE.gz: gzip); standard output when left out' },
    { name: 'include-secrets', flag: true, description: 'write provider B keys decrypted (left out otherwise)' },
    PROGRESS_INTERVAL_OPTION,
  ],
  needsDatabase: true,
  async run({ dataSource, cipher, out, io }, args) {
    const enterpriseId = args.options.enterprise;
    if (enterpriseId !== undefined && !UUID.test(enterpriseId)) {
      throw new CliUsageError('--enterprise must be an enterprise id (a UUID).');
    }
    const output = args.options.output;
    const intervalSeconds = progressInterval(args);
    // Written under a temporary name and renamed when complete: a failed export leaves no partial file.
    // The file holds password hashes, decrypted names and perhaps provider keys: its owner's only
    // (a fresh file, so a leftover partial file's wider mode is not kept).
    const partial = output === undefined ? undefined : `${output}.partial`;
    if (partial !== undefined) await rm(partial, { force: true });
    const file = partial === undefined ? undefined : createWriteStream(partial, { mode: 0o600 });
    const compress = output?.endsWith('.gz') === true;
    const sink: Writable = file === undefined ? (io.stdout as Writable) : compress ? createGzip() : file;
    if (compress && file !== undefined) sink.pipe(file);
    const exporter = new Exporter(dataSource, cipher, {
      enterpriseId: enterpriseId?.toLowerCase(),
      includeSecrets: args.options['include-secrets'] === 'true',
    });
    const progress = new StderrProgress({
      verb: 'export',
      stream: io.stderr,
      bytes: () => exporter.bytesWritten,
      intervalSeconds,
    });
    try {
      const result = await exporter.run(sink, progress);
      if (file !== undefined && partial !== undefined && output !== undefined) {
        sink.end();
        await finished(file);
        await rename(partial, output);
      } else {
        // The CLI exits right after the command: wait until standard output has taken every byte.
        await new Promise<void>((done) => io.stdout.write('', () => done()));
      }
      progress.finish();
      // After the file is complete: who exported what, in each enterprise exported.
      await recordAuditForEnterprises(
        dataSource,
        enterpriseId === undefined ? null : [enterpriseId.toLowerCase()],
        CLI_ACTOR,
        {
          action: 'enterprise.exported',
          targetType: 'enterprise',
          targetId: null,
          details: { include_secrets: args.options['include-secrets'] === 'true' },
        },
      );
      // With the file on standard output, the summary goes to standard error.
      const say = output === undefined ? (line: string) => io.stderr.write(`${line}\n`) : out;
      say('Exported:');
      for (const [resource, count] of Object.entries(result.counts)) say(`  ${resource}: ${count}`);
    } catch (error) {
      progress.finish('failed');
      if (file !== undefined && partial !== undefined) {
        file.destroy();
        await rm(partial, { force: true });
      }
      throw error;
    }
  },
};
