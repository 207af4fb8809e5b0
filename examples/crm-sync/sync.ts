// A CRM keeping a copy of an enterprise in sync with Finance Intake, through a client typed from
// the service's own v2 OpenAPI document. Run it against a running service:
//
//   npm run example:types            # types from http://localhost:3000/api/v2/openapi.json
//   npm run example                  # compile with tsc and run
//
// API_URL, API_EMAIL, API_PASSWORD and API_ENTERPRISE_ID override the embedded demo's defaults.
import { randomUUID } from 'node:crypto';
import { anonymousClient, authorisedClient, failure, type Api } from './client.js';
import type { components } from './generated/v2.js';

type Lead = components['schemas']['Lead'];
type LeadInput = components['schemas']['LeadInput'];

const baseUrl = process.env.API_URL ?? 'http://localhost:3000';
const email = process.env.API_EMAIL ?? 'demo@example.com';
const password = process.env.API_PASSWORD ?? 'demo-password';

async function logIn(): Promise<string> {
  const { data, error, response } = await anonymousClient(baseUrl).POST('/api/v2/login', {
    body: { email, password },
  });
  if (!data) throw failure('log in', response, error);
  return data.access_token;
}

async function chooseEnterprise(token: string): Promise<string> {
  const { data, error, response } = await authorisedClient(baseUrl, token).GET('/api/v2/enterprises');
  if (!data) throw failure('list enterprises', response, error);
  const wanted = process.env.API_ENTERPRISE_ID;
  const enterprise = wanted ? data.data.find((e) => e.id === wanted) : data.data[0];
  if (!enterprise) throw new Error(`no enterprise ${wanted ?? ''} for ${email}`);
  return enterprise.id;
}

/** Every person of the enterprise, page by page (100 a page, newest first). */
async function countPeople(api: Api): Promise<number> {
  let count = 0;
  for (let page = 1; ; page++) {
    const { data, error, response } = await api.GET('/api/v2/people', { params: { query: { page } } });
    if (!data) throw failure(`people page ${page}`, response, error);
    count += data.data.length;
    if (data.links.next === null) return count;
  }
}

/**
 * Creates a lead; the same Idempotency-Key makes a retry safe (the second answer is the first
 * one again, marked Idempotent-Replayed, and nothing is written twice).
 */
async function createLead(api: Api, body: LeadInput): Promise<{ lead: Lead; replayed: boolean }> {
  const key = randomUUID();
  const send = () => api.POST('/api/v2/leads', { body, params: { header: { 'Idempotency-Key': key } } });
  const first = await send();
  if (!first.data) throw failure('create lead', first.response, first.error);
  const retry = await send();
  if (!retry.data) throw failure('retry create lead', retry.response, retry.error);
  const replayed =
    retry.response.headers.get('Idempotent-Replayed') === 'true' && retry.data.data.id === first.data.data.id;
  return { lead: first.data.data, replayed };
}

async function updateLead(api: Api, id: string, body: LeadInput): Promise<Lead> {
  const { data, error, response } = await api.PUT('/api/v2/leads/{id}', {
    params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } },
    body,
  });
  if (!data) throw failure('update lead', response, error);
  return data.data;
}

/**
 * Reads the first page of people again with the ETag of an earlier read, as a cache does. A 304
 * means the copy kept is still current: openapi-fetch then gives no `data` and an `error` that is
 * an empty string (there is no body), so the status is what to look at, before `data`.
 */
async function peopleUnchanged(api: Api): Promise<boolean> {
  const first = await api.GET('/api/v2/people');
  if (!first.data) throw failure('people page 1', first.response, first.error);
  const etag = first.response.headers.get('ETag');
  if (etag === null) return false;
  const again = await api.GET('/api/v2/people', { params: { header: { 'If-None-Match': etag } } });
  if (again.response.status === 304) return true;
  if (!again.data) throw failure('people page 1 again', again.response, again.error);
  return false;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows the change feed from a cursor, as a sync job polls it, until `done` says the changes
 * it waits for have arrived (or `timeoutMs` passes): the leads it reported, by id, and the cursor
 * to store. A change shows up once its transaction and every transaction older than it on the
 * database have ended, so a write just made may need a poll or two.
 */
async function followLeadChanges(
  api: Api,
  cursor: string,
  done: (leads: Map<string, Lead>) => boolean,
  timeoutMs = 60_000,
): Promise<{ leads: Map<string, Lead>; cursor: string }> {
  const leads = new Map<string, Lead>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data, error, response } = await api.GET('/api/v2/changes', {
      params: { query: { cursor, types: ['lead'], limit: 100 } },
    });
    if (!data) throw failure('read changes', response, error);
    for (const entry of data.data) {
      // `type` and `action` say what `record` is: the lead itself on `upserted`, null on `removed`.
      if (entry.type === 'lead' && entry.action === 'upserted') leads.set(entry.id, entry.record);
    }
    cursor = data.meta.next_cursor;
    if (data.meta.has_more) continue;
    if (done(leads) || Date.now() > deadline) return { leads, cursor };
    await pause(250);
  }
}

async function main(): Promise<void> {
  const token = await logIn();
  const enterpriseId = await chooseEnterprise(token);
  const api = authorisedClient(baseUrl, token, enterpriseId);

  // A cursor belongs to the types it was taken with: take it for the types the feed is read with.
  const position = await api.GET('/api/v2/changes/cursor', { params: { query: { types: ['lead'] } } });
  if (!position.data) throw failure('change cursor', position.response, position.error);

  const people = await countPeople(api);
  const unchanged = await peopleUnchanged(api);
  const created = await createLead(api, { title: 'Car loan enquiry', person_name: 'Pat Example', source: 'crm-sync' });
  const updated = await updateLead(api, created.lead.id, {
    title: 'Car loan enquiry (called back)',
    person: 'Pat Example',
    description: 'Wants a quote for a used hatchback.',
  });
  const changes = await followLeadChanges(
    api,
    position.data.data.cursor,
    (leads) => leads.get(updated.id)?.title === updated.title,
  );

  // One JSON line: what a scheduler or a test reads.
  console.log(
    JSON.stringify({
      enterprise_id: enterpriseId,
      people,
      people_unchanged: unchanged,
      lead: { id: updated.id, title: updated.title },
      replayed: created.replayed,
      changed_leads: [...changes.leads.keys()],
      feed_title: changes.leads.get(updated.id)?.title ?? null,
      cursor: changes.cursor,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
