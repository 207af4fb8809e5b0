import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DataSource } from 'typeorm';
import { importDocument } from '../../src/cli/import/importer.js';
import type { FieldCipher } from '../../src/crypto/field-cipher.js';

export type ImportDocument = Record<string, Record<string, unknown>[]>;

/** Loads a fixture through the importer users run (conventions: fixtures go through it). */
export async function importFixture(
  t: { dataSource: DataSource; cipher: FieldCipher },
  doc: ImportDocument,
): Promise<void> {
  const outcome = await importDocument(t.dataSource, t.cipher, doc);
  if (!outcome.ok) throw new Error(`fixture rejected:\n${outcome.problems.join('\n')}`);
}

export interface Tenant {
  enterpriseId: string;
  otherEnterpriseId: string;
  user: { id: string; email: string; password: string };
  outsider: { id: string; email: string; password: string };
}

/**
 * Two enterprises; a user in the first only, an outsider in the second only. Fresh ids and
 * emails each call, so tests in one file never depend on each other.
 */
export function tenantDocument(): { doc: ImportDocument; tenant: Tenant } {
  const tag = randomUUID().slice(0, 8);
  const tenant: Tenant = {
    enterpriseId: randomUUID(),
    otherEnterpriseId: randomUUID(),
    user: { id: randomUUID(), email: `user-${tag}@example.com`, password: 'user-password' },
    outsider: { id: randomUUID(), email: `outsider-${tag}@example.com`, password: 'outsider-password' },
  };
  const doc: ImportDocument = {
    enterprises: [
      { id: tenant.enterpriseId, name: `Own ${tag}`, is_active: true },
      { id: tenant.otherEnterpriseId, name: `Other ${tag}`, is_active: true },
    ],
    users: [
      {
        id: tenant.user.id,
        name: 'Ann Broker',
        email: tenant.user.email,
        password: tenant.user.password,
        is_active: true,
        enterprise_ids: [tenant.enterpriseId],
      },
      {
        id: tenant.outsider.id,
        name: 'Otto Outsider',
        email: tenant.outsider.email,
        password: tenant.outsider.password,
        is_active: true,
        enterprise_ids: [tenant.otherEnterpriseId],
      },
    ],
  };
  return { doc, tenant };
}

/** Logs in through the API and returns the bearer token. */
export async function loginToken(app: NestFastifyApplication, email: string, password: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v2/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json<{ access_token: string }>().access_token;
}

/** Headers for an authenticated call to a version, with its enterprise header. */
export function apiHeaders(version: 'v1' | 'v2', token: string, enterpriseId?: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (enterpriseId !== undefined) headers[version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id'] = enterpriseId;
  return headers;
}
