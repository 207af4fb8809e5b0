import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import '../../src/database/pg-types.js';
import { findTokenUser } from '../../src/auth/token-lookup.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { DataEnvelope } from '../../src/common/http/envelopes.js';
import { pageEnvelope, pageRequest, parsePage } from '../../src/common/http/pagination.js';
import { roleOf } from '../../src/auth/membership-lookup.js';
import { parseAppKey } from '../../src/config/app-key.js';
import type { SqlExecutor } from '../../src/database/sql.js';
import { serialiseJson } from '../../src/database/json-text.js';
import { presentEnterprise } from '../../src/enterprises/enterprise.presenter.js';
import { findEnterpriseForUser } from '../../src/enterprises/enterprises.service.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import type { TenantResource } from '../../src/resources/tenant-resource.js';

/**
 * The raw baseline: plain Fastify and `pg`, no NestJS, no TypeORM, no guards, no caches. For every
 * resource's list page and retrieve (derived from the same descriptors as the service's routes,
 * so a new resource has its baseline without edits) and the enterprise retrieve, it runs the
 * service's own SQL and presenters (plain functions) with the same token and membership look-ups,
 * so the service/baseline ratio is the cost, or the gain, of everything the service adds.
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

/** The token's user, or undefined after answering 401. */
async function tokenUser(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  const user = token ? (await findTokenUser(db, token))?.user : undefined;
  if (!user) return void fail(reply, 401, 'Unauthenticated.');
  return user.id;
}

/** Token, then membership of the header's enterprise: the look-ups the service's guards make. */
async function caller(request: FastifyRequest, reply: FastifyReply): Promise<string | undefined> {
  const userId = await tokenUser(request, reply);
  if (!userId) return undefined;
  const enterpriseId = request.headers['x-enterprise-id'];
  if (typeof enterpriseId !== 'string' || (await roleOf(db, userId, enterpriseId)) === undefined) {
    return void fail(reply, 403, 'Forbidden.');
  }
  return enterpriseId;
}

function resourceRoutes(resource: TenantResource): void {
  app.get<{ Querystring: { page?: string } }>(`/api/v2/${resource.path}`, async (request, reply) => {
    const enterpriseId = await caller(request, reply);
    if (!enterpriseId) return reply;
    const page = parsePage(request.query.page);
    const { rows, total } = await resource.rows.listRows(db, enterpriseId, pageRequest(page));
    const records =
      rows.length === 0 ? [] : await resource.present(rows, { db, cipher, enterpriseId, listVersion: 'v2' });
    if (!resource.rows.paged) return new DataEnvelope(records);
    return pageEnvelope(records, total, page, `http://${request.headers.host ?? ''}/api/v2/${resource.path}`);
  });

  app.get<{ Params: { id: string } }>(`/api/v2/${resource.path}/:id`, async (request, reply) => {
    const enterpriseId = await caller(request, reply);
    if (!enterpriseId) return reply;
    const found = await resource.rows.findRow(db, request.params.id, enterpriseId);
    if (!found) return fail(reply, 404, `No query results for model [${resource.model}] ${request.params.id}`);
    if (!found.inEnterprise) return fail(reply, 403, 'Forbidden.');
    const [record] = await resource.present([found.row], { db, cipher, enterpriseId });
    return new DataEnvelope(record);
  });
}

app.get('/health', () => ({ status: 'ok' }));
for (const resource of TENANT_RESOURCES) resourceRoutes(resource);

app.get<{ Params: { id: string } }>('/api/v2/enterprises/:id', async (request, reply) => {
  const userId = await tokenUser(request, reply);
  if (!userId) return reply;
  const row = await findEnterpriseForUser(db, request.params.id, userId);
  if (!row) return fail(reply, 404, `No query results for model [Enterprise] ${request.params.id}`);
  if (!row.member) return fail(reply, 403, 'Forbidden.');
  return new DataEnvelope(presentEnterprise(row));
});

await app.listen({ port: Number(process.env.PORT ?? 3100), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => pool.end()));
