import { describe, expect, it } from '@jest/globals';
import { uuidArray } from '../../src/database/uuid-array.js';
import { isUuid } from '../../src/database/uuid.js';

describe('the uuid[] parameter of ids read from the database', () => {
  const ids = ['4995e335-2a8a-4e54-bdb4-4326edd4be07', 'C3F0FA41-2FEE-418D-8047-0C5F74F84520'];

  it('is the array literal when every id is a uuid', () => {
    expect(uuidArray(ids)).toBe('{4995e335-2a8a-4e54-bdb4-4326edd4be07,C3F0FA41-2FEE-418D-8047-0C5F74F84520}');
    expect(uuidArray([])).toBe('{}');
  });

  it.each([
    ['a comma', '4995e335-2a8a-4e54-bdb4-4326edd4be0,'],
    ['a quote', '4995e335-2a8a-4e54-bdb4-4326edd4be0"'],
    ['a brace', '}995e335-2a8a-4e54-bdb4-4326edd4be07'],
    ['a dash out of place', '4995e335-2a8a-4e54-bdb44-326edd4be07'],
    ['two uuids in one', `${ids[0]},${ids[0]}`],
    ['nothing', ''],
  ])('is the ids as they are, for pg to escape, when one holds %s', (_what, odd) => {
    const given = [...ids, odd];
    expect(uuidArray(given)).toBe(given);
  });
});

describe('the uuid check', () => {
  it.each([
    '4995e335-2a8a-4e54-bdb4-4326edd4be07',
    'C3F0FA41-2FEE-418D-8047-0C5F74F84520',
    '00000000-0000-0000-0000-000000000000',
  ])('accepts %s', (value) => expect(isUuid(value)).toBe(true));

  it.each([
    '4995e335-2a8a-4e54-bdb4-4326edd4be0',
    '4995e335-2a8a-4e54-bdb4-4326edd4be077',
    '4995e3352-a8a-4e54-bdb4-4326edd4be07',
    '4995e335-2a8a-4e54-bdb4-4326edd4bg07',
    '4995e335_2a8a_4e54_bdb4_4326edd4be07',
    '{995e335-2a8a-4e54-bdb4-4326edd4be07',
    '',
  ])('refuses %j', (value) => expect(isUuid(value)).toBe(false));
});
