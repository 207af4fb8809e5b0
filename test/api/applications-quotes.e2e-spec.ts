import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, tenantDocument } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const T0 = '2026-03-01T00:00:00.000Z';
const T1 = '2026-03-02T00:00:00.000Z';
const T2 = '2026-03-03T00:00:00.000Z';
const T3 = '2026-03-04T00:00:00.000Z';
const T4 = '2026-03-05T12:34:56.789Z';
const QT = (n: number) => `2026-04-0${n + 1}T08:00:00.000Z`;

const app = (n: string) => `12000000-0000-4000-8000-00000000000${n}`;
const quote = (n: string) => `13000000-0000-4000-8000-00000000000${n}`;
const A_FULL = app('1');
const A_TIE = app('2');
const A_INACTIVE = app('3');
const A_BARE = app('4');
const A_FOREIGN = app('5');
const Q_FULL_OLD = quote('1');
const Q_FULL_NEW = quote('2');
const Q_FULL_INACTIVE = quote('3');
const Q_TIE_LOW = quote('a');
const Q_TIE_HIGH = quote('b');
const Q_INACTIVE = quote('4');
const Q_NO_APP = quote('5');
const Q_FOREIGN = quote('6');

const { doc, tenant } = tenantDocument();
const OWN = tenant.enterpriseId;
const OTHER = tenant.otherEnterpriseId;

const calculation = (
  asset_type: string | null,
  asset_description: string | null,
  financier: string | null,
  total_finance_amount: string | number | null,
) => ({ asset_type, asset_description, financier, total_finance_amount });

/** Two active quotes (newest wins), an equal-time tie, only an inactive quote, none at all. */
const fixture = {
  ...doc,
  applications: [
    {
      id: A_FULL,
      enterprise_id: OWN,
      settlement_date_actual: '2026-03-15',
      contract_number: 'CN-0001',
      source_of_business: 'Referral',
      crm_deal_id: 'deal-981',
      created_at: T3,
      updated_at: T4,
    },
    { id: A_TIE, enterprise_id: OWN, source_of_business: 'Website', created_at: T2, updated_at: T2 },
    { id: A_INACTIVE, enterprise_id: OWN, contract_number: 'CN-0003', created_at: T1, updated_at: T1 },
    { id: A_BARE, enterprise_id: OWN, created_at: T0, updated_at: T0 },
    { id: A_FOREIGN, enterprise_id: OTHER, contract_number: 'SECRET-CN', created_at: T4, updated_at: T4 },
  ],
  quotes: [
    {
      id: Q_FULL_OLD,
      enterprise_id: OWN,
      application_id: A_FULL,
      is_active: true,
      calculation: calculation('Motor Vehicle', 'Old Hilux', 'Bank A', '40000.00'),
      created_at: QT(1),
      updated_at: QT(1),
    },
    {
      id: Q_FULL_NEW,
      enterprise_id: OWN,
      application_id: A_FULL,
      is_active: 1,
      calculation: { ...calculation('Motor Vehicle', '2024 Toyota Hilux SR5', 'Example Bank', 45000.5), term: 60 },
      created_at: QT(2),
      updated_at: QT(4),
    },
    {
      id: Q_FULL_INACTIVE,
      enterprise_id: OWN,
      application_id: A_FULL,
      is_active: false,
      calculation: calculation('Boat', 'Runabout', 'Bank C', '9000.00'),
      created_at: QT(5),
      updated_at: QT(5),
    },
    {
      id: Q_TIE_LOW,
      enterprise_id: OWN,
      application_id: A_TIE,
      is_active: true,
      calculation: calculation('Equipment', 'Excavator', 'Low Id Bank', '1.00'),
      created_at: QT(3),
      updated_at: QT(3),
    },
    {
      id: Q_TIE_HIGH,
      enterprise_id: OWN,
      application_id: A_TIE,
      is_active: true,
      calculation: calculation('Equipment', null, 'High Id Bank', null),
      created_at: QT(3),
      updated_at: QT(3),
    },
    {
      id: Q_INACTIVE,
      enterprise_id: OWN,
      application_id: A_INACTIVE,
      is_active: false,
      calculation: calculation('Truck', 'Prime mover', 'Bank D', '150000.00'),
      created_at: QT(4),
      updated_at: QT(4),
    },
    { id: Q_NO_APP, enterprise_id: OWN, is_active: true, created_at: QT(0), updated_at: QT(0) },
    {
      id: Q_FOREIGN,
      enterprise_id: OTHER,
      application_id: A_FOREIGN,
      is_active: true,
      calculation: calculation('Secret', 'Secret', 'Secret', '1.00'),
      created_at: QT(6),
      updated_at: QT(6),
    },
  ],
};

const FULL_V2 = {
  id: A_FULL,
  enterprise_id: OWN,
  settlement_date_actual: '2026-03-15',
  contract_number: 'CN-0001',
  source_of_business: 'Referral',
  asset_type: 'Motor Vehicle',
  asset_description: '2024 Toyota Hilux SR5',
  financier: 'Example Bank',
  total_finance_amount: '45000.50',
  crm_deal_id: 'deal-981',
  created_at: T3,
  updated_at: T4,
};
const TIE_V2 = {
  id: A_TIE,
  enterprise_id: OWN,
  settlement_date_actual: null,
  contract_number: null,
  source_of_business: 'Website',
  asset_type: 'Equipment',
  asset_description: null,
  financier: 'High Id Bank',
  total_finance_amount: null,
  crm_deal_id: null,
  created_at: T2,
  updated_at: T2,
};
const INACTIVE_V2 = {
  id: A_INACTIVE,
  enterprise_id: OWN,
  settlement_date_actual: null,
  contract_number: 'CN-0003',
  source_of_business: null,
  asset_type: null,
  asset_description: null,
  financier: null,
  total_finance_amount: null,
  crm_deal_id: null,
  created_at: T1,
  updated_at: T1,
};
const BARE_V2 = {
  id: A_BARE,
  enterprise_id: OWN,
  settlement_date_actual: null,
  contract_number: null,
  source_of_business: null,
  asset_type: null,
  asset_description: null,
  financier: null,
  total_finance_amount: null,
  crm_deal_id: null,
  created_at: T0,
  updated_at: T0,
};

const FULL_V1 = {
  ID: A_FULL,
  EnterpriseID: OWN,
  SettlementDateActual: '2026-03-15',
  ContractNumber: 'CN-0001',
  SourceOfBusiness: 'Referral',
  AssetType: 'Motor Vehicle',
  AssetDescription: '2024 Toyota Hilux SR5',
  Financier: 'Example Bank',
  TotalFinanceAmount: '45000.50',
  CrmDealID: 'deal-981',
  CreatedAt: T3,
  UpdatedAt: T4,
};
const TIE_V1 = {
  ID: A_TIE,
  EnterpriseID: OWN,
  SettlementDateActual: null,
  ContractNumber: null,
  SourceOfBusiness: 'Website',
  AssetType: 'Equipment',
  AssetDescription: null,
  Financier: 'High Id Bank',
  TotalFinanceAmount: null,
  CrmDealID: null,
  CreatedAt: T2,
  UpdatedAt: T2,
};
const INACTIVE_V1 = {
  ID: A_INACTIVE,
  EnterpriseID: OWN,
  SettlementDateActual: null,
  ContractNumber: 'CN-0003',
  SourceOfBusiness: null,
  AssetType: null,
  AssetDescription: null,
  Financier: null,
  TotalFinanceAmount: null,
  CrmDealID: null,
  CreatedAt: T1,
  UpdatedAt: T1,
};
const BARE_V1 = {
  ID: A_BARE,
  EnterpriseID: OWN,
  SettlementDateActual: null,
  ContractNumber: null,
  SourceOfBusiness: null,
  AssetType: null,
  AssetDescription: null,
  Financier: null,
  TotalFinanceAmount: null,
  CrmDealID: null,
  CreatedAt: T0,
  UpdatedAt: T0,
};

/** The quotes of the own enterprise, newest first; equal created_at: higher id first. */
const QUOTES: [id: string, created: string, updated: string, v2: object | null, v1: object | null][] = [
  [Q_FULL_INACTIVE, QT(5), QT(5), FULL_V2, FULL_V1],
  [Q_INACTIVE, QT(4), QT(4), INACTIVE_V2, INACTIVE_V1],
  [Q_TIE_HIGH, QT(3), QT(3), TIE_V2, TIE_V1],
  [Q_TIE_LOW, QT(3), QT(3), TIE_V2, TIE_V1],
  [Q_FULL_NEW, QT(2), QT(4), FULL_V2, FULL_V1],
  [Q_FULL_OLD, QT(1), QT(1), FULL_V2, FULL_V1],
  [Q_NO_APP, QT(0), QT(0), null, null],
];

const quoteV2 = ([id, created, updated, application]: (typeof QUOTES)[number], embed: boolean) => ({
  id,
  enterprise_id: OWN,
  ...(embed ? { application } : {}),
  created_at: created,
  updated_at: updated,
});
const quoteV1 = ([id, created, updated, , application]: (typeof QUOTES)[number]) => ({
  ID: id,
  EnterpriseID: OWN,
  Application: application,
  CreatedAt: created,
  UpdatedAt: updated,
});

const pageOf = (version: 'v1' | 'v2', resource: string, data: unknown[]) => {
  const path = `http://localhost:80/api/${version}/${resource}`;
  return {
    data,
    links: { first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null },
    meta: { current_page: 1, from: 1, to: data.length, last_page: 1, path, per_page: 100, total: data.length },
  };
};

describe('applications and quotes', () => {
  let t: TestApp;
  let token: string;

  const suite = apiSuite({ fixture: { doc: fixture, tenant } });
  beforeAll(() => void ({ t, token } = suite));

  const get = (version: 'v1' | 'v2', path: string) =>
    t.app.inject({ method: 'GET', url: `/api/${version}${path}`, headers: apiHeaders(version, token, OWN) });

  describe('applications', () => {
    it('v2 lists them newest first with the active quote’s fields, exact body', async () => {
      const res = await get('v2', '/applications');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toStrictEqual(pageOf('v2', 'applications', [FULL_V2, TIE_V2, INACTIVE_V2, BARE_V2]));
    });

    it('v1 lists them in v1 casing (CrmDealID), exact body', async () => {
      const res = await get('v1', '/applications');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toStrictEqual(pageOf('v1', 'applications', [FULL_V1, TIE_V1, INACTIVE_V1, BARE_V1]));
    });

    it.each([
      ['two active quotes: the most recently created', A_FULL, FULL_V2, FULL_V1],
      ['two active quotes created together: the higher id', A_TIE, TIE_V2, TIE_V1],
      ['only an inactive quote: nulls', A_INACTIVE, INACTIVE_V2, INACTIVE_V1],
      ['no quote: nulls', A_BARE, BARE_V2, BARE_V1],
    ])('retrieve, %s, exact body in both versions', async (_name, id, v2, v1) => {
      const resV2 = await get('v2', `/applications/${id}`);
      expect(resV2.statusCode).toBe(200);
      expect(resV2.json()).toStrictEqual({ data: v2 });
      const resV1 = await get('v1', `/applications/${id}`);
      expect(resV1.statusCode).toBe(200);
      expect(resV1.json()).toStrictEqual({ data: v1 });
    });

    it.each(['v1', 'v2'] as const)('%s: another enterprise’s application is 403 with none of its data', async (v) => {
      const res = await get(v, `/applications/${A_FOREIGN}`);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
    });
  });

  describe('quotes', () => {
    it('the v2 list leaves `application` out, exact body', async () => {
      const res = await get('v2', '/quotes');
      expect(res.statusCode).toBe(200);
      const body = res.json<{ data: object[] }>();
      expect(body).toStrictEqual(
        pageOf(
          'v2',
          'quotes',
          QUOTES.map((q) => quoteV2(q, false)),
        ),
      );
      for (const record of body.data) expect(record).not.toHaveProperty('application');
    });

    it('the v1 list embeds each application (or null) with CreatedAt/UpdatedAt, exact body', async () => {
      const res = await get('v1', '/quotes');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toStrictEqual(pageOf('v1', 'quotes', QUOTES.map(quoteV1)));
    });

    it.each(QUOTES.map((q) => [q[0], q] as const))(
      'retrieve %s embeds its application in both versions',
      async (id, q) => {
        const resV2 = await get('v2', `/quotes/${id}`);
        expect(resV2.statusCode).toBe(200);
        expect(resV2.json()).toStrictEqual({ data: quoteV2(q, true) });
        const resV1 = await get('v1', `/quotes/${id}`);
        expect(resV1.statusCode).toBe(200);
        expect(resV1.json()).toStrictEqual({ data: quoteV1(q) });
      },
    );

    it('a quote without an application embeds `application: null`', async () => {
      const res = await get('v2', `/quotes/${Q_NO_APP}`);
      expect(res.json<{ data: { application: unknown } }>().data.application).toBeNull();
    });

    it.each(['v1', 'v2'] as const)('%s: another enterprise’s quote is 403 with none of its data', async (v) => {
      const res = await get(v, `/quotes/${Q_FOREIGN}`);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
    });
  });
});
