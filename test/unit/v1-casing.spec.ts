import { describe, expect, it } from '@jest/globals';
import { pascalKey } from '../../src/common/casing/pascal-case.js';
import { toV1Record } from '../../src/common/casing/v1-casing.js';

describe('v1 casing', () => {
  it.each([
    ['id', 'ID'],
    ['enterprise_id', 'EnterpriseID'],
    ['crm_deal_id', 'CrmDealID'],
    ['dependents_ages', 'DependentsAges'],
    ['business_name2', 'BusinessName2'],
    ['abn', 'Abn'],
    ['line1', 'Line1'],
    ['is_primary', 'IsPrimary'],
    ['person_id', 'PersonId'],
    ['created_at', 'CreatedAt'],
  ])('%s becomes %s', (key, expected) => {
    expect(pascalKey(key)).toBe(expected);
  });

  it('cases a record with nested rows keeping lowercase timestamps and an embedded full record', () => {
    const record = {
      id: 'p1',
      enterprise_id: 'e1',
      first_name: 'Jane',
      created_at: 't1',
      updated_at: 't2',
      phone_numbers: { data: [{ id: 'ph1', type: 'Mobile', is_primary: true, created_at: 't3', updated_at: 't4' }] },
      application: { id: 'a1', crm_deal_id: null, created_at: 't5', updated_at: 't6' },
    };
    expect(toV1Record(record)).toEqual({
      ID: 'p1',
      EnterpriseID: 'e1',
      FirstName: 'Jane',
      CreatedAt: 't1',
      UpdatedAt: 't2',
      PhoneNumbers: { data: [{ ID: 'ph1', Type: 'Mobile', IsPrimary: true, created_at: 't3', updated_at: 't4' }] },
      Application: { ID: 'a1', CrmDealID: null, CreatedAt: 't5', UpdatedAt: 't6' },
    });
  });

  it('keeps lowercase timestamps on the enterprise record when asked', () => {
    expect(
      toV1Record(
        { id: 'e', name: 'E', is_active: true, created_at: 'a', updated_at: 'b' },
        { lowercaseTimestamps: true },
      ),
    ).toEqual({
      ID: 'e',
      Name: 'E',
      IsActive: true,
      created_at: 'a',
      updated_at: 'b',
    });
  });
});
