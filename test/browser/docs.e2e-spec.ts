import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../helpers/chromium.mjs';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Runs only where Debian's chromium is installed (jest.config.js; .ci/run installs it).
describe('/docs in a real browser (issue 8)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  let base: string;
  const elsewhere: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = await t.app.getUrl();
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    page = await browser.newPage();
    // The page may call nothing but this service (no CDN, no validator badge).
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await page.goto(`${base}/docs`);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const paths = async (): Promise<string[]> => {
    await page.locator('.opblock').first().waitFor();
    return page.locator('.opblock-summary-path').allTextContents();
  };

  it("lists both versions' operations", async () => {
    // v2 first (the primary document), then v1 from the selector in the top bar.
    const v2 = await paths();
    expect(v2).toEqual(expect.arrayContaining(['/api/v2/login', '/api/v2/leads', '/api/v2/people/{id}']));
    expect(v2.filter((p) => p.startsWith('/api/v1/'))).toEqual([]);

    await page.locator('.topbar select').selectOption({ label: 'v1' });
    await page.locator('.opblock-summary-path', { hasText: '/api/v1/login' }).first().waitFor();
    const v1 = await paths();
    expect(v1).toEqual(expect.arrayContaining(['/api/v1/login', '/api/v1/leads', '/api/v1/quotes/{id}']));
    expect(v1.filter((p) => p.startsWith('/api/v2/'))).toEqual([]);
  });

  it('logs in from the page and the token it shows works', async () => {
    await page.locator('.topbar select').selectOption({ label: 'v2' });
    const login = page.locator('#operations-Authentication-login');
    await login.waitFor();
    await login.locator('.opblock-summary').click();
    await login.locator('button.try-out__btn').click();
    // The example body is the demo user of the embedded demo database.
    const example = JSON.parse((await login.locator('textarea.body-param__text').inputValue()) || '{}') as unknown;
    expect(example).toEqual({ email: 'demo@example.com', password: 'demo-password' });
    await login
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ email: tenant.user.email, password: tenant.user.password }));
    await login.locator('button.execute').click();

    const live = login.locator('.live-responses-table tbody tr.response');
    await live.waitFor();
    expect(await live.locator('.response-col_status').textContent()).toContain('200');
    const shown = await live.locator('.response-col_description pre').first().textContent();
    const answer = JSON.parse(shown ?? '{}') as { access_token?: string; user?: { email?: string } };
    expect(answer.user?.email).toBe(tenant.user.email);

    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/enterprises',
      headers: apiHeaders('v2', answer.access_token ?? ''),
    });
    expect(res.statusCode).toBe(200);
  });

  it('authorises once with the token and the enterprise header, then calls a list with both', async () => {
    const token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    await page.locator('.topbar select').selectOption({ label: 'v2' });
    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.waitFor();
    // One form per security scheme of the document: the bearer token and the enterprise header.
    const forms = dialog.locator('.auth-container');
    expect(await forms.count()).toBe(2);
    const bearer = forms.filter({ hasText: 'bearer' });
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    const enterprise = forms.filter({ hasText: 'X-Enterprise-Id' });
    await enterprise.locator('input').fill(tenant.enterpriseId);
    await enterprise.locator('button.authorize').click();
    await dialog.locator('button.btn-done').first().click();

    const sent: Record<string, string>[] = [];
    const listen = (request: { url(): string; headers(): Record<string, string> }) => {
      if (request.url().startsWith(`${base}/api/v2/users`)) sent.push(request.headers());
    };
    page.on('request', listen);
    const list = page.locator('#operations-Users-listUsers');
    await list.locator('.opblock-summary').click();
    await list.locator('button.try-out__btn').click();
    // No header field to fill in the form: Authorize holds it.
    expect(await list.locator('input[placeholder="X-Enterprise-Id"]').count()).toBe(0);
    await list.locator('button.execute').click();
    const live = list.locator('.live-responses-table tbody tr.response');
    await live.waitFor();
    page.off('request', listen);

    expect(await live.locator('.response-col_status').textContent()).toContain('200');
    const shown = await live.locator('.response-col_description pre').first().textContent();
    const answer = JSON.parse(shown ?? '{}') as { data?: { email?: string }[] };
    expect(answer.data?.map((u) => u.email)).toEqual([tenant.user.email]);
    expect(sent).toEqual([
      expect.objectContaining({ authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId }),
    ]);
  });

  it('called nothing but this service', () => {
    expect(elsewhere).toEqual([]);
  });
});
