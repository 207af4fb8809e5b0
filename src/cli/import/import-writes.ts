import { storedEnterprise } from '../../database/no-enterprise.js';
import { selectRows, type SqlExecutor } from '../../database/sql.js';
import type { ImportSection } from './import-schema.js';
import { ENTITY_SECTIONS } from './entity-sections.js';
import {
  DIRECT_TABLES,
  ENTERPRISES,
  LEADS,
  NESTED,
  NESTED_TABLES,
  ORGANISATIONS,
  PEOPLE,
  QUOTES,
  SIGNING_DOCUMENTS,
  USERS,
  type DirectTable,
  type NestedTable,
  type OwnerSection,
  type StageName,
  type TargetTable,
} from './import-tables.js';

export interface SectionCounts {
  total: number;
  created: number;
  updated: number;
}
export type ImportCounts = Record<ImportSection, SectionCounts>;

/**
 * A staged column as it is stored: a record the file gives no enterprise (and its rows) is kept
 * under the reserved one (src/database/no-enterprise.ts), and compared as such, so importing the
 * file again changes nothing.
 */
const fromStage = (column: string): string =>
  column === 'enterprise_id' ? storedEnterprise('s.enterprise_id') : `s.${column}`;

/** Sections whose records own other rows; a change to those rows alone updates the record. */
type OwningSection = 'users' | OwnerSection;

/**
 * Writes the staged, checked rows: one set-based statement per table (an UPDATE of the rows
 * whose values differ and an INSERT of the new ones), so unchanged rows are never touched (no
 * trigger fires for them, `updated_at` stays) and the number of statements does not grow with
 * the file.
 */
export class ImportWrites {
  private readonly counts = {} as ImportCounts;
  /** Rows changed per target table, for ANALYZE after a large import. */
  readonly changedRows = new Map<string, number>();
  private prepared = false;
  /** Writing ahead of the end (while the file is read): progress keeps saying `reading`. */
  private ahead = false;

  constructor(
    private readonly db: SqlExecutor,
    private readonly staged: (name: StageName) => boolean,
    private readonly stagedCount: (name: StageName) => number,
    /** True when at least one staged record of the section was already in the database. */
    private readonly anyExisted: (section: OwningSection) => boolean,
    private readonly onPhase: (phase: string) => void,
    /** Rows loaded straight into a target table, not staged (`DirectLoad`): all created. */
    private readonly loadedStraightIn: (table: DirectTable) => number = () => 0,
  ) {}

  /** The bookkeeping table of changed owners, before the first write. */
  private async prepare(): Promise<void> {
    if (this.prepared) return;
    await this.db.query(`CREATE TEMP TABLE import_changes (section text, id uuid) ON COMMIT DROP`);
    this.prepared = true;
  }

  /**
   * The enterprises staged so far, ahead of the rest: people loaded straight into their table
   * need theirs. `run` upserts them again with any read later; those written here are unchanged
   * by then, so each is counted once.
   */
  async enterprisesAhead(): Promise<void> {
    await this.prepare();
    this.ahead = true;
    try {
      await this.upsert('enterprises', ENTERPRISES);
    } finally {
      this.ahead = false;
    }
  }

  async run(): Promise<ImportCounts> {
    await this.prepare();
    await this.upsert('enterprises', ENTERPRISES);
    if (this.staged('users')) {
      // A password change ends every session of the user.
      await this.db.query(
        `DELETE FROM access_tokens a USING import_users s JOIN users u ON u.id = s.id
          WHERE a.user_id = s.id AND u.password_hash IS DISTINCT FROM s.password_hash`,
      );
    }
    await this.upsert('users', USERS, 'users');
    if (this.staged('users')) await this.memberships();
    await this.upsert('people', PEOPLE, 'people');
    await this.upsert('organisations', ORGANISATIONS, 'organisations');
    for (const table of NESTED_TABLES) await this.nested(table);
    for (const section of ['users', 'people', 'organisations'] as const) await this.countOwnerUpdates(section);
    for (const section of ENTITY_SECTIONS) await this.upsert(section.name, section.target);
    await this.upsert('quotes', QUOTES);
    await this.upsert('leads', LEADS);
    await this.upsert('signing_documents', SIGNING_DOCUMENTS);
    this.countLoadedStraightIn();
    return this.counts;
  }

  private countLoadedStraightIn(): void {
    for (const table of DIRECT_TABLES) this.note(table, this.loadedStraightIn(table));
    const people = this.counts.people;
    if (people === undefined) return;
    people.total += this.loadedStraightIn('people');
    people.created += this.loadedStraightIn('people');
  }

  private note(table: string, rows: number): void {
    this.changedRows.set(table, (this.changedRows.get(table) ?? 0) + rows);
  }

  private async upsert(section: ImportSection, target: TargetTable, owning?: OwningSection): Promise<void> {
    const counts: SectionCounts = (this.counts[section] ??= { total: 0, created: 0, updated: 0 });
    counts.total = this.stagedCount(section);
    if (!this.staged(section)) return;
    if (!this.ahead) this.onPhase(`writing ${section}`);
    const outcome =
      owning !== undefined && !this.anyExisted(owning)
        ? await this.insertRows(section, target)
        : await this.upsertRows(`import_${section}`, target, owning ?? null);
    counts.created += outcome.created;
    counts.updated += outcome.updated;
    this.note(target.table, outcome.created + outcome.updated);
  }

  /**
   * The rows of a section none of whose records was in the database: all new, so they are
   * inserted with no comparison and no look-up of the target (a record of the file that did
   * exist after all would fail the primary key, and the import with it). Every staged row is
   * inserted or the statement fails, so the count is the staged one: no RETURNING, whose rows
   * PostgreSQL would keep (and spill to disk) only to be counted.
   */
  private async insertRows(stage: StageName, target: TargetTable): Promise<{ created: number; updated: number }> {
    const names = target.columns.map((c) => c.name);
    await this.db.query(
      `INSERT INTO ${target.table} (id, ${names.join(', ')}, created_at, updated_at)
       SELECT s.id, ${names.map(fromStage).join(', ')}, COALESCE(s.created_at, now()), COALESCE(s.updated_at, now())
         FROM import_${stage} AS s`,
    );
    return { created: this.stagedCount(stage), updated: 0 };
  }

  /**
   * The UPDATE sets `created_at` and `updated_at` from the file when it gives them; otherwise it
   * keeps `created_at` and sets `updated_at` to now. `owner`: changed ids are noted, so a record
   * whose own row is unchanged but whose nested rows changed is still counted as updated.
   */
  private async upsertRows(
    stage: string,
    target: TargetTable,
    owner: OwningSection | null,
    returning = 't.id',
  ): Promise<{ created: number; updated: number }> {
    const names = target.columns.map((c) => c.name);
    const table = target.table;
    const noted =
      owner === null ? '' : `, noted AS (INSERT INTO import_changes (section, id) SELECT '${owner}', id FROM changed)`;
    const [counts] = await selectRows<{ created: number; updated: number }>(
      this.db,
      `WITH changed AS (
         UPDATE ${table} AS t
            SET ${names.map((n) => `${n} = ${fromStage(n)}`).join(', ')},
                created_at = COALESCE(s.created_at, t.created_at),
                updated_at = COALESCE(s.updated_at, now())
           FROM ${stage} AS s
          WHERE t.id = s.id
            AND ((${names.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${names.map(fromStage).join(', ')})
                 OR (s.created_at IS NOT NULL AND s.created_at IS DISTINCT FROM t.created_at)
                 OR (s.updated_at IS NOT NULL AND s.updated_at IS DISTINCT FROM t.updated_at))
         RETURNING ${returning}
       ),
       inserted AS (
         INSERT INTO ${table} (id, ${names.join(', ')}, created_at, updated_at)
         SELECT s.id, ${names.map(fromStage).join(', ')}, COALESCE(s.created_at, now()), COALESCE(s.updated_at, now())
           FROM ${stage} AS s
          WHERE NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE t.id = s.id)
         RETURNING ${returning.replaceAll('t.', '')}
       )${noted}
       SELECT (SELECT count(*) FROM changed)::int AS updated, (SELECT count(*) FROM inserted)::int AS created`,
    );
    return counts ?? { created: 0, updated: 0 };
  }

  /**
   * A user listing `enterprise_ids` is afterwards a member of exactly those of the enterprises the
   * file mentions (in its `enterprises` section or in any user's `enterprise_ids`); memberships in
   * enterprises the file does not mention are kept, so re-importing one enterprise's export never
   * takes its users out of the others.
   */
  private async memberships(): Promise<void> {
    const listed = `SELECT id FROM import_users WHERE lists_memberships`;
    const mentioned = [
      ...(this.staged('enterprises') ? ['SELECT id FROM import_enterprises'] : []),
      ...(this.staged('memberships') ? ['SELECT enterprise_id FROM import_memberships'] : []),
    ];
    if (mentioned.length === 0) return;
    const kept = this.staged('memberships')
      ? `AND NOT EXISTS (SELECT 1 FROM import_memberships k
                          WHERE k.user_id = m.user_id AND k.enterprise_id = m.enterprise_id)`
      : '';
    const added = this.staged('memberships')
      ? `INSERT INTO memberships (user_id, enterprise_id)
         SELECT DISTINCT user_id, enterprise_id FROM import_memberships
         ON CONFLICT DO NOTHING
         RETURNING user_id`
      : `SELECT NULL::uuid AS user_id WHERE false`;
    await this.db.query(
      `WITH gone AS (
         DELETE FROM memberships m
          WHERE m.user_id IN (${listed})
            AND m.enterprise_id IN (${mentioned.join(' UNION ')})
            ${kept}
         RETURNING m.user_id
       ),
       added AS (${added})
       INSERT INTO import_changes (section, id)
       SELECT DISTINCT 'users', user_id FROM (SELECT user_id FROM gone UNION ALL SELECT user_id FROM added) c`,
    );
  }

  /**
   * Nested rows of every owner that lists a collection: the listed rows are upserted and the
   * owner's other rows of that collection are deleted. An owner without the key keeps its rows.
   */
  private async nested(table: NestedTable): Promise<void> {
    const owners: [OwnerSection, string][] = [['people', 'person_id']];
    if (table !== 'financials') owners.push(['organisations', 'organisation_id']);
    const listing = owners.filter(([section]) => this.staged(section));
    if (listing.length === 0) return;
    this.onPhase(`writing ${table}`);
    // Owners that are all new have no rows to replace; and a row of theirs that was stored
    // would belong to another owner, which the checks refused: every staged row is new.
    const ownersExisted = listing.some(([section]) => this.anyExisted(section));
    for (const [section, column] of listing) {
      if (!this.anyExisted(section)) continue;
      const stagedRows = this.staged(table) ? `AND NOT EXISTS (SELECT 1 FROM import_${table} n WHERE n.id = t.id)` : '';
      const [deleted] = await selectRows<{ count: number }>(
        this.db,
        `WITH gone AS (
           DELETE FROM ${table} t USING import_${section} s
            WHERE t.${column} = s.id AND s.lists_${table} ${stagedRows}
           RETURNING t.${column} AS owner
         ),
         noted AS (INSERT INTO import_changes (section, id) SELECT DISTINCT '${section}', owner FROM gone)
         SELECT count(*)::int AS count FROM gone`,
      );
      this.note(table, deleted?.count ?? 0);
    }
    if (!this.staged(table)) return;
    if (!ownersExisted) {
      const counts = await this.insertRows(table, NESTED[table]);
      this.note(table, counts.created);
      return;
    }
    const ownerColumns = table === 'financials' ? 't.person_id' : 't.person_id, t.organisation_id';
    const [counts] = await selectRows<{ created: number; updated: number }>(
      this.db,
      this.nestedUpsert(table, ownerColumns),
    );
    this.note(table, (counts?.created ?? 0) + (counts?.updated ?? 0));
  }

  private nestedUpsert(table: NestedTable, ownerColumns: string): string {
    const target = NESTED[table];
    const names = target.columns.map((c) => c.name);
    // Rows added to an owner that existed are a change of that owner; for owners created by this
    // import they are not, and when no owner existed the bookkeeping is skipped.
    const addedTo = (section: OwnerSection, column: string): string =>
      this.anyExisted(section)
        ? `UNION ALL SELECT '${section}', ${column} FROM inserted WHERE ${column} IS NOT NULL`
        : '';
    const organisations =
      table === 'financials'
        ? ''
        : `UNION ALL SELECT 'organisations', organisation_id FROM changed WHERE organisation_id IS NOT NULL ${addedTo('organisations', 'organisation_id')}`;
    return `WITH changed AS (
         UPDATE ${table} AS t
            SET ${names.map((n) => `${n} = ${fromStage(n)}`).join(', ')},
                created_at = COALESCE(s.created_at, t.created_at),
                updated_at = COALESCE(s.updated_at, now())
           FROM import_${table} AS s
          WHERE t.id = s.id
            AND ((${names.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${names.map(fromStage).join(', ')})
                 OR (s.created_at IS NOT NULL AND s.created_at IS DISTINCT FROM t.created_at)
                 OR (s.updated_at IS NOT NULL AND s.updated_at IS DISTINCT FROM t.updated_at))
         RETURNING ${ownerColumns}
       ),
       inserted AS (
         INSERT INTO ${table} (id, ${names.join(', ')}, created_at, updated_at)
         SELECT s.id, ${names.map(fromStage).join(', ')}, COALESCE(s.created_at, now()), COALESCE(s.updated_at, now())
           FROM import_${table} AS s
          WHERE NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE t.id = s.id)
         RETURNING ${ownerColumns.replaceAll('t.', '')}
       ),
       noted AS (
         INSERT INTO import_changes (section, id)
         SELECT DISTINCT section, id FROM (
           SELECT 'people' AS section, person_id AS id FROM changed WHERE person_id IS NOT NULL
           ${addedTo('people', 'person_id')}
           ${organisations}
         ) c
       )
       SELECT (SELECT count(*) FROM changed)::int AS updated, (SELECT count(*) FROM inserted)::int AS created`;
  }

  /** Updated = records whose own row or whose nested rows changed, among those that existed. */
  private async countOwnerUpdates(section: OwningSection): Promise<void> {
    const counts = this.counts[section];
    if (!counts || !this.staged(section)) return;
    const [row] = await selectRows<{ updated: number }>(
      this.db,
      `SELECT count(*)::int AS updated FROM import_${section} s
        WHERE s.existed AND EXISTS (SELECT 1 FROM import_changes c WHERE c.section = '${section}' AND c.id = s.id)`,
    );
    counts.updated = row?.updated ?? 0;
  }
}
