import { describe, expect, it } from '@jest/globals';
import { pascalKey } from '../../src/common/casing/pascal-case.js';
import {
  BodyTooDeepError,
  MAX_BODY_DEPTH,
  nestedDeeperThan,
  normaliseKeys,
} from '../../src/common/casing/normalise-keys.js';
import { snakeKey } from '../../src/common/casing/snake-key.js';

/** `levels` objects nested inside each other: `{a: {a: ... 1}}`. */
function nested(levels: number, key = 'A'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

describe('snakeKey', () => {
  it.each([
    ['FirstName', 'first_name'],
    ['firstName', 'first_name'],
    ['first_name', 'first_name'],
    ['PersonID', 'person_id'],
    ['personId', 'person_id'],
    ['HTMLTitle', 'html_title'],
    ['htmlTitle', 'html_title'],
    ['HasABN', 'has_abn'],
    ['ABN', 'abn'],
    ['ID', 'id'],
    ['id', 'id'],
    ['Title', 'title'],
    ['PhoneNumbers', 'phone_numbers'],
    ['PhoneType', 'phone_type'],
    ['UserAssignedID', 'user_assigned_id'],
    ['EnterpriseID', 'enterprise_id'],
    ['CrmDealID', 'crm_deal_id'],
    ['FinanceLast3Years', 'finance_last_3_years'],
    ['financeLast3Years', 'finance_last_3_years'],
    ['finance_last_3_years', 'finance_last_3_years'],
    ['BusinessName2', 'business_name2'],
    ['business_name2', 'business_name2'],
    ['Line1', 'line1'],
    ['FIRST_NAME', 'first_name'],
    ['First_Name', 'first_name'],
    ['first-name', 'first_name'],
    ['First Name', 'first_name'],
    ['__proto__', '__proto__'],
    ['__Proto__', '__proto__'],
    ['Constructor', 'constructor'],
    ['_private', '_private'],
    ['ÉtatCivil', 'état_civil'],
    ['0', '0'],
    ['', ''],
  ])('%j becomes %j', (key, expected) => {
    expect(snakeKey(key)).toBe(expected);
  });

  it.each([
    'title',
    'person_name',
    'organisation_name',
    'finance_last_3_years',
    'user_assigned_id',
    'enterprise_id',
    'crm_deal_id',
    'business_name2',
    'line1',
    'id',
  ])('reads the v1 name of %s back as the v2 name', (key) => {
    expect(snakeKey(pascalKey(key))).toBe(key);
  });
});

describe('normaliseKeys', () => {
  it('converts keys at every depth and inside arrays, leaving values alone', () => {
    expect(
      normaliseKeys({
        Title: 'Car Loan',
        Contact: { PhoneNumbers: [{ PhoneType: 'Mobile', Number: '0400' }, 'FreeText', [{ IsPrimary: true }]] },
      }),
    ).toEqual({
      title: 'Car Loan',
      contact: { phone_numbers: [{ phone_type: 'Mobile', number: '0400' }, 'FreeText', [{ is_primary: true }]] },
    });
  });

  it.each([
    ['the snake_case key later', { FirstName: 'A', first_name: 'B' }, { first_name: 'B' }],
    ['the PascalCase key later', { first_name: 'A', FirstName: 'B' }, { first_name: 'B' }],
    ['three casings', { firstName: 'A', FirstName: 'B', first_name: 'C' }, { first_name: 'C' }],
    ['an object then a scalar, as a whole', { Contact: { A: 1 }, contact: 2 }, { contact: 2 }],
    ['a scalar then an object, no deep merge', { contact: { a: 1 }, Contact: { B: 2 } }, { contact: { b: 2 } }],
  ])('lets the later of two colliding keys win: %s', (_name, body, expected) => {
    expect(normaliseKeys(body)).toEqual(expected);
  });

  it.each([null, 'text', 42, true, []])('returns the non-object body %j as it is', (body) => {
    expect(normaliseKeys(body)).toEqual(body);
  });

  it('cannot pollute prototypes: __proto__ is dropped, constructor stays a plain own key', () => {
    const body = JSON.parse(
      '{"__Proto__": {"polluted": true}, "Constructor": {"Prototype": {"polluted": true}}, "Nested": [{"__PROTO__": {"polluted": true}}]}',
    ) as unknown;
    const result = normaliseKeys(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['constructor', 'nested']);
    expect(result.constructor).toEqual({ prototype: { polluted: true } });
    expect(result.nested).toEqual([{}]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it(`accepts ${MAX_BODY_DEPTH} levels of objects and refuses ${MAX_BODY_DEPTH + 1}`, () => {
    expect(() => normaliseKeys(nested(MAX_BODY_DEPTH))).not.toThrow();
    expect(() => normaliseKeys(nested(MAX_BODY_DEPTH + 1))).toThrow(BodyTooDeepError);
  });

  it('counts arrays as levels too', () => {
    let value: unknown = 1;
    for (let i = 0; i < MAX_BODY_DEPTH + 1; i++) value = [value];
    expect(() => normaliseKeys(value)).toThrow(BodyTooDeepError);
  });

  it('refuses a very deep body without overflowing the stack', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => normaliseKeys(JSON.parse(text))).toThrow(BodyTooDeepError);
  });
});

describe('nestedDeeperThan', () => {
  it.each([
    [MAX_BODY_DEPTH, false],
    [MAX_BODY_DEPTH + 1, true],
    [0, false],
  ])('%i levels: %s', (levels, expected) => {
    expect(nestedDeeperThan(nested(levels))).toBe(expected);
  });

  it('agrees with the normaliser on where the limit is', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(nestedDeeperThan(deep)).toBe(true);
  });
});
