// Compiled by tsc, never run: the generated v2 types are as exact as the answers. Each line that
// compiles is a value the API may send or take; each `@ts-expect-error` line is one it never
// does, and fails the build if it compiles.
import type { components, operations } from '../generated/v2.js';

type Schemas = components['schemas'];
type Headers = components['headers'];
type Entry = Schemas['ChangePage']['data'][number];
type FeedQuery = NonNullable<operations['listChanges']['parameters']['query']>;
type CursorQuery = NonNullable<operations['getChangeCursor']['parameters']['query']>;

declare const lead: Schemas['Lead'];
declare const application: Schemas['Application'];
declare const header: Headers['X-RateLimit-Limit'];

// `types` of the change feed: a list of the record types (sent as `types=lead,person`).
export const someTypes: FeedQuery['types'] = ['lead', 'person'];
export const cursorTypes: CursorQuery['types'] = ['quote'];
// @ts-expect-error a type the feed does not have
export const unknownType: FeedQuery['types'] = ['leads'];
// @ts-expect-error not a list
export const plainString: FeedQuery['types'] = 'lead,person';

// A quote: the retrieve always has `application` (null when none), the v2 list never does.
export const retrieved: Schemas['Quote'] = {
  id: 'q',
  enterprise_id: 'e',
  application: null,
  created_at: 't',
  updated_at: 't',
};
export const listed: Schemas['QuoteListItem'] = { id: 'q', enterprise_id: 'e', created_at: 't', updated_at: 't' };
// @ts-expect-error a retrieved quote without its application
export const retrievedWithout: Schemas['Quote'] = { id: 'q', enterprise_id: 'e', created_at: 't', updated_at: 't' };
export const listedWith: Schemas['QuoteListItem'] = {
  id: 'q',
  enterprise_id: 'e',
  // @ts-expect-error the v2 list never has an application
  application,
  created_at: 't',
  updated_at: 't',
};
export const pageItem: Schemas['QuotePage']['data'][number] = listed;

// `enterprise_id` of a person, an organisation and a lead is never null.
export const personEnterprise: string = ({} as Schemas['Person']).enterprise_id;
export const organisationEnterprise: string = ({} as Schemas['Organisation']).enterprise_id;
export const leadEnterprise: string = lead.enterprise_id;
// @ts-expect-error null is not an enterprise id
export const nullEnterprise: Schemas['Lead']['enterprise_id'] = null;

// A feed entry's record follows its type and action: the record on `upserted`, null on `removed`.
export function recordOf(change: Entry): Schemas['Lead'] | null {
  if (change.type === 'lead' && change.action === 'upserted') {
    const upserted: Schemas['Lead'] = change.record;
    return upserted;
  }
  if (change.type === 'lead' && change.action === 'removed') {
    const removed: null = change.record;
    return removed;
  }
  return null;
}
export function wrongRecord(change: Entry): void {
  if (change.type === 'person' && change.action === 'upserted') {
    // @ts-expect-error a person's record is not a lead
    const notLead: Schemas['Lead'] = change.record;
    void notLead;
  }
  if (change.type === 'lead' && change.action === 'removed') {
    // @ts-expect-error a removed record is null
    const notRecord: Schemas['Lead'] = change.record;
    void notRecord;
  }
}
export const upsertedWithoutRecord: Schemas['LeadUpserted'] = {
  type: 'lead',
  id: 'l',
  action: 'upserted',
  changed_at: 't',
  // @ts-expect-error an upserted lead always has its record
  record: null,
};

// Response headers arrive as strings, and are typed so.
export const limit: string = header;
export const remaining: string = {} as Headers['X-RateLimit-Remaining'];
// @ts-expect-error not a number
export const limitNumber: number = header;
