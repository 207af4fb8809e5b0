import pg from 'pg';
import { adminUrl, TEMPLATE_DATABASE } from './test-database-names.mjs';

export default async function globalTeardown() {
  for (const server of globalThis.__EMBEDDED_SERVERS__ ?? []) await server.stop();
  await globalThis.__PGBOUNCER__?.stop();
  const url = process.env.DATABASE_URL;
  if (url) {
    const admin = new pg.Client(adminUrl(url));
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.end();
  }
}
