import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { MIXED_COLUMNS, type LeadChanges, type LeadColumns } from './lead-fields.js';
import { LEAD_RECORD_COLUMNS, presentLead, type LeadRecord, type LeadRow } from './lead.presenter.js';

const MIXED = new Set<string>(MIXED_COLUMNS);

/** Column names come from the fixed lists of lead-fields.ts, never from a request. */
function columnParameters(
  columns: LeadColumns,
  firstIndex: number,
): { names: string[]; values: unknown[]; placeholders: string[] } {
  const names: string[] = [];
  const values: unknown[] = [];
  const placeholders: string[] = [];
  for (const [name, value] of Object.entries(columns)) {
    names.push(name);
    const index = firstIndex + values.length;
    if (MIXED.has(name)) {
      // jsonb keeps the scalar's JSON type; null is SQL NULL like every absent value.
      values.push(value === null ? null : JSON.stringify(value));
      placeholders.push(`$${index}::jsonb`);
    } else {
      values.push(value);
      placeholders.push(`$${index}`);
    }
  }
  return { names, values, placeholders };
}

@Injectable()
export class LeadsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * A new lead of the header's enterprise; whatever the body said, enterprise_id is that. `db`:
   * the transaction of an idempotent write, else the pool.
   */
  async create(enterpriseId: string, changes: LeadChanges, db: SqlExecutor = this.dataSource): Promise<LeadRecord> {
    const { names, values, placeholders } = columnParameters(changes.columns, 4);
    const [row] = await selectRows<LeadRow>(
      db,
      `INSERT INTO leads (id, enterprise_id, extra_input${names.map((name) => `, ${name}`).join('')})
       VALUES ($1, $2, $3::jsonb${placeholders.map((placeholder) => `, ${placeholder}`).join('')})
       RETURNING ${LEAD_RECORD_COLUMNS}`,
      [randomUUID(), enterpriseId, JSON.stringify(changes.extraInput), ...values],
    );
    if (!row) throw new Error('INSERT ... RETURNING gave no row');
    return presentLead(row);
  }

  /**
   * Writes the columns the body gave; the others stay. extra_input keeps what it held
   * under keys this body did not send, and takes this body's extra keys.
   */
  async update(
    id: string,
    enterpriseId: string,
    changes: LeadChanges,
    db: SqlExecutor = this.dataSource,
  ): Promise<LeadRecord> {
    const { names, values, placeholders } = columnParameters(changes.columns, 5);
    const assignments = names.map((name, i) => `${name} = ${placeholders[i] ?? ''}, `).join('');
    // TypeORM answers an UPDATE with [rows, affected count].
    const [[row]] = (await db.query(
      `UPDATE leads SET ${assignments}
              extra_input = (extra_input - $3::text[]) || $4::jsonb,
              updated_at = now()
        WHERE id = $1 AND enterprise_id = $2
       RETURNING ${LEAD_RECORD_COLUMNS}`,
      [id, enterpriseId, changes.sentKeys, JSON.stringify(changes.extraInput), ...values],
    )) as [LeadRow[], number];
    if (!row) throw new RecordNotFoundException('Lead', id);
    return presentLead(row);
  }
}
