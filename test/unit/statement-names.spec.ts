import { describe, expect, it } from '@jest/globals';
import { MAX_PREPARED_STATEMENTS, StatementNames } from '../../src/database/pool-reader.js';

describe('prepared statement names', () => {
  it('gives one text one name, the same each time, and different texts different names', () => {
    const names = new StatementNames();
    const first = names.of('SELECT 1');
    expect(first).toMatch(/^fi_[0-9a-f]{24}$/);
    expect(names.of('SELECT 1')).toBe(first);
    expect(names.of('SELECT 2')).not.toBe(first);
    // Derived from the text: another process names it alike.
    expect(new StatementNames().of('SELECT 1')).toBe(first);
  });

  it('names at most its limit of texts; past it statements run unnamed, the named ones keep theirs', () => {
    const names = new StatementNames(2);
    const a = names.of('SELECT a');
    expect(names.of('SELECT b')).toBeDefined();
    expect(names.of('SELECT c')).toBeUndefined();
    expect(names.of('SELECT a')).toBe(a);
    expect(MAX_PREPARED_STATEMENTS).toBe(500);
  });
});
