import { randomBytes, randomUUID } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * How much compression saves and costs for answers of this API's shape, by size: the basis of
 * COMPRESSION_THRESHOLD_BYTES. Records carry random ids and text, as real ones do, so the
 * figures are not flattered by repetition. Run: npm run bench:compression
 */
function lead(): Record<string, unknown> {
  return {
    id: randomUUID(),
    enterprise_id: randomUUID(),
    title: `Car loan ${randomBytes(6).toString('hex')}`,
    description: null,
    person_name: `Jane ${randomBytes(4).toString('hex')}`,
    organisation_name: null,
    created_at: new Date(Date.now() - Math.random() * 1e10).toISOString(),
    updated_at: new Date().toISOString(),
  };
}

function timeMicros(fn: () => Buffer, rounds = 300): { micros: number; bytes: number } {
  let out = fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) out = fn();
  return { micros: Number(process.hrtime.bigint() - start) / rounds / 1000, bytes: out.length };
}

const rows: string[] = [
  '| records | bytes | gzip bytes | gzip µs | br(4) bytes | br(4) µs |',
  '| --- | --- | --- | --- | --- | --- |',
];
for (const count of [1, 2, 4, 8, 32, 100]) {
  const body = Buffer.from(JSON.stringify({ data: Array.from({ length: count }, lead) }));
  const gzip = timeMicros(() => gzipSync(body));
  const br = timeMicros(() => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }));
  rows.push(
    `| ${count} | ${body.length} | ${gzip.bytes} | ${gzip.micros.toFixed(0)} | ${br.bytes} | ${br.micros.toFixed(0)} |`,
  );
}
process.stdout.write(`${rows.join('\n')}\n`);
