import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const DIST = resolve(import.meta.dirname, '../../dist/src');

/**
 * A module for `node --import` that records every module the process resolves (through a
 * resolve hook, which sees CommonJS packages imported from ES modules too) and prints them as
 * JSON on standard error when the process exits.
 */
const RECORDER = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const urls = new Set();
port1.on('message', (url) => urls.add(url));
port1.unref();
const hook = 'let port; export function initialize(data) { port = data.port; }' +
  'export async function resolve(specifier, context, next) {' +
  ' const resolved = await next(specifier, context); port.postMessage(resolved.url); return resolved; }';
register('data:text/javascript,' + encodeURIComponent(hook), { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
process.on('exit', () => process.stderr.write('MODULES ' + JSON.stringify([...urls]) + '\\n'));
`;

/** The modules a Node process resolves while it imports `modules` (of the build). */
function modulesResolvedImporting(modules: readonly string[]): string[] {
  const recorder = join(mkdtempSync(join(tmpdir(), 'fi-modules-')), 'recorder.mjs');
  writeFileSync(recorder, RECORDER);
  const script = modules
    .map((module) => `await import(${JSON.stringify(pathToFileURL(join(DIST, module)).href)});`)
    .join('');
  const run = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(recorder).href, '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  expect(run.status).toBe(0);
  const line = run.stderr.split('\n').find((text) => text.startsWith('MODULES '));
  return JSON.parse(line?.slice('MODULES '.length) ?? '[]') as string[];
}

describe('the CLI starts without the HTTP layer', () => {
  // Loading @nestjs/swagger (and @nestjs/core, which it loads) was half a second of every
  // command's start; the commands read and write the resources without documenting a route.
  it('loads no Nest application or OpenAPI package for any command', () => {
    const resolved = modulesResolvedImporting(['cli/commands/index.js', 'cli/invoke-cli.js']);
    expect(resolved.some((url) => url.includes('/dist/src/cli/import/importer.js'))).toBe(true);
    expect(resolved.filter((url) => /node_modules\/@nestjs\/(swagger|core)\//.test(url))).toEqual([]);
  });

  it('is told apart from the service, which loads them', () => {
    const resolved = modulesResolvedImporting(['openapi/resource-schemas.js']);
    expect(resolved.some((url) => /node_modules\/@nestjs\/swagger\//.test(url))).toBe(true);
  });
});
