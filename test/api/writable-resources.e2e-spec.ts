import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { selectRows } from '../../src/database/sql.js';
import { importReferencesOf } from '../../src/cli/import/import-references.js';
import { writableAtAll } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { apiSuite } from '../helpers/api-suite.js';
import { apiHeaders, loginToken, type Tenant } from '../helpers/fixtures.js';
import { twoTenants } from '../helpers/two-tenants.js';
import { orderRanks } from '../../src/database/column-order-checks.js';
import { snakeKey } from '../../src/common/casing/snake-key.js';
import { schemaProperties, type JsonSchema, type WriteTarget } from '../helpers/fuzz-arbitraries.js';
import { writeTargets } from '../helpers/write-targets.js';

/**
 * What every writable resource's writes do, derived from its descriptor and the request schema its
 * document serves, so a resource made writable gets these tests without a line: a bad value of any
 * field is a validation error naming the field (never a 500), a create sent twice with one
 * `Idempotency-Key` is stored once, a record is written in the header's enterprise, and another
 * enterprise's record is refused.
 */
/** Both tenants of the shared fixture, which has records of every resource in each enterprise (references to them). */
const { doc, own, foreign } = twoTenants();
const tenant: Tenant = {
  enterpriseId: own.enterpriseId,
  otherEnterpriseId: foreign.enterpriseId,
  user: own.user,
  outsider: foreign.user,
};

describe('every writable resource, in every version it writes in', () => {
  const suite = apiSuite({ fixture: { doc, tenant } });
  let targets: WriteTarget[];

  beforeAll(async () => {
    targets = await writeTargets(suite.t.app);
  });

  /**
   * A value the property's schema takes, the same every time: a reference names the enterprise's
   * record of its section, and a date-time an order CHECK puts after another is an hour per rank later.
   */
  function validValue(target: WriteTarget, name: string, property: JsonSchema, enterprise: 'own' | 'foreign'): unknown {
    const section = target.references[name];
    if (section !== undefined) return (enterprise === 'own' ? own : foreign).ids[section];
    if (Array.isArray(property.enum)) return property.enum.find((value) => value !== null);
    if (property.format === 'email') return 'jane@example.com';
    if (property.format === 'date-time') {
      const entity = TENANT_RESOURCES.find((r) => r.path === target.path)?.entity;
      const rank = entity ? (orderRanks(entity).get(snakeKey(name)) ?? 0) : 0;
      return new Date(Date.UTC(2030, 0, 2, 3 + rank, 4, 5)).toISOString();
    }
    const types = ([] as unknown[]).concat(property.type ?? 'string');
    if (types.includes('string')) return 'A value';
    if (types.includes('number') || types.includes('integer')) return 1;
    if (types.includes('boolean')) return true;
    return 'A value';
  }

  /** The fields the body must carry, with values their schema takes, for a write in the own (or the other) enterprise. */
  function validBody(target: WriteTarget, enterprise: 'own' | 'foreign' = 'own'): Record<string, unknown> {
    const { properties, required } = schemaProperties(target.input);
    return Object.fromEntries(
      [...required].map((name) => [name, validValue(target, name, properties.get(name) ?? {}, enterprise)]),
    );
  }

  /**
   * Values the field's schema refuses: text one character over its length, and (in v2) an object
   * where a scalar goes and text over its column's length. v1 keeps a value its column does not
   * take as extra input, as its body's description says, so only its documented constraints are
   * probed there.
   */
  function badValues(target: WriteTarget, name: string, property: JsonSchema): unknown[] {
    const types = ([] as unknown[]).concat(property.type ?? []);
    const values: unknown[] = [];
    if (target.version === 'v2' && !types.includes('object') && !types.includes('array'))
      values.push({ not: 'a scalar' });
    const length =
      typeof property.maxLength === 'number'
        ? property.maxLength
        : target.version === 'v2'
          ? columnLength(target.path, name)
          : undefined;
    if (length !== undefined) values.push('x'.repeat(length + 1));
    return values;
  }

  const same = (key: string): string => key.replace(/_/g, '').toLowerCase();

  /**
   * The length of the column a field is stored in (by its name in any casing), so a field whose rule
   * was left off (and with it the documented length) is still probed where the database would refuse.
   */
  function columnLength(path: string, field: string): number | undefined {
    const entity = TENANT_RESOURCES.find((r) => r.path === path)?.entity;
    const column = getMetadataArgsStorage().columns.find(
      (c) => c.target === entity && same(c.propertyName) === same(field) && c.options.type === 'varchar',
    );
    return column === undefined ? undefined : Number(column.options.length ?? 255);
  }
  const tableOf = (path: string): string => TENANT_RESOURCES.find((r) => r.path === path)?.rows.table ?? path;
  const rowCount = async (table: string): Promise<number> =>
    (await selectRows<{ n: number }>(suite.t.dataSource, `SELECT count(*)::int AS n FROM ${table}`))[0]?.n ?? 0;

  async function post(target: WriteTarget, body: unknown, headers: Record<string, string> = {}) {
    return suite.t.app.inject({
      method: 'POST',
      url: `/api/${target.version}/${target.path}`,
      headers: { ...suite.headers(target.version), 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    });
  }

  /** The id of the record an answer holds (`id` or v1's `ID`, bare or in `data`). */
  function recordId(answer: unknown): string {
    const record = (answer as { data?: unknown }).data ?? answer;
    const [, id] = Object.entries(record as Record<string, unknown>).find(([key]) => key.toLowerCase() === 'id') ?? [];
    if (typeof id !== 'string') throw new Error(`no id in ${JSON.stringify(answer)}`);
    return id;
  }

  it('has writable resources to test', () => {
    expect(targets.length).toBeGreaterThan(0);
  });

  it('answers a bad value of any field with a validation error naming that field, never a 500', async () => {
    const wrong: string[] = [];
    let tried = 0;
    for (const target of targets) {
      const { properties } = schemaProperties(target.input);
      for (const [name, property] of properties) {
        for (const bad of badValues(target, name, property)) {
          tried++;
          // The field alone carries the value: another spelling of it (v1's `Title` and `title`) is left out.
          const base = Object.entries(validBody(target)).filter(([key]) => !same(key).startsWith(same(name)));
          const res = await post(target, { ...Object.fromEntries(base), [name]: bad });
          const errors = Object.keys(res.json<{ errors?: Record<string, unknown> }>().errors ?? {});
          // Named as sent, or (a v1 pair such as `person` and `PersonName`) under the key that wins.
          if (![400, 422].includes(res.statusCode) || !errors.some((key) => same(key).startsWith(same(name)))) {
            wrong.push(
              `${target.version} POST /${target.path}, ${name} = ${JSON.stringify(bad).slice(0, 40)}: ${res.statusCode} ` +
                `${res.body.slice(0, 200)}; give the field its rule in the input class (src/writes/write-rules.ts)`,
            );
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(targets.length);
    expect(wrong).toEqual([]);
  });

  it('stores a create sent twice with one Idempotency-Key once, answering the second as the first', async () => {
    const problems: string[] = [];
    for (const target of targets) {
      const table = tableOf(target.path);
      const count = () => rowCount(table);
      const before = await count();
      const key = { 'idempotency-key': randomUUID() };
      const first = await post(target, validBody(target), key);
      const second = await post(target, validBody(target), key);
      const stored = (await count()) - before;
      if (first.statusCode !== 201 || second.body !== first.body || stored !== 1) {
        problems.push(
          `${target.version} POST /${target.path} twice with one Idempotency-Key: ${first.statusCode} then ` +
            `${second.statusCode}, ${stored} records stored; run the write through this.writes.run(write, ...) (src/writes/)`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it("refuses a reference to another enterprise's record (or to none) at its field, storing nothing", async () => {
    const tries = targets.flatMap((target) =>
      Object.entries(target.references).flatMap(([name, section]) =>
        [foreign.ids[section], randomUUID()].map((id) => ({ target, name, id })),
      ),
    );
    // Without a writable resource that refers to another record there is nothing to send: then no
    // writable entity may declare such a reference in its body either (the descriptors say so).
    if (tries.length === 0) {
      const declared = TENANT_RESOURCES.filter(writableAtAll).flatMap((r) =>
        importReferencesOf(r).map((ref) => `${r.path}.${ref.column}`),
      );
      expect(declared).toEqual([]);
    }
    const wrong: string[] = [];
    for (const { target, name, id } of tries) {
      const table = tableOf(target.path);
      const count = () => rowCount(table);
      const before = await count();
      const res = await post(target, { ...validBody(target), [name]: id });
      const errors = Object.keys(res.json<{ errors?: Record<string, unknown> }>().errors ?? {});
      if (![400, 422].includes(res.statusCode) || !errors.includes(name) || (await count()) !== before) {
        wrong.push(
          `${target.version} POST /${target.path}, ${name} of another enterprise: ${res.statusCode} ${res.body.slice(0, 160)}; ` +
            "check the reference in the header's enterprise (TableWrites does, src/writes/table-writes.ts)",
        );
      }
    }
    expect(wrong).toEqual([]);
  });

  it("writes a record in the header's enterprise, and refuses an update of another enterprise's record", async () => {
    const outsider = await loginToken(suite.t.app, suite.tenant.outsider.email, suite.tenant.outsider.password);
    for (const target of targets) {
      const mine = await post(target, validBody(target));
      const [stored] = await selectRows<{ enterprise_id: string }>(
        suite.t.dataSource,
        `SELECT enterprise_id FROM ${tableOf(target.path)} WHERE id = $1`,
        [recordId(mine.json())],
      );
      expect(stored?.enterprise_id).toBe(suite.tenant.enterpriseId);
      const theirs = await suite.t.app.inject({
        method: 'POST',
        url: `/api/${target.version}/${target.path}`,
        headers: {
          ...apiHeaders(target.version, outsider, suite.tenant.otherEnterpriseId),
          'content-type': 'application/json',
        },
        payload: JSON.stringify(validBody(target, 'foreign')),
      });
      const id = recordId(theirs.json());
      const update = await suite.t.app.inject({
        method: 'PUT',
        url: `/api/${target.version}/${target.path}/${id}`,
        headers: { ...suite.headers(target.version), 'content-type': 'application/json' },
        payload: JSON.stringify(validBody(target)),
      });
      expect(
        update.statusCode === 403
          ? []
          : [
              `${target.version} PUT /${target.path}/{another enterprise's record}: ${update.statusCode}; ` +
                'declare the route with @UpdateRoute (its access check answers 403) (src/writes/write-routes.ts)',
            ],
      ).toEqual([]);
      const [unchanged] = await selectRows<{ enterprise_id: string }>(
        suite.t.dataSource,
        `SELECT enterprise_id FROM ${tableOf(target.path)} WHERE id = $1`,
        [id],
      );
      expect(unchanged?.enterprise_id).toBe(suite.tenant.otherEnterpriseId);
    }
  });
});
