// npm run openapi:lint: builds the v1 and v2 documents from the compiled application, writes
// them to dist/openapi/ (where a client generator can take them from) and lints both with
// Redocly against redocly.yaml. Needs `npm run build` first (the npm script does it).
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../dist/src/app.factory.js';
import { loadConfig } from '../dist/src/config/app-config.js';
import { resolveDatabase } from '../dist/src/database/database-target.js';
import { API_VERSIONS, buildOpenApiDocuments } from '../dist/src/openapi/openapi-documents.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'openapi');

// The application needs a database to start, not to describe itself: a throwaway embedded one.
const dataDir = mkdtempSync(join(tmpdir(), 'finance-intake-openapi-'));
const files = [];
try {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', MIGRATIONS_RUN: 'false' });
  const database = await resolveDatabase(config, { role: 'cli', command: 'openapi:lint' });
  const app = await createApp(config, database);
  try {
    const documents = buildOpenApiDocuments(app);
    mkdirSync(out, { recursive: true });
    for (const version of API_VERSIONS) {
      const file = join(out, `${version}.json`);
      writeFileSync(file, `${JSON.stringify(documents[version], null, 2)}\n`);
      files.push(file);
    }
  } finally {
    await app.close();
    await database.release();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const result = spawnSync(
  join(root, 'node_modules', '.bin', 'redocly'),
  ['lint', ...files, '--config', join(root, 'redocly.yaml')],
  {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
process.exit(result.status ?? 1);
