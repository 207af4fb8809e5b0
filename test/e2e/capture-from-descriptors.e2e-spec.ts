import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { changeLogTypes } from '../../src/database/change-capture.js';
import { selectRows } from '../../src/database/sql.js';
import { countForEnterprise } from '../../src/database/tenant-page.js';
import { addTenantTable, removeTenantTable } from '../../src/database/tenant-table-migration.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { importFixture } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants, type TenantRecords } from '../helpers/two-tenants.js';

/**
 * Every descriptor with a change type, at the database: an SQL insert, an update of each column
 * and a delete, written as an operator's fix would be (no API involved), each move the list's
 * version (its ETag), the record's position in the log (its ETag) and its entry in the feed.
 * Derived from TENANT_RESOURCES, so a new resource is checked without a line here; when it
 * fails, the message names the fix.
 */

const captured = TENANT_RESOURCES.flatMap((resource) =>
  resource.changeType !== undefined && resource.rows.table !== undefined
    ? [{ path: resource.path, table: resource.rows.table, type: resource.changeType }]
    : [],
);

interface Column {
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  character_maximum_length: number | null;
  /** The values a CHECK (`status IN (...)`) allows, if one fixes them. */
  allowed?: string[];
  /** Part of a unique index besides the primary key: a copy needs a value of its own. */
  unique?: boolean;
  /** The table a foreign key over (enterprise_id, this column) points at: another of its records is a change. */
  references?: string;
}

/** `((status)::text = ANY ((ARRAY['open'::character varying, ...])::text[]))`, as PostgreSQL prints an IN list. */
const FIXED_VALUES = /\(+(\w+)\)?(?:::[\w ]+)?\s*=\s*ANY\s*\(+ARRAY\[(.*?)\]/;

async function columnFacts(db: DataSource, table: string): Promise<Column[]> {
  const columns = await selectRows<Column>(
    db,
    // Generated columns (a record's stored JSON) are PostgreSQL's to write, never a statement's.
    `SELECT column_name, data_type, is_nullable, character_maximum_length FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    [table],
  );
  const checks = await selectRows<{ def: string }>(
    db,
    `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c'`,
    [table],
  );
  const unique = await selectRows<{ name: string }>(
    db,
    `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisunique AND NOT i.indisprimary`,
    [table],
  );
  const references = await selectRows<{ name: string; target: string }>(
    db,
    `SELECT a.attname AS name, c.confrelid::regclass::text AS target FROM pg_constraint c
       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
      WHERE c.conrelid = $1::regclass AND c.contype = 'f' AND a.attname <> 'enterprise_id'`,
    [table],
  );
  for (const column of columns) {
    column.unique = unique.some((u) => u.name === column.column_name);
    column.references = references.find((r) => r.name === column.column_name)?.target;
    for (const { def } of checks) {
      const match = FIXED_VALUES.exec(def);
      if (match?.[1] === column.column_name && match[2] !== undefined) {
        const values = [...match[2].matchAll(/'((?:[^']|'')*)'/g)].map((value) => value[1] ?? '');
        // Text values only: a flag's `IN (0, 1)` is changed by its type's candidate.
        if (values.length > 0) column.allowed = values;
      }
    }
  }
  return columns;
}

/**
 * New values to try for a column, in order: typed changes first (up, then down, so a column a
 * CHECK orders after or before another finds one), another record of the table a reference points
 * at, another row's value, then null.
 */
function candidates(table: string, column: Column): string[] {
  const c = column.column_name;
  const down: Record<string, string> = {
    integer: `coalesce(${c}, 0) - 1`,
    bigint: `coalesce(${c}, 0) - 1`,
    numeric: `coalesce(${c}, 0) - 1`,
    date: `coalesce(${c}, current_date) - 1`,
    'timestamp with time zone': `coalesce(${c}, now()) - interval '1 day'`,
    'timestamp without time zone': `coalesce(${c}, now()::timestamp) - interval '1 day'`,
  };
  const typed: Record<string, string> = {
    text: `'z' || coalesce(${c}, '')`,
    'character varying': `left('z' || coalesce(${c}, ''), ${column.character_maximum_length ?? 1000})`,
    character: `CASE WHEN ${c} = 'z' THEN 'y' ELSE 'z' END`,
    smallint: `1 - coalesce(${c}, 0)`,
    integer: `coalesce(${c}, 0) + 1`,
    bigint: `coalesce(${c}, 0) + 1`,
    numeric: `coalesce(${c}, 0) + 1`,
    boolean: `NOT coalesce(${c}, false)`,
    date: `coalesce(${c}, current_date) + 1`,
    'timestamp with time zone': `coalesce(${c}, now()) + interval '1 day'`,
    'timestamp without time zone': `coalesce(${c}, now()::timestamp) + interval '1 day'`,
    bytea: `coalesce(${c}, ''::bytea) || '\\x00'::bytea`,
    jsonb: `jsonb_build_object('changed', gen_random_uuid())`,
  };
  if (column.allowed) {
    const values = column.allowed.map((value) => `'${value}'`).join(', ');
    return [`(SELECT v FROM unnest(ARRAY[${values}]::text[]) v WHERE v IS DISTINCT FROM ${c}::text LIMIT 1)`, 'NULL'];
  }
  const other = `(SELECT o.${c} FROM ${table} o WHERE o.${c} IS DISTINCT FROM ${table}.${c} AND o.${c} IS NOT NULL LIMIT 1)`;
  const referenced = column.references
    ? [
        `(SELECT r.id FROM ${column.references} r WHERE r.enterprise_id = ${table}.enterprise_id AND r.id IS DISTINCT FROM ${table}.${c} LIMIT 1)`,
      ]
    : [];
  const typedValues = [typed[column.data_type], down[column.data_type]].filter((v): v is string => v !== undefined);
  return [...typedValues, ...referenced, other, 'NULL'];
}

describe('change capture of every resource with a change type', () => {
  let t: TestApp;
  let db: DataSource;
  let own: TenantRecords;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.dataSource;
    const fixture = twoTenants('several');
    own = fixture.own;
    await importFixture(t, fixture.doc);
  });
  afterAll(async () => {
    await t.close();
  });

  async function listVersion(table: string): Promise<bigint> {
    return BigInt((await countForEnterprise(db, table, own.enterpriseId)).version);
  }

  async function entry(type: string, id: string): Promise<{ action: string; seq: bigint } | undefined> {
    const [row] = await selectRows<{ action: string; seq: string }>(
      db,
      `SELECT action, seq::text AS seq FROM change_log WHERE enterprise_id = $1 AND record_type = $2 AND record_id = $3`,
      [own.enterpriseId, type, id],
    );
    return row && { action: row.action, seq: BigInt(row.seq) };
  }

  it("change_log accepts exactly the types of CHANGE_TYPES, which are exactly the descriptors' types", async () => {
    const inDatabase = (await changeLogTypes(db)).sort();
    const described = TENANT_RESOURCES.flatMap((resource) => (resource.changeType ? [resource.changeType] : [])).sort();
    expect({ changeTypes: [...CHANGE_TYPES].sort(), descriptors: described }).toEqual({
      changeTypes: inDatabase,
      descriptors: inDatabase,
    });
  });

  it('covers every resource with a change type but users (members, captured by change-capture)', () => {
    const left = TENANT_RESOURCES.filter((r) => r.changeType && !captured.some((c) => c.path === r.path));
    expect(left.map((r) => r.path)).toEqual(['users']);
  });

  describe.each(captured)('$path', ({ path, table, type }) => {
    const source = (): string => {
      const id = own.ids[path];
      if (!id) throw new Error(`the fixture has no ${path}`);
      return id;
    };
    let copy: string;
    let columns: Column[];
    const missingCapture = `capture its table: addTenantTable(q, '${table}', { capture: { type: '${type}' } }) in its migration`;

    /** What is wrong after a statement on the copy, each with its fix; empty when nothing is. */
    async function moved(listBefore: bigint, action: string): Promise<string[]> {
      const problems: string[] = [];
      if ((await listVersion(table)) <= listBefore) problems.push(`the list version did not move: ${missingCapture}`);
      const found = await entry(type, copy);
      if (found?.action !== action) problems.push(`no '${action}' entry in the change log: ${missingCapture}`);
      return problems;
    }

    beforeAll(async () => {
      columns = await columnFacts(db, table);
    });

    it('an SQL insert moves the list version and writes the entry', async () => {
      copy = randomUUID();
      const rest = columns.map((c) => c.column_name).filter((c) => c !== 'id');
      // A copy of the fixture's record; a column with a unique value of its own gets another one.
      const copied = rest.map((c) => {
        const column = columns.find((x) => x.column_name === c);
        return column?.unique && (column.data_type === 'text' || column.data_type === 'character varying')
          ? `CASE WHEN ${c} IS NULL THEN NULL ELSE left(${c} || '-copy', ${column.character_maximum_length ?? 1000}) END`
          : c === 'is_active'
            ? `0`
            : c;
      });
      const before = await listVersion(table);
      await db.query(
        `INSERT INTO ${table} (id, ${rest.join(', ')}) SELECT $1, ${copied.join(', ')} FROM ${table} WHERE id = $2`,
        [copy, source()],
      );
      expect(await moved(before, 'upserted')).toEqual([]);
    });

    it("an SQL update of each column moves the list version and the record's position", async () => {
      const problems: string[] = [];
      for (const column of columns.filter((c) => c.column_name !== 'id' && c.column_name !== 'enterprise_id')) {
        const c = column.column_name;
        const [list, record] = [await listVersion(table), (await entry(type, copy))?.seq ?? 0n];
        let changed = false;
        const refusals: string[] = [];
        for (const value of candidates(table, column)) {
          try {
            const updated = await selectRows<{ id: string }>(
              db,
              `WITH u AS (UPDATE ${table} SET ${c} = ${value} WHERE id = $1 AND ${c} IS DISTINCT FROM ${value} RETURNING id)
               SELECT id FROM u`,
              [copy],
            );
            if (updated.length === 1) {
              changed = true;
              break;
            }
          } catch (error) {
            // A value the column's constraints refuse: the next candidate.
            refusals.push(error instanceof Error ? error.message : String(error));
          }
        }
        if (!changed) {
          problems.push(
            refusals.length > 0
              ? `${table}.${c}: every value tried was refused (${[...new Set(refusals)].join('; ')}); if a CHECK over ` +
                  'several columns refused them, write it as an order of two columns or widen the fixture record'
              : `${table}.${c}: no value to change it to; candidates() in this test has no change for the type ${column.data_type}`,
          );
          continue;
        }
        const after = await entry(type, copy);
        if ((await listVersion(table)) <= list)
          problems.push(`${table}.${c}: an update left the list version: ${missingCapture}`);
        if (!after || after.seq <= record || after.action !== 'upserted')
          problems.push(`${table}.${c}: an update left the record's entry: ${missingCapture}`);
      }
      expect(problems).toEqual([]);
    });

    it('an SQL delete moves the list version and marks the record removed', async () => {
      const before = await listVersion(table);
      await db.query(`DELETE FROM ${table} WHERE id = $1`, [copy]);
      expect(await moved(before, 'removed')).toEqual([]);
    });
  });

  it('addTenantTable captures a new table under its type, and removeTenantTable undoes it', async () => {
    const runner = db;
    const options = { capture: { type: 'scratch_note' } } as const;
    try {
      await runner.query(`CREATE TABLE scratch_notes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        body text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now())`);
      await addTenantTable(runner, 'scratch_notes', options);
      expect(await changeLogTypes(db)).toContain('scratch_note');
      const id = randomUUID();
      await db.query(`INSERT INTO scratch_notes (id, enterprise_id, body) VALUES ($1, $2, 'a')`, [
        id,
        own.enterpriseId,
      ]);
      const before = await listVersion('scratch_notes');
      await db.query(`UPDATE scratch_notes SET body = 'b' WHERE id = $1`, [id]);
      expect(await listVersion('scratch_notes')).toBe(before + 1n);
      expect((await entry('scratch_note', id))?.action).toBe('upserted');
      await expect(db.query(`TRUNCATE scratch_notes`)).rejects.toThrow('TRUNCATE of scratch_notes is refused');

      await removeTenantTable(runner, 'scratch_notes', options);
      await runner.query(`DROP TABLE scratch_notes`);
      expect((await changeLogTypes(db)).sort()).toEqual([...CHANGE_TYPES].sort());
    } finally {
      await runner.query(`DROP TABLE IF EXISTS scratch_notes`);
    }
  });

  it("a capture without the list of an entry's type fails the write instead of moving another list", async () => {
    const runner = db;
    try {
      await runner.query(`CREATE TABLE scratch_tasks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        title text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now())`);
      await addTenantTable(runner, 'scratch_tasks', { capture: { type: 'scratch_task' } });
      // The function of a hand-copied capture that names another type than its list knows.
      const { captureFunctionSql, ownRecords } = await import('../../src/database/change-capture.js');
      await runner.query(
        captureFunctionSql({ ...ownRecords('scratch_tasks', 'scratch_task'), listOfType: { task: 'x' } }),
      );
      const id = randomUUID();
      await db.query(`INSERT INTO scratch_tasks (id, enterprise_id, title) VALUES ($1, $2, 'a')`, [
        id,
        own.enterpriseId,
      ]);
      await expect(db.query(`UPDATE scratch_tasks SET title = 'b' WHERE id = $1`, [id])).rejects.toThrow('table_name');
      await removeTenantTable(runner, 'scratch_tasks', { capture: { type: 'scratch_task' } });
    } finally {
      await runner.query(`DROP TABLE IF EXISTS scratch_tasks`);
    }
  });
});
