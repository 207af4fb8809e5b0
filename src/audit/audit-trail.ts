import type { FastifyRequest } from 'fastify';
import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { pageRequest } from '../common/http/pagination.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { selectPage, type Page } from '../database/tenant-page.js';
import type { AuditActorKind } from './audit-event.entity.js';
import { realEnterprise } from '../database/no-enterprise.js';

/** The actions the trail records; never more than an id and a few names of what changed. */
export const AUDIT_ACTIONS = [
  'token.issued',
  'token.revoked',
  'role.changed',
  'user.activated',
  'user.deactivated',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.replayed',
  'webhook_endpoint.disabled',
  'login.failed',
  'enterprise.exported',
  'enterprise.imported',
  'key.rotated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acts: a user's token through the API (and from where), an operator's CLI command, or the service. */
export interface AuditActor {
  readonly kind: AuditActorKind;
  readonly userId?: string;
  readonly tokenId?: string;
  readonly clientIp?: string;
  readonly requestId?: string;
}

export const CLI_ACTOR: AuditActor = { kind: 'cli' };

/** The user and token of an API request, its client address and request id. */
export function auditActorOf(request: FastifyRequest): AuditActor {
  const user = request.user;
  return {
    kind: 'user',
    ...(user ? { userId: user.id, tokenId: user.tokenId } : {}),
    clientIp: request.ip,
    requestId: String(request.id),
  };
}

export interface AuditEntry {
  readonly action: AuditAction;
  readonly targetType: string;
  readonly targetId: string | null;
  /** Names and ids only: never a secret, a token or a record's personal data. */
  readonly details?: Record<string, unknown>;
}

const COLUMNS = `actor, actor_user_id, actor_token_id, action, target_type, target_id, details, client_ip, request_id`;

function values(actor: AuditActor, entry: AuditEntry): unknown[] {
  return [
    actor.kind,
    actor.userId ?? null,
    actor.tokenId ?? null,
    entry.action,
    entry.targetType,
    entry.targetId,
    JSON.stringify(entry.details ?? {}),
    actor.clientIp?.slice(0, 64) ?? null,
    actor.requestId?.slice(0, 128) ?? null,
  ];
}

/** Records an action of one enterprise, on `db`: the action's own transaction. */
export async function recordAudit(
  db: SqlExecutor,
  enterpriseId: string,
  actor: AuditActor,
  entry: AuditEntry,
): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (enterprise_id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)`,
    [enterpriseId, ...values(actor, entry)],
  );
}

/**
 * Records an action about a user in each enterprise it concerns: every enterprise the user
 * belongs to, or only `enterpriseIds` of them (a token bound to some). With `endpointsKept`, each
 * entry also says how many of that enterprise's webhook endpoints the user created: they keep
 * delivering (the enterprise owns them), and the trail says so.
 */
export async function recordAuditForMember(
  db: SqlExecutor,
  userId: string,
  enterpriseIds: readonly string[] | null,
  actor: AuditActor,
  entry: AuditEntry,
  endpointsKept = false,
): Promise<void> {
  const details = endpointsKept
    ? `$9::jsonb || jsonb_build_object('endpoints_kept',
         (SELECT count(*) FROM webhook_endpoints w WHERE w.enterprise_id = m.enterprise_id AND w.created_by = $1))`
    : '$9::jsonb';
  await db.query(
    `INSERT INTO audit_events (enterprise_id, ${COLUMNS})
     SELECT m.enterprise_id, $3, $4, $5, $6, $7, $8, ${details}, $10, $11 FROM memberships m
      WHERE m.user_id = $1 AND ($2::uuid[] IS NULL OR m.enterprise_id = ANY ($2::uuid[]))`,
    [userId, enterpriseIds, ...values(actor, entry)],
  );
}

/**
 * Records an action in each of `enterpriseIds`, or in every enterprise (null): a whole export, a
 * key rotation, an import. An entry about the enterprise itself names each one as its target.
 */
export async function recordAuditForEnterprises(
  db: SqlExecutor,
  enterpriseIds: readonly string[] | null,
  actor: AuditActor,
  entry: AuditEntry,
): Promise<void> {
  await db.query(
    `INSERT INTO audit_events (enterprise_id, ${COLUMNS})
     SELECT e.id, $2, $3, $4, $5, $6, CASE WHEN $6::varchar = 'enterprise' THEN e.id::varchar ELSE $7::varchar END, $8::jsonb, $9, $10
       FROM enterprises e
      WHERE ($1::uuid[] IS NULL OR e.id = ANY ($1::uuid[])) AND ${realEnterprise('e')}`,
    [enterpriseIds, ...values(actor, entry)],
  );
}

/** Removes entries older than `days`, `batch` at a time (each its own statement); how many went. */
export async function pruneAuditEvents(db: SqlExecutor, days: number, batch = 1_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const [row] = await selectRows<{ removed: number }>(
      db,
      `WITH gone AS (
         DELETE FROM audit_events WHERE id IN (
           SELECT id FROM audit_events WHERE occurred_at < now() - make_interval(days => $1) LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS removed FROM gone`,
      [days, batch],
    );
    const count = row?.removed ?? 0;
    removed += count;
    if (count < batch) return removed;
  }
}

/** An entry as the API and the CLI show it. */
export interface AuditEventRecord {
  id: string;
  occurred_at: string;
  actor: { type: AuditActorKind; user_id: string | null; token_id: string | null };
  action: string;
  target: { type: string; id: string | null };
  details: Record<string, unknown>;
  client_ip: string | null;
  request_id: string | null;
}

interface AuditEventRow {
  id: string;
  occurred_at: Date;
  actor: AuditActorKind;
  actor_user_id: string | null;
  actor_token_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  client_ip: string | null;
  request_id: string | null;
}

export interface AuditFilter {
  readonly action?: string;
  readonly since?: Date;
  readonly until?: Date;
}

/** A page of the enterprise's trail, newest first; `page` from 1, 100 a page. */
export async function listAuditEvents(
  db: SqlExecutor,
  enterpriseId: string,
  filter: AuditFilter,
  page: number,
): Promise<Page<AuditEventRecord>> {
  const where = `enterprise_id = $1 AND ($2::varchar IS NULL OR action = $2)
    AND ($3::timestamptz IS NULL OR occurred_at >= $3) AND ($4::timestamptz IS NULL OR occurred_at < $4)`;
  const parameters = [enterpriseId, filter.action ?? null, filter.since ?? null, filter.until ?? null];
  const { rows, total } = await selectPage<AuditEventRow>(
    db,
    {
      from: `FROM audit_events WHERE ${where}`,
      parameters,
      columns: `id, occurred_at, ${COLUMNS}`,
      orderBy: 'occurred_at DESC, id DESC',
    },
    pageRequest(page),
  );
  return { records: rows.map(presentAuditEvent), total };
}

function presentAuditEvent(row: AuditEventRow): AuditEventRecord {
  return {
    id: row.id,
    occurred_at: isoTimestamp(row.occurred_at),
    actor: { type: row.actor, user_id: row.actor_user_id, token_id: row.actor_token_id },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    details: row.details,
    client_ip: row.client_ip,
    request_id: row.request_id,
  };
}
