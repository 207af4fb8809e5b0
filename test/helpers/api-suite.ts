import { afterAll, beforeAll } from '@jest/globals';
import { apiHeaders, importFixture, loginToken, tenantDocument, type ImportDocument, type Tenant } from './fixtures.js';
import { createTestApp, type TestApp } from './test-app.js';

export interface ApiSuiteOptions {
  /** Environment variables of the test app (on top of the test configuration). */
  readonly env?: Record<string, string>;
  /**
   * The suite's own records, imported with the tenant's enterprises and users in one document:
   * arrays of the same name are appended to the tenant's.
   */
  readonly records?: (tenant: Tenant) => ImportDocument;
  /**
   * A tenant document made beforehand (`tenantDocument()`), for suites whose records are built
   * at module level from the tenant's ids; a fresh one otherwise.
   */
  readonly fixture?: { readonly doc: ImportDocument; readonly tenant: Tenant };
  /** Log the tenant's user in (default); a suite about logging in says `false`. */
  readonly login?: boolean;
}

/** What a suite's tests use, ready once the suite's `beforeAll` has run. */
export interface ApiSuite {
  readonly t: TestApp;
  readonly tenant: Tenant;
  /** The tenant's user's bearer token (unless `login: false`). */
  readonly token: string;
  /** Headers of an authenticated call as the tenant's user, in the tenant's enterprise unless told. */
  headers(version: 'v1' | 'v2', enterpriseId?: string): Record<string, string>;
}

function merged(base: ImportDocument, extra: ImportDocument): ImportDocument {
  const doc: ImportDocument = { ...base };
  for (const [section, rows] of Object.entries(extra)) doc[section] = [...(doc[section] ?? []), ...rows];
  return doc;
}

/**
 * The set-up every API suite shares, registered as the calling `describe`'s `beforeAll` and
 * `afterAll`: an application on a database of the file's own, a tenant (two enterprises, a user
 * in the first, an outsider in the second) with the suite's records, imported the way operators
 * import, and the user's token. Read the fields inside tests or hooks, not at collection time.
 */
export function apiSuite(options: ApiSuiteOptions = {}): ApiSuite {
  const { doc, tenant } = options.fixture ?? tenantDocument();
  let app: TestApp | undefined;
  let token: string | undefined;
  beforeAll(async () => {
    app = await createTestApp(options.env);
    await importFixture(app, options.records ? merged(doc, options.records(tenant)) : doc);
    if (options.login !== false) token = await loginToken(app.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await app?.close();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`apiSuite: ${what} is ready only inside tests and hooks`);
    return value;
  };
  return {
    get t() {
      return ready(app, 'the app');
    },
    tenant,
    get token() {
      return ready(token, 'the token (login: false?)');
    },
    headers(version, enterpriseId = tenant.enterpriseId) {
      return apiHeaders(version, ready(token, 'the token (login: false?)'), enterpriseId);
    },
  };
}
