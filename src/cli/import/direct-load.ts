import type { FieldCipher } from '../../crypto/field-cipher.js';
import { NO_ENTERPRISE } from '../../database/no-enterprise.js';
import { selectRows, type SqlExecutor } from '../../database/sql.js';
import type { ImportSection } from './import-schema.js';
import { DIRECT_TABLES, directName, type DirectTable, type StageName } from './import-tables.js';
import { PLAIN, type RowSink } from './record-rows.js';
import type { Stager } from './staging.js';

/** The file cannot be loaded straight into its tables after all: it is read again without. */
export class DirectRefused extends Error {}

const isDirectTable = (name: StageName): name is DirectTable => (DIRECT_TABLES as readonly string[]).includes(name);

/**
 * Loads the people of a file that creates them (and their nested rows) straight into their
 * tables, as a hand-written loader would, instead of staging them first: the database writes
 * them while the rest of the file is read, and does not copy them twice.
 *
 * Whether a file creates its people is decided at its first person: if that person is not
 * stored, the people go straight in (after the enterprises staged before them, which they may
 * belong to); the people's batches are checked as they go (none of their ids stored) and the
 * database enforces the rest as it loads them (unique ids, the enterprise and owner references).
 * The other sections are staged, checked and written at the end as always.
 *
 * What is loaded straight in has not passed the checks that list problems with their paths. So
 * when such an import turns out to have a problem the database found (a refused row, a person
 * already stored, any problem of the checks), it is rolled back and read again without loading
 * straight in, which finds and lists the problems exactly as for any other file.
 */
export class DirectLoad {
  private mode: 'undecided' | 'on' | 'closed' | 'off';
  /** The transaction's start, for the timestamps a record leaves out (what `now()` gives the staged rows). */
  private now = '';
  /** Ids of the people and their rows pushed since the last batch was handed to the connection. */
  private ids = new Map<DirectTable, string[]>();
  /** Rows become COPY text as they come, like staged nested rows: no batch is held as objects. */
  private readonly direct: RowSink = {
    push: (name, row) => {
      if (!isDirectTable(name)) return this.stager.push(name, row);
      if (row.created_at === null) row.created_at = this.now;
      if (row.updated_at === null) row.updated_at = this.now;
      // Stored as the writes of staged rows store it; a file naming the reserved enterprise itself
      // is read again, staged, where the checks report it at its field.
      if (row.enterprise_id === NO_ENTERPRISE) throw new DirectRefused('the reserved enterprise is named');
      row.enterprise_id ??= NO_ENTERPRISE;
      if (name === 'people') {
        const firstName = row[PLAIN.firstName] as string | null;
        row.first_name_encrypted = firstName === null ? null : this.cipher.encrypt(firstName);
      }
      const ids = this.ids.get(name);
      if (ids === undefined) this.ids.set(name, [row.id as string]);
      else ids.push(row.id as string);
      this.stager.push(directName(name), row);
    },
  };

  constructor(
    private readonly db: SqlExecutor,
    private readonly stager: Stager,
    private readonly cipher: FieldCipher,
    private readonly enterprisesAhead: () => Promise<void>,
    enabled: boolean,
  ) {
    this.mode = enabled ? 'undecided' : 'off';
    stager.beforeDirectBatch = () => this.checkBatch();
  }

  /**
   * Before a batch of people goes in: none of them, and none of their rows, may be stored (a
   * re-import, or an id repeated). The keys include the enterprise, so an id stored in another
   * enterprise is found here, not by the key; within one enterprise the key refuses it as well.
   */
  private checkBatch(): (() => Promise<void>) | undefined {
    const batch = [...this.ids];
    if (batch.length === 0) return undefined;
    this.ids = new Map();
    return async () => {
      const [found] = await selectRows<{ stored: boolean }>(
        this.db,
        `SELECT ${batch.map(([table], i) => `EXISTS (SELECT 1 FROM ${table} WHERE id = ANY($${i + 1}::uuid[]))`).join(' OR ')} AS stored`,
        batch.map(([, ids]) => ids),
      );
      if (found?.stored !== false) throw new DirectRefused('a person of the file, or a row of one, is already stored');
    };
  }

  /** Rows were loaded straight in: the database may hold rows no check has seen. */
  get started(): boolean {
    return this.mode === 'on' || this.mode === 'closed';
  }

  /** Rows of a table loaded straight in. */
  loaded(table: DirectTable): number {
    return this.stager.rowCount(directName(table));
  }

  /** Where the rows of a valid record go (`id`: its id), decided before it is staged. */
  async sinkFor(section: ImportSection, id: string): Promise<RowSink> {
    if (section !== 'people') {
      if (this.mode === 'on' && section !== 'enterprises') this.mode = 'closed';
      return this.stager;
    }
    if (this.mode === 'undecided') await this.decide(id);
    // People after other sections that followed people loaded straight in (a second `people` key):
    // staged, one of them could update a person loaded straight in without a check seeing it.
    if (this.mode === 'closed') throw new DirectRefused('people after other sections');
    return this.mode === 'on' ? this.direct : this.stager;
  }

  private async decide(firstId: string): Promise<void> {
    const [first] = await this.stager.runNext(() =>
      selectRows<{ stored: boolean; now: string }>(
        this.db,
        `SELECT EXISTS (SELECT 1 FROM people WHERE id = $1) AS stored, now()::text AS now`,
        [firstId],
      ),
    );
    if (first === undefined || first.stored) {
      this.mode = 'off';
      return;
    }
    this.now = first.now;
    await this.stager.flushBuffered();
    await this.stager.after(this.enterprisesAhead);
    this.mode = 'on';
  }
}
