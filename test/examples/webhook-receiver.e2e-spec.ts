import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const root = process.cwd();
const example = join(root, 'examples', 'webhook-receiver');

/**
 * examples/webhook-receiver, type-checked and run as a process of its own: it verifies the
 * service's deliveries with the standardwebhooks package and keeps a copy in step.
 */
describe('examples/webhook-receiver: a receiver that verifies and keeps a copy (issue 31)', () => {
  let t: TestApp;
  let child: ChildProcess | undefined;
  let receiverUrl = '';
  let headers: Record<string, string> = {};
  let secret = '';

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' });
    const { doc, tenant } = tenantDocument();
    await importFixture(t, doc);
    headers = apiHeaders('v2', await loginToken(t.app, tenant.user.email, tenant.user.password), tenant.enterpriseId);
    rmSync(join(example, 'dist'), { recursive: true, force: true });
    await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(example, 'tsconfig.json')], { cwd: root });
    const port = await freePort();
    receiverUrl = `http://127.0.0.1:${port}`;
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v2/webhook-endpoints',
      headers,
      payload: { url: `${receiverUrl}/hooks`, types: ['lead'] },
    });
    secret = made.json<{ data: { secret: string } }>().data.secret;
    const started = spawn(process.execPath, [join(example, 'dist', 'receiver.js')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    await new Promise<void>((resolve, reject) => {
      started.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
    t.app.get(WebhookDeliveryWorker).start();
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await t.app.get(WebhookDeliveryWorker).stop();
    await t.close();
    rmSync(join(example, 'dist'), { recursive: true, force: true });
  });

  const copy = async () => (await (await fetch(`${receiverUrl}/copy`)).json()) as Record<string, { title: string }>;

  it('keeps a copy of the leads in step: created, changed and removed', async () => {
    const create = async (title: string) =>
      (
        await t.app.inject({ method: 'POST', url: '/api/v2/leads', headers, payload: { title, person_name: 'Pat' } })
      ).json<{ data: { id: string } }>().data.id;
    const kept = await create('Kept');
    const gone = await create('Gone');
    await t.app.inject({
      method: 'PUT',
      url: `/api/v2/leads/${kept}`,
      headers,
      payload: { title: 'Kept, renamed', person_name: 'Pat' },
    });
    await t.dataSource.query(`DELETE FROM leads WHERE id = $1`, [gone]);
    let seen: Record<string, { title: string }> = {};
    for (let i = 0; i < 200; i++) {
      seen = await copy();
      if (seen[`lead:${kept}`]?.title === 'Kept, renamed' && !(`lead:${gone}` in seen)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Object.keys(seen)).toEqual([`lead:${kept}`]);
    expect(seen[`lead:${kept}`]?.title).toBe('Kept, renamed');
  });

  it('refuses a delivery whose signature does not verify', async () => {
    const res = await fetch(`${receiverUrl}/hooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJl',
      },
      body: JSON.stringify({ type: 'lead.removed', timestamp: '', data: {} }),
    });
    expect(res.status).toBe(401);
  });
});
