import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import '../../src/database/pg-types.js';
import { findTokenUser } from '../../src/auth/token-lookup.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { pageEnvelope, pageRequest, parsePage } from '../../src/common/http/pagination.js';
import { isMember } from '../../src/auth/membership-lookup.js';
import { parseAppKey } from '../../src/config/app-key.js';
import type { SqlExecutor } from '../../src/database/sql.js';
import { serialiseJson } from '../../src/database/json-text.js';
import { PEOPLE_ROWS, presentPeople } from '../../src/people/people.queries.js';
import { presentLead } from '../../src/leads/lead.presenter.js';
import { findLeadRow } from '../../src/leads/leads.queries.js';

/**
 * The raw baseline of issue 9: plain Fastify and `pg`, no NestJS, no TypeORM, no guards. It runs
 * the service's own SQL and presenters (plain functions) with the same token and membership
 * look-ups, so the service/baseline ratio is the cost of the framework layers alone.
 */
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});
const db: SqlExecutor = {
  query: async (sql, params): Promise<unknown> => (await pool.query<Record<string, unknown>>(sql, params)).rows,
};
const key = parseAppKey(process.env.APP_KEY ?? '');
if (!key) throw new Error('APP_KEY is required');
const cipher = new FieldCipher([key]);
const app = Fastify({ bodyLimit: 1024 * 1024 });
// The service's serialiser: the records' nested rows are JSON text from PostgreSQL, written as it is.
app.setReplySerializer((payload) => serialiseJson(payload));

function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).send({ message });
}

/** Token, then membership of the header's enterprise: the look-ups the service's guards make. */
async function caller(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const user = token ? (await findTokenUser(db, token))?.user : undefined;
  if (!user) return void fail(reply, 401, 'Unauthenticated.');
  const enterpriseId = request.headers['x-enterprise-id'];
  if (typeof enterpriseId !== 'string' || !(await isMember(db, user.id, enterpriseId))) {
    return void fail(reply, 403, 'Forbidden.');
  }
  return enterpriseId;
}

app.get('/health', () => ({ status: 'ok' }));

app.get<{ Querystring: { page?: string } }>('/api/v2/people', async (request, reply) => {
  const enterpriseId = await caller(request, reply);
  if (!enterpriseId) return reply;
  const page = parsePage(request.query.page);
  const { rows, total } = await PEOPLE_ROWS.listRows(db, enterpriseId, pageRequest(page));
  const records = await presentPeople(db, cipher, rows);
  return pageEnvelope(records, total, page, `http://${request.headers.host ?? ''}/api/v2/people`);
});

app.get<{ Params: { id: string } }>('/api/v2/leads/:id', async (request, reply) => {
  const enterpriseId = await caller(request, reply);
  if (!enterpriseId) return reply;
  const row = await findLeadRow(db, request.params.id);
  if (!row) return fail(reply, 404, `No query results for model [Lead] ${request.params.id}`);
  if (row.enterprise_id !== enterpriseId) return fail(reply, 403, 'Forbidden.');
  return { data: presentLead(row) };
});

await app.listen({ port: Number(process.env.PORT ?? 3100), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()));
