import { Column, type ColumnOptions } from 'typeorm';

/** Flags stored as 1/0 (smallint), read as booleans in code. */
export const flagTransformer = {
  to: (value: boolean | undefined): number | undefined => (value === undefined ? undefined : value ? 1 : 0),
  from: (value: number | null): boolean => value === 1,
};

/** A 1/0 flag with its default (each flag's CHECK (x IN (0, 1)) is declared on its entity). */
export function FlagColumn(defaultValue: 0 | 1, options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'smallint', transformer: flagTransformer, default: defaultValue, ...options });
}

/** varchar(255), the length of most text columns. */
export function VarcharColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'varchar', length: 255, ...options });
}

/** timestamptz with millisecond precision, as every table stores its timestamps. */
export function TimestampColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'timestamptz', precision: 3, ...options });
}

/** `created_at` / `updated_at`: now() unless the writer gives one. */
export function RecordTimestampColumn(): PropertyDecorator {
  return TimestampColumn({ default: () => 'now()' });
}
