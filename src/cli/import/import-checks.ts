import { selectRows, type SqlExecutor } from '../../database/sql.js';
import { NO_ENTERPRISE, realEnterprise } from '../../database/no-enterprise.js';
import { IMPORT_SECTIONS } from './import-schema.js';
import { NESTED_TABLES, stageOf, STAGES, type StageName } from './import-tables.js';
import type { ProblemList } from './problem-list.js';
import { TENANT_RESOURCES } from '../../resources/tenant-resources.js';
import { importReferencesOf, type ImportReference } from './import-references.js';

function stageName(section: string): StageName {
  stageOf(section);
  return section;
}

/** Sections of tenant tables, in the file's order: each row's enterprise_id must resolve. */
const TENANT_SECTIONS = Object.keys(STAGES).filter((section) =>
  TENANT_RESOURCES.some((resource) => resource.rows.table === section),
);

/** The other references each tenant section declares. */
const REFERENCES = TENANT_RESOURCES.flatMap((resource) =>
  importReferencesOf(resource).map((reference) => ({ section: stageName(resource.path), reference })),
);

/** People before organisations, then by position: the order problems are reported in. */
const OWNER_ORDER = `(CASE owner_section WHEN 'people' THEN 0 ELSE 1 END * 2147483648::bigint + owner_ord)`;

/** Ids staged more than once: a hash aggregate, so a file without duplicates sorts nothing. */
const repeated = (stage: string): string => `SELECT id FROM ${stage} GROUP BY id HAVING count(*) > 1`;

/**
 * Checks that need the whole file and the database, run in SQL over the staging tables: duplicate
 * ids, references that must resolve, unique keys held by other records, new users without a
 * password. Each check is one statement whatever the file's size; each returns the first
 * problems (by position in the file) and how many there are in all.
 */
export class ImportChecks {
  constructor(
    private readonly db: SqlExecutor,
    private readonly staged: (name: StageName) => boolean,
    private readonly problems: ProblemList,
  ) {}

  async run(): Promise<void> {
    for (const section of IMPORT_SECTIONS) {
      if (this.staged(section)) await this.duplicateIds(section);
    }
    for (const table of NESTED_TABLES) if (this.staged(table)) await this.duplicateNestedIds(table);
    if (this.staged('users')) {
      await this.check(
        `SELECT ord AS o1, 0 AS o2, 0 AS o3, 'users[' || ord || '].email' AS path,
                'duplicates users[' || first || '].email' AS message
           FROM (SELECT ord, first_value(ord) OVER (PARTITION BY lower(email) ORDER BY ord) AS first
                   FROM import_users
                  WHERE lower(email) IN (SELECT lower(email) FROM import_users GROUP BY 1 HAVING count(*) > 1)) d
          WHERE ord <> first`,
      );
    }
    if (this.staged('signing_documents')) {
      await this.check(
        `SELECT ord AS o1, 0 AS o2, 0 AS o3, 'signing_documents[' || ord || '].external_id' AS path,
                'duplicates signing_documents[' || first || '].external_id' AS message
           FROM (SELECT ord, first_value(ord) OVER (PARTITION BY provider, external_id ORDER BY ord) AS first
                   FROM import_signing_documents
                  WHERE (provider, external_id) IN (SELECT provider, external_id FROM import_signing_documents
                                                     GROUP BY 1, 2 HAVING count(*) > 1)) d
          WHERE ord <> first`,
      );
    }
    await this.enterpriseReferences();
    for (const { section, reference } of REFERENCES) {
      if (this.staged(section)) await this.reference(section, reference);
    }
    if (this.staged('users')) await this.users();
    if (this.staged('signing_documents')) {
      await this.check(
        `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, 'signing_documents[' || s.ord || '].external_id' AS path,
                'is already used by another provider ' || s.provider || ' document' AS message
           FROM import_signing_documents s
           JOIN signing_documents d ON d.provider = s.provider AND d.external_id = s.external_id AND d.id <> s.id`,
      );
    }
    for (const table of NESTED_TABLES) if (this.staged(table)) await this.nestedOwners(table);
  }

  /**
   * Adds the problems one query finds. The query returns `o1, o2, o3` (position in the file),
   * `path` and `message`; only as many rows as the list still keeps are fetched.
   */
  private async check(sql: string, parameters: unknown[] = []): Promise<void> {
    const limit = Math.max(this.problems.room(), 1);
    const rows = await selectRows<{ path: string; message: string; total: number }>(
      this.db,
      `SELECT path, message, count(*) OVER ()::int AS total FROM (${sql}) q ORDER BY o1, o2, o3
        LIMIT ${limit}`,
      parameters,
    );
    const [first] = rows;
    if (first === undefined) return;
    for (const row of rows) this.problems.add(`${row.path}: ${row.message}`);
    this.problems.addUncounted(first.total - rows.length);
  }

  private async duplicateIds(section: string): Promise<void> {
    await this.check(
      `SELECT ord AS o1, 0 AS o2, 0 AS o3, '${section}[' || ord || '].id' AS path,
              'duplicates ${section}[' || first || '].id' AS message
         FROM (SELECT ord, first_value(ord) OVER (PARTITION BY id ORDER BY ord) AS first FROM import_${section}
                WHERE id IN (${repeated(`import_${section}`)})) d
        WHERE ord <> first`,
    );
  }

  private async duplicateNestedIds(table: string): Promise<void> {
    await this.check(
      `SELECT o1, o2, 0 AS o3, path, 'duplicates ' || first AS message
         FROM (SELECT ${OWNER_ORDER} AS o1, ord AS o2, path,
                      first_value(path) OVER (PARTITION BY id ORDER BY ${OWNER_ORDER}, ord) AS first
                 FROM (SELECT *, owner_section || '[' || owner_ord || '].${table}[' || ord || '].id' AS path
                         FROM import_${table} WHERE id IN (${repeated(`import_${table}`)})) n) d
        WHERE path <> first`,
    );
  }

  /**
   * Each row's enterprise_id names an enterprise of the database or of the file. The ids no
   * enterprise has are found among the distinct ids the table names (a handful, however many
   * rows), then the rows naming them: testing each row for either enterprise was a look-up per
   * row, most of the statement's time on a large file.
   */
  private async enterpriseReferences(): Promise<void> {
    const sources: StageName[] = [...TENANT_SECTIONS, 'signing_documents'];
    const inFile = this.staged('enterprises')
      ? `AND NOT EXISTS (SELECT 1 FROM import_enterprises f WHERE f.id = w.id)`
      : '';
    const unresolved = (table: string): string =>
      `s.enterprise_id IN (SELECT w.id FROM (SELECT DISTINCT enterprise_id AS id FROM ${table}
                                         WHERE enterprise_id IS NOT NULL) w
                            WHERE NOT EXISTS (SELECT 1 FROM enterprises e WHERE e.id = w.id AND ${realEnterprise('e')})
                              ${inFile})`;
    if (this.staged('enterprises')) {
      await this.check(
        `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, 'enterprises[' || s.ord || '].id' AS path,
                'is reserved for the records of no enterprise' AS message
           FROM import_enterprises s WHERE s.id = '${NO_ENTERPRISE}'`,
      );
    }
    if (this.staged('memberships')) {
      await this.check(
        `SELECT s.user_ord AS o1, s.ord AS o2, 0 AS o3,
                'users[' || s.user_ord || '].enterprise_ids[' || s.ord || ']' AS path,
                'no enterprise has the id ' || s.enterprise_id AS message
           FROM import_memberships s WHERE ${unresolved('import_memberships')}`,
      );
    }
    for (const name of sources) {
      if (!this.staged(name)) continue;
      await this.check(
        `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, '${name}[' || s.ord || '].enterprise_id' AS path,
                'no enterprise has the id ' || s.enterprise_id AS message
           FROM import_${name} s WHERE ${unresolved(`import_${name}`)}`,
      );
    }
  }

  /**
   * Each row's reference resolves to a record of the file (which wins over a stored one with the
   * same id) or of the database, and, when the reference demands it, of the same enterprise. The
   * file's records are joined as one set (a hash join): a look-up per row in the staging table,
   * which has no index, read that table once per row: 30,000 quotes of as many applications took
   * 37.8 s where the join takes 3.2.
   */
  private async reference(section: StageName, reference: ImportReference): Promise<void> {
    const { column, section: target, noun } = reference;
    const inFile = this.staged(stageName(target));
    const fromFile = inFile
      ? `LEFT JOIN (SELECT DISTINCT ON (id) id, enterprise_id FROM import_${target} ORDER BY id, ord) f
           ON f.id = s.${column}`
      : '';
    const enterprise = inFile ? 'COALESCE(f.enterprise_id, d.enterprise_id)' : 'd.enterprise_id';
    const otherEnterprise = reference.sameEnterprise ? `OR ${enterprise} <> s.enterprise_id` : '';
    await this.check(
      `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, '${section}[' || s.ord || '].${column}' AS path,
              CASE WHEN ${enterprise} IS NULL THEN 'no ${noun} has the id ' || s.${column}
                   ELSE 'the ${noun} belongs to another enterprise' END AS message
         FROM import_${section} s
         ${fromFile}
         LEFT JOIN LATERAL (SELECT t.enterprise_id FROM ${target} t WHERE t.id = s.${column}
                              ORDER BY t.enterprise_id IS NOT DISTINCT FROM s.enterprise_id DESC LIMIT 1) d ON true
        WHERE s.${column} IS NOT NULL AND (${enterprise} IS NULL ${otherEnterprise})`,
    );
  }

  private async users(): Promise<void> {
    await this.check(
      `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, 'users[' || s.ord || '].password' AS path,
              'is required for a new user (or give password_hash)' AS message
         FROM import_users s WHERE s.password_hash IS NULL AND NOT s.existed`,
    );
    await this.check(
      `SELECT s.ord AS o1, 0 AS o2, 0 AS o3, 'users[' || s.ord || '].email' AS path,
              'is already the email of another user' AS message
         FROM import_users s JOIN users u ON lower(u.email) = lower(s.email) AND u.id <> s.id`,
    );
  }

  private async nestedOwners(table: string): Promise<void> {
    const organisation = table === 'financials' ? 'NULL::uuid' : 't.organisation_id';
    const stagedOrganisation = table === 'financials' ? 'NULL::uuid' : 'n.organisation_id';
    await this.check(
      `SELECT ${OWNER_ORDER.replaceAll('owner_', 'n.owner_')} AS o1,
              n.ord AS o2, 0 AS o3,
              n.owner_section || '[' || n.owner_ord || '].${table}[' || n.ord || '].id' AS path,
              'is the id of a row that belongs to another '
                || CASE WHEN t.person_id IS NOT NULL THEN 'person' ELSE 'organisation' END AS message
         FROM import_${table} n JOIN ${table} t ON t.id = n.id
        WHERE t.person_id IS DISTINCT FROM n.person_id OR ${organisation} IS DISTINCT FROM ${stagedOrganisation}`,
    );
  }
}
