import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { isDataError } from '../../src/cli/import/data-error.js';
import { sqlStateOf } from '../../src/database/sql-state.js';

/** An error as pg raises it: the SQLSTATE on the error itself. */
const pgError = (code: string): Error => Object.assign(new Error('refused'), { code });

describe("an error's SQLSTATE", () => {
  it("is read from pg's error and from the driver error TypeORM wraps", () => {
    expect(sqlStateOf(pgError('23505'))).toBe('23505');
    expect(sqlStateOf(new QueryFailedError('SELECT 1', [], pgError('42P01')))).toBe('42P01');
  });

  it('is undefined for anything that is not a database error', () => {
    expect(sqlStateOf(new Error('plain'))).toBeUndefined();
    expect(sqlStateOf(Object.assign(new Error('fs'), { code: 5 }))).toBeUndefined();
    expect(sqlStateOf(undefined)).toBeUndefined();
    expect(sqlStateOf('23505')).toBeUndefined();
  });

  it("tells the import's data problems (classes 22 and 23) from connection faults", () => {
    expect(isDataError(pgError('22P02'))).toBe(true);
    expect(isDataError(new QueryFailedError('INSERT', [], pgError('23503')))).toBe(true);
    expect(isDataError(pgError('08006'))).toBe(false);
    expect(isDataError(pgError('57P01'))).toBe(false);
  });
});
