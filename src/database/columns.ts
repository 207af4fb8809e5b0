import { Column, type ColumnOptions } from 'typeorm';

/** Flags the specification stores as 1/0 (smallint), read as booleans in code. */
export const flagTransformer = {
  to: (value: boolean | undefined): number | undefined => (value === undefined ? undefined : value ? 1 : 0),
  from: (value: number | null): boolean => value === 1,
};

export function FlagColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'smallint', transformer: flagTransformer, ...options });
}

/** timestamptz with millisecond precision, as every table stores its timestamps. */
export function TimestampColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'timestamptz', precision: 3, ...options });
}
