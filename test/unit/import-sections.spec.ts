import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Check, Column, Entity, ForeignKey, PrimaryGeneratedColumn } from 'typeorm';
import { Person } from '../../src/people/entities/person.entity.js';
import { z } from 'zod';
import { entitySection } from '../../src/cli/import/entity-sections.js';
import { IMPORT_SECTIONS, SECTION_RECORDS } from '../../src/cli/import/import-schema.js';
import { APPLICATIONS } from '../../src/applications/applications.resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { resourcesPage } from '../../src/docs/resources-page.js';
import { DEMO_ENTERPRISE_ID, demoDocument, sampledSections } from '../../src/demo/demo-document.js';

const FORMAT = readFileSync(resolve(import.meta.dirname, '../../docs/import-format.md'), 'utf8');
/** The resource page, which describes the sections derived from their tables (written from them). */
const RESOURCES = resourcesPage();
const derivedSections = new Set(TENANT_RESOURCES.filter((r) => r.importSection === 'entity').map((r) => r.path));

/** The text of a document under "### `section`", up to the next heading. */
function documented(section: string, document: string): string | undefined {
  const start = document.indexOf(`### \`${section}\``);
  if (start < 0) return undefined;
  const next = document.slice(start + 1).search(/\n#{2,3} /);
  return next < 0 ? document.slice(start) : document.slice(start, start + 1 + next);
}

function fieldsOf(section: string): string[] {
  const record = SECTION_RECORDS[section];
  let inner: z.ZodType | undefined = record;
  while (inner instanceof z.ZodPipe) inner = inner.in as z.ZodType;
  if (!(inner instanceof z.ZodObject)) throw new Error(`${section} is not an object schema`);
  return Object.keys(inner.shape);
}

@Entity('gadgets')
class Gadget {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column('jsonb') settings!: unknown;
}

@Entity('chores')
@Check('chores_status_check', `status IN ('open', 'done')`)
class Chore {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column({ type: 'varchar', length: 255, default: 'open' }) status!: string;
}

@Entity('visits')
@Check('visits_ends_after_start', '"ends_at" > "starts_at"')
@Check('visits_follow_up_check', 'follow_up_on IS NULL OR follow_up_on >= "ends_on"')
@ForeignKey(() => Person, ['enterpriseId', 'personId'], ['enterpriseId', 'id'])
class Visit {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column('uuid') personId!: string;
  @Column('timestamptz') startsAt!: Date;
  @Column('timestamptz') endsAt!: Date;
  @Column('date') endsOn!: string;
  @Column('date', { nullable: true }) followUpOn!: string | null;
}

@Entity('shifts')
@Check('shifts_hours_check', 'hours * 2 <= breaks + 16')
class Shift {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column('integer') hours!: number;
  @Column('integer') breaks!: number;
}

const like = (path: string, entity: abstract new () => unknown) => ({
  ...APPLICATIONS,
  path,
  entity,
  rows: { ...APPLICATIONS.rows, table: path },
});

describe('import sections', () => {
  it('exist for every tenant resource', () => {
    expect(
      TENANT_RESOURCES.filter((resource) => !IMPORT_SECTIONS.includes(resource.path)).map(
        (resource) =>
          `${resource.path} has no import section: give its descriptor importSection: 'entity' ` +
          '(or write the section by hand in src/cli/import)',
      ),
    ).toEqual([]);
  });

  it('are documented in docs/import-format.md (or, derived ones, on the resource page), every field of every section', () => {
    expect(FORMAT).toContain('`created_at` and `updated_at` are optional on every record');
    for (const section of IMPORT_SECTIONS) {
      const text = documented(section, derivedSections.has(section) ? RESOURCES : FORMAT);
      expect({ section, documented: text !== undefined }).toEqual({ section, documented: true });
      const missing = fieldsOf(section).filter(
        (field) => !['created_at', 'updated_at'].includes(field) && !text?.includes(`\`${field}\``),
      );
      expect({ section, missing }).toEqual({ section, missing: [] });
    }
  });

  it('derived from an entity have one field per column, named as the column', () => {
    expect(fieldsOf('applications')).toEqual([
      'id',
      'enterprise_id',
      'settlement_date_actual',
      'contract_number',
      'source_of_business',
      'crm_deal_id',
      'created_at',
      'updated_at',
    ]);
  });

  it('refuse an entity with a column they cannot validate, saying where to write the section', () => {
    const gadgets = {
      ...APPLICATIONS,
      path: 'gadgets',
      entity: Gadget,
      rows: { ...APPLICATIONS.rows, table: 'gadgets' },
    };
    expect(() => entitySection(gadgets)).toThrow(
      'gadgets.settings: a jsonb column cannot be derived into an import section; write the section by hand in src/cli/import',
    );
  });

  it("take a column's fixed values from the entity's CHECK, and its default when it is left out", () => {
    const chores = { ...APPLICATIONS, path: 'chores', entity: Chore, rows: { ...APPLICATIONS.rows, table: 'chores' } };
    const { record } = entitySection(chores);
    const base = { id: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a11', enterprise_id: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a12' };
    expect(record.parse(base)).toMatchObject({ status: 'open' });
    expect(record.parse({ ...base, status: 'done' })).toMatchObject({ status: 'done' });
    expect(record.safeParse({ ...base, status: 'closed' }).success).toBe(false);
  });

  it('give the demo data records of a derived section it has none of by hand, in the demo enterprise', () => {
    const { applications: _handWritten, ...rest } = demoDocument();
    const sampled = sampledSections(rest);
    const section = entitySection(APPLICATIONS);
    expect(Object.keys(sampled)).toEqual(['applications']);
    expect(sampled.applications).toHaveLength(12);
    for (const record of sampled.applications ?? []) {
      expect(section.record.safeParse(record).success).toBe(true);
      expect(record).toMatchObject({
        enterprise_id: DEMO_ENTERPRISE_ID,
        contract_number: expect.stringMatching(/^Contract number \d+$/),
      });
    }
    expect(sampledSections(demoDocument())).toEqual({});
  });

  it('derived from an entity give sample records (demo data, test fixture) that the section accepts', () => {
    const values = {
      enterpriseId: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a12',
      recordOf: () => undefined,
      text: (column: string, n: number) => `${column} ${n}`,
    };
    // A reference is given a record (a required one left null would be refused, rightly).
    const withRecords = { ...values, recordOf: () => '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a13' };
    const refused: string[] = [];
    for (const resource of TENANT_RESOURCES.filter((r) => r.importSection === 'entity')) {
      const section = entitySection(resource);
      for (const n of [0, 1, 2]) {
        const sample = { id: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a11', ...section.sample(n, withRecords) };
        const parsed = section.record.safeParse(sample);
        for (const issue of parsed.success ? [] : parsed.error.issues)
          refused.push(`${section.name} sample ${n}, ${issue.path.join('.')}: ${issue.message}`);
      }
    }
    expect(refused).toEqual([]);
    const chores = { ...APPLICATIONS, path: 'chores', entity: Chore, rows: { ...APPLICATIONS.rows, table: 'chores' } };
    const samples = [0, 1, 2].map((n) => entitySection(chores).sample(n, values));
    expect(samples).toEqual(
      [0, 1, 0].map((i) => ({ enterprise_id: values.enterpriseId, status: ['open', 'done'][i] })),
    );
    const sampled = entitySection(APPLICATIONS).sample(1, { ...values, recordOf: () => 'unused' });
    expect(sampled).toEqual({
      enterprise_id: values.enterpriseId,
      settlement_date_actual: '2025-03-02',
      contract_number: 'contract_number 1',
      source_of_business: 'source_of_business 1',
      crm_deal_id: 'crm_deal_id 1',
    });
  });

  describe('of a table with CHECKs across columns and a required reference', () => {
    const visits = entitySection(like('visits', Visit));
    const values = {
      enterpriseId: '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a12',
      recordOf: (section: string) => (section === 'people' ? '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a13' : undefined),
      text: (column: string, n: number) => `${column} ${n}`,
    };
    const id = '6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a11';

    it('give sample records that keep every order of two columns, with the reference filled', () => {
      for (const n of [0, 1, 2]) {
        const sample: Record<string, unknown> = { id, ...visits.sample(n, values) };
        expect(visits.record.safeParse(sample).success).toBe(true);
        expect(Date.parse(String(sample.ends_at))).toBeGreaterThan(Date.parse(String(sample.starts_at)));
        expect(sample.person_id).toBe('6f1c2f9e-8d4b-4c44-9a52-0b0d5f1e2a13');
      }
    });

    it('refuse a record that breaks an order, at the later field, naming the CHECK', () => {
      const base: Record<string, unknown> = { id, ...visits.sample(0, values) };
      const parsed = visits.record.safeParse({ ...base, ends_at: base.starts_at, follow_up_on: '2020-01-01' });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).sort()).toEqual([
        'ends_at: must be after starts_at (visits_ends_after_start)',
        'follow_up_on: must be on or after ends_on (visits_follow_up_check)',
      ]);
      expect(visits.record.safeParse({ ...base, follow_up_on: base.ends_on }).success).toBe(true);
    });

    it('name a required reference the sample records cannot fill, and the section it needs', () => {
      expect(() => visits.sample(0, { ...values, recordOf: () => undefined })).toThrow(
        'visits.person_id is a required reference to people: the sample records need a record of people in the same enterprise',
      );
    });

    it('document each field with its type, reference and order', () => {
      expect(visits.fields.map((field) => [field.name, field.required, field.reference, field.after])).toEqual([
        ['enterprise_id', true, 'enterprises', []],
        ['person_id', true, 'people', []],
        ['starts_at', true, undefined, []],
        ['ends_at', true, undefined, ['starts_at']],
        ['ends_on', true, undefined, []],
        ['follow_up_on', false, undefined, ['ends_on (or equal)']],
      ]);
    });

    it("ask the descriptor's validSample for a CHECK they cannot read, and use it", () => {
      const shifts = like('shifts', Shift);
      expect(() => entitySection(shifts).sample(0, values)).toThrow(
        'shifts: sample records cannot satisfy the CHECK shifts_hours_check (hours * 2 <= breaks + 16) by themselves; ' +
          'give the descriptor validSample(record, n), which returns the derived record made valid',
      );
      const valid = entitySection({ ...shifts, validSample: (record) => ({ ...record, hours: 8, breaks: 0 }) });
      expect(valid.sample(3, values)).toEqual({ enterprise_id: values.enterpriseId, hours: 8, breaks: 0 });
    });
  });
});
