import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { selectRows } from '../../src/database/sql.js';
import { importFixture } from '../helpers/fixtures.js';
import { createApp } from '../../src/app.factory.js';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { createTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

const SECRET_A = 'provider-a-webhook-secret';
const KEY_B = 'enterprise-one-provider-b-key';
const OTHER_KEY_B = 'enterprise-two-provider-b-key';

interface DocumentRow {
  status: string;
  signed_at: Date | null;
  declined_at: Date | null;
  revoked_at: Date | null;
}

const signA = (body: string | Buffer, secret = SECRET_A): string =>
  createHmac('sha256', secret).update(body).digest('hex');
const signB = (body: string | Buffer, key = KEY_B): string => createHmac('sha256', key).update(body).digest('base64');

describe('signature-provider webhooks', () => {
  let t: TestApp;
  const enterprise = randomUUID();
  const otherEnterprise = randomUUID();
  const keylessEnterprise = randomUUID();

  beforeAll(async () => {
    t = await createTestApp({ SIGNPROVIDER_A_SECRET: SECRET_A });
    await importFixture(t, {
      enterprises: [
        { id: enterprise, name: 'One', signprovider_b_key: KEY_B },
        { id: otherEnterprise, name: 'Two', signprovider_b_key: OTHER_KEY_B },
        { id: keylessEnterprise, name: 'Keyless' },
      ],
    });
  });
  afterAll(async () => t.close());

  /** A new document in a given state; returns its provider id. */
  async function documentIn(provider: 'a' | 'b', status: string, owner = enterprise): Promise<string> {
    const externalId = `${provider}-${randomUUID()}`;
    await importFixture(t, {
      signing_documents: [{ id: randomUUID(), enterprise_id: owner, provider, external_id: externalId, status }],
    });
    return externalId;
  }

  async function row(provider: 'a' | 'b', externalId: string): Promise<DocumentRow> {
    const [found] = await selectRows<DocumentRow>(
      t.dataSource,
      `SELECT status, signed_at, declined_at, revoked_at FROM signing_documents WHERE provider = $1 AND external_id = $2`,
      [provider, externalId],
    );
    if (!found) throw new Error('document missing');
    return found;
  }

  /** `signature: null` sends no signature header. */
  const deliverA = (body: string | Buffer, signature: string | null = signA(body), app = t.app) =>
    app.inject({
      method: 'POST',
      url: '/api/webhooks/signprovider-a',
      payload: body,
      headers: {
        'content-type': 'application/json',
        ...(signature === null ? {} : { 'x-signprovidera-signature': signature }),
      },
    });

  const deliverB = (
    body: string | Buffer,
    headers: Record<string, string> = { 'x-signproviderb-signature-1': signB(body) },
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/webhooks/signprovider-b',
      payload: body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  describe('provider A', () => {
    const statuses = ['sent', 'viewed', 'signed', 'declined', 'revoked'];
    const moves: [string, string][] = [
      ['document.signed', 'signed'],
      ['completed', 'signed'],
      ['declined', 'declined'],
      ['revoked', 'revoked'],
      ['viewed', 'viewed'],
      ['reminder_sent', 'sent'],
    ];
    it.each(statuses.flatMap((from) => moves.map(([keyword, next]) => [from, keyword, next])))(
      'moves a %s document on keyword %s to %s',
      async (from, keyword, next) => {
        const id = await documentIn('a', from ?? '');
        const res = await deliverA(JSON.stringify({ event: keyword, data: { documentId: id } }));
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ ok: true });
        expect((await row('a', id)).status).toBe(next);
      },
    );

    it('stamps the first entry into signed, declined and revoked, and keeps the stamp on redelivery', async () => {
      const id = await documentIn('a', 'sent');
      const body = JSON.stringify({ documentId: id, status: 'signed' });
      expect((await deliverA(body)).statusCode).toBe(200);
      const first = await row('a', id);
      expect(first.signed_at).toBeInstanceOf(Date);
      expect(first.declined_at).toBeNull();
      await new Promise((done) => setTimeout(done, 20));
      expect((await deliverA(body)).statusCode).toBe(200);
      expect((await row('a', id)).signed_at).toEqual(first.signed_at);

      await deliverA(JSON.stringify({ documentId: id, status: 'declined' }));
      await deliverA(JSON.stringify({ documentId: id, status: 'revoked' }));
      await deliverA(JSON.stringify({ documentId: id, status: 'signed' }));
      const last = await row('a', id);
      expect(last.status).toBe('signed');
      expect(last.signed_at).toEqual(first.signed_at);
      expect(last.declined_at).toBeInstanceOf(Date);
      expect(last.revoked_at).toBeInstanceOf(Date);
    });

    it('reads the keyword from event, data.event, status, data.status in that order', async () => {
      const id = await documentIn('a', 'sent');
      await deliverA(
        JSON.stringify({ data: { documentId: id, event: 'viewed', status: 'signed' }, status: 'declined' }),
      );
      expect((await row('a', id)).status).toBe('viewed');
      await deliverA(JSON.stringify({ data: { documentId: id, status: 'revoked' } }));
      expect((await row('a', id)).status).toBe('revoked');
    });

    it('prefers data.documentId to the top-level documentId', async () => {
      const inData = await documentIn('a', 'sent');
      const topLevel = await documentIn('a', 'sent');
      await deliverA(JSON.stringify({ documentId: topLevel, data: { documentId: inData }, event: 'viewed' }));
      expect((await row('a', inData)).status).toBe('viewed');
      expect((await row('a', topLevel)).status).toBe('sent');
    });

    it('verifies the exact bytes received: unusual whitespace and unicode', async () => {
      const id = await documentIn('a', 'sent');
      const body = Buffer.from(
        `{\n\t"documentId" :  "${id}",\r\n  "event":"viewed", "note": "Zoë — 署名 ✍️"   }\n\n`,
        'utf8',
      );
      const res = await deliverA(body);
      expect(res.statusCode).toBe(200);
      expect((await row('a', id)).status).toBe('viewed');
    });

    it.each([
      ['missing', null],
      ['wrong', signA('something else')],
      ['upper-case hex', (body: string) => signA(body).toUpperCase()],
      ['truncated', (body: string) => signA(body).slice(0, 40)],
      ['signed with another secret', (body: string) => signA(body, 'not-the-secret')],
      ['base64 instead of hex', (body: string) => createHmac('sha256', SECRET_A).update(body).digest('base64')],
    ])('answers 401 and changes nothing when the signature is %s', async (_name, make) => {
      const id = await documentIn('a', 'sent');
      const body = JSON.stringify({ documentId: id, event: 'signed' });
      const signature = typeof make === 'function' ? make(body) : make;
      const res = await deliverA(body, signature);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid signature.' });
      expect((await row('a', id)).status).toBe('sent');
    });

    it('answers 401 when no secret is configured', async () => {
      // A second app on the same database, configured without SIGNPROVIDER_A_SECRET.
      const unconfigured = checkResponsesAgainstOpenApi(await createApp(testConfig(t.database), t.database));
      try {
        const id = await documentIn('a', 'sent');
        const body = JSON.stringify({ documentId: id, event: 'signed' });
        const res = await deliverA(body, signA(body), unconfigured);
        expect(res.statusCode).toBe(401);
        expect((await row('a', id)).status).toBe('sent');
      } finally {
        await unconfigured.close();
      }
    });

    it('answers 422 for a validly signed payload without a document id, or that is not JSON', async () => {
      const noId = JSON.stringify({ event: 'signed', data: {} });
      const res = await deliverA(noId);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        message: 'The document id field is required.',
        errors: { documentId: ['The document id field is required.'] },
      });
      const notJson = '{"documentId": "x", ';
      const bad = await deliverA(notJson);
      expect(bad.statusCode).toBe(422);
      expect(bad.json<{ message: string }>().message).toBe('The payload must be a JSON object.');
    });

    it('checks the signature before the JSON: an unsigned broken body is 401', async () => {
      expect((await deliverA('{"broken', null)).statusCode).toBe(401);
    });

    it('acknowledges an unknown document with 200 and no change', async () => {
      const res = await deliverA(JSON.stringify({ documentId: `unknown-${randomUUID()}`, event: 'signed' }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    });

    it('takes any content type, since the body is read raw', async () => {
      const id = await documentIn('a', 'sent');
      const body = JSON.stringify({ documentId: id, event: 'viewed' });
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/signprovider-a',
        payload: body,
        headers: { 'content-type': 'text/plain', 'x-signprovidera-signature': signA(body) },
      });
      expect(res.statusCode).toBe(200);
      expect((await row('a', id)).status).toBe('viewed');
    });

    it('leaves a consistent row after 50 concurrent deliveries', async () => {
      const id = await documentIn('a', 'sent');
      const keywords = ['signed', 'declined', 'viewed', 'revoked', 'sent'];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          deliverA(JSON.stringify({ documentId: id, event: keywords[i % keywords.length] })),
        ),
      );
      expect(results.every((r) => r.statusCode === 200)).toBe(true);
      const final = await row('a', id);
      expect(keywords).toContain(final.status);
      expect(final.signed_at).toBeInstanceOf(Date);
      expect(final.declined_at).toBeInstanceOf(Date);
      expect(final.revoked_at).toBeInstanceOf(Date);
    });
  });

  describe('provider B', () => {
    const envelope = (id: string, status: string, event = `envelope-${status}`) =>
      JSON.stringify({ event, data: { envelopeId: id, envelopeSummary: { status } } });

    const table: [string, string, string][] = [
      ['sent', 'completed', 'completed'],
      ['sent', 'declined', 'declined'],
      ['sent', 'voided', 'voided'],
      ['sent', 'delivered', 'delivered'],
      ['sent', 'corrected', 'sent'],
      ['delivered', 'completed', 'completed'],
      ['delivered', 'declined', 'declined'],
      ['delivered', 'voided', 'voided'],
      ['delivered', 'delivered', 'delivered'],
      ['delivered', 'sent', 'sent'],
      ...['completed', 'declined', 'voided'].flatMap((terminal) =>
        ['sent', 'delivered', 'completed', 'declined', 'voided'].map((status): [string, string, string] => [
          terminal,
          status,
          terminal,
        ]),
      ),
    ];
    it.each(table)('moves a %s envelope on status %s to %s', async (from, status, next) => {
      const id = await documentIn('b', from);
      const res = await deliverB(envelope(id, status));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect((await row('b', id)).status).toBe(next);
    });

    it('finds the envelope id in data.envelopeId, envelopeId or data.envelopeSummary.envelopeId', async () => {
      for (const shape of [
        (id: string) => ({ event: 'envelope-completed', data: { envelopeId: id } }),
        (id: string) => ({ event: 'envelope-completed', envelopeId: id }),
        (id: string) => ({ event: 'envelope-completed', data: { envelopeSummary: { envelopeId: id } } }),
      ]) {
        const id = await documentIn('b', 'sent');
        expect((await deliverB(JSON.stringify(shape(id)))).statusCode).toBe(200);
        expect((await row('b', id)).status).toBe('completed');
      }
    });

    it('takes the status from envelopeSummary, then data.status, then the event name', async () => {
      const a = await documentIn('b', 'sent');
      await deliverB(
        JSON.stringify({
          event: 'envelope-sent',
          data: { envelopeId: a, status: 'voided', envelopeSummary: { status: 'declined' } },
        }),
      );
      expect((await row('b', a)).status).toBe('declined');
      const b = await documentIn('b', 'sent');
      await deliverB(JSON.stringify({ event: 'envelope-sent', data: { envelopeId: b, status: 'voided' } }));
      expect((await row('b', b)).status).toBe('voided');
      const c = await documentIn('b', 'sent');
      await deliverB(JSON.stringify({ event: 'envelope-delivered', data: { envelopeId: c } }));
      expect((await row('b', c)).status).toBe('delivered');
    });

    it('ignores events that are not envelope-* with 200', async () => {
      const id = await documentIn('b', 'sent');
      const res = await deliverB(envelope(id, 'completed', 'recipient-completed'));
      expect(res.statusCode).toBe(200);
      expect((await row('b', id)).status).toBe('sent');
    });

    it('accepts a match in any X-SignProviderB-Signature-N header (key rotation)', async () => {
      const id = await documentIn('b', 'sent');
      const body = envelope(id, 'completed');
      const res = await deliverB(body, {
        'x-signproviderb-signature-1': signB(body, 'old-key'),
        'x-signproviderb-signature-2': signB(body),
      });
      expect(res.statusCode).toBe(200);
      expect((await row('b', id)).status).toBe('completed');
    });

    it.each([
      ['missing', () => ({})],
      [
        "made with another enterprise's key",
        (body: string) => ({ 'x-signproviderb-signature-1': signB(body, OTHER_KEY_B) }),
      ],
      [
        'hex instead of base64',
        (body: string) => ({ 'x-signproviderb-signature-1': createHmac('sha256', KEY_B).update(body).digest('hex') }),
      ],
      ['truncated', (body: string) => ({ 'x-signproviderb-signature-1': signB(body).slice(0, 20) })],
    ])('answers 401 and changes nothing when the signature is %s', async (_name, headers) => {
      const id = await documentIn('b', 'sent');
      const body = envelope(id, 'completed');
      const res = await deliverB(body, headers(body));
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid signature.' });
      expect((await row('b', id)).status).toBe('sent');
    });

    it('answers 401 when the owning enterprise has no key', async () => {
      const id = await documentIn('b', 'sent', keylessEnterprise);
      const body = envelope(id, 'completed');
      expect((await deliverB(body, { 'x-signproviderb-signature-1': signB(body, '') })).statusCode).toBe(401);
      expect((await row('b', id)).status).toBe('sent');
    });

    it('acknowledges an unknown envelope with 200 before any signature check', async () => {
      const res = await deliverB(envelope(`unknown-${randomUUID()}`, 'completed'), {});
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
    });

    it('answers 422 for a payload without an envelope id, or that is not JSON', async () => {
      const res = await deliverB(JSON.stringify({ event: 'envelope-completed', data: {} }));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({
        message: 'The envelope id field is required.',
        errors: { envelopeId: ['The envelope id field is required.'] },
      });
      expect((await deliverB('not json at all')).statusCode).toBe(422);
    });

    it('keeps a terminal state under 50 concurrent deliveries', async () => {
      const id = await documentIn('b', 'sent');
      const statuses = ['delivered', 'completed', 'declined', 'sent', 'voided'];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => deliverB(envelope(id, statuses[i % statuses.length] ?? 'sent'))),
      );
      expect(results.every((r) => r.statusCode === 200)).toBe(true);
      const settled = (await row('b', id)).status;
      expect(['completed', 'declined', 'voided']).toContain(settled);
      await deliverB(envelope(id, 'sent'));
      expect((await row('b', id)).status).toBe(settled);
    });
  });
});
