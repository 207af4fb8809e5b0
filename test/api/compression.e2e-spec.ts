import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

describe('compression when the client asks for it', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const leadId = randomUUID();

  const suite = apiSuite({
    records: (tenant) => ({
      people: Array.from({ length: 100 }, (_, i) => ({
        id: randomUUID(),
        enterprise_id: tenant.enterpriseId,
        first_name: `First ${i}`,
        last_name: `Last ${i}`,
        phone_numbers: [{ id: randomUUID(), type: 'mobile', number: `0400 000 ${String(i).padStart(3, '0')}` }],
        emails: [{ id: randomUUID(), address: `p${i}@example.com` }],
        addresses: [{ id: randomUUID(), type: 'Residential', line1: `${i} Main St`, suburb: 'Sydney' }],
      })),
      leads: [{ id: leadId, enterprise_id: tenant.enterpriseId, title: 'Car loan', person_name: 'Jane' }],
    }),
  });
  beforeAll(() => void ({ t, tenant, token } = suite));

  const get = (path: string, extra: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v2/${path}`,
      headers: { ...apiHeaders('v2', token, tenant.enterpriseId), ...extra },
    });

  it('a client that does not ask gets the plain answer, with no Content-Encoding or Vary', async () => {
    const res = await get('people');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBeUndefined();
    expect(res.json<{ data: unknown[] }>().data).toHaveLength(100);
  });

  it.each([
    ['gzip', (b: Buffer) => gunzipSync(b)],
    ['br', (b: Buffer) => brotliDecompressSync(b)],
    ['br, gzip', (b: Buffer) => brotliDecompressSync(b)],
  ] as const)('Accept-Encoding: %s compresses a page to the same JSON', async (accept, decode) => {
    const plain = await get('people');
    const res = await get('people', { 'accept-encoding': accept });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe(accept.split(',')[0]);
    expect(res.headers.vary).toBe('accept-encoding');
    expect(decode(res.rawPayload).toString('utf8')).toBe(plain.body);
    expect(res.rawPayload.length).toBeLessThan(plain.rawPayload.length * 0.25);
  });

  it('an answer below the threshold goes out as it is', async () => {
    const res = await get(`leads/${leadId}`, { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.json<{ data: { id: string } }>().data.id).toBe(leadId);
  });

  it('an encoding the service does not offer gets the plain answer', async () => {
    const res = await get('people', { 'accept-encoding': 'compress' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});
