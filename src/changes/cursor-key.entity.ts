import { Entity, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';

/**
 * The id of a key cursors have been written under (never the key): a cursor whose key id is
 * here but no longer among the service's keys was written before a rotation finished (410).
 */
@Entity('cursor_keys')
export class CursorKey {
  @PrimaryColumn('text') keyId!: string;
  @RecordTimestampColumn() firstUsedAt!: Date;
}
