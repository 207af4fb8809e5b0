import { GoneException, Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChangeCursorCodec, InvalidCursorError, UnknownCursorKeyError } from '../changes/change-cursor.js';
import { readHorizon } from '../changes/change-log.queries.js';
import { CHANGE_TYPES, type ChangePosition } from '../changes/change-types.js';
import { FieldCipher } from '../crypto/field-cipher.js';
import { PAGE_SIZE, pageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { FormValidationException } from '../common/http/validation-failed.exception.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { NEWEST_FIRST, type Page } from '../database/tenant-page.js';
import { refuseRecordNotOwned } from '../common/http/record-not-owned.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { allowedAddresses, RefusedAddressError } from './webhook-address.js';
import { bodyObject, readEndpointInput, WebhookInputMessages, type EndpointChanges } from './webhook-endpoint-input.js';
import {
  DELIVERY_COLUMNS,
  ENDPOINT_COLUMNS,
  presentWebhookDelivery,
  presentWebhookEndpoint,
  type WebhookDeliveryRecord,
  type WebhookDeliveryRow,
  type WebhookEndpointRecord,
  type WebhookEndpointRow,
  type WebhookEndpointWithSecret,
} from './webhook-endpoint.presenter.js';
import { WebhookResolver } from './webhook-resolver.js';
import { newWebhookSecret } from './webhook-secret.js';
import { typesOf } from './webhook-stream.js';
import { recordAudit, type AuditActor } from '../audit/audit-trail.js';
import { AuditRetention } from '../audit/audit-retention.js';

export const WEBHOOK_ENDPOINT_MODEL = 'WebhookEndpoint';
/** After a rotation, deliveries carry the old secret's signature too for this long. */
export const ROTATION_OVERLAP = '24 hours';
/** Attempts older than this are purged and never listed. */
export const DELIVERIES_KEPT = '7 days';
/** Before every change of the enterprise: a replay from here sends each record's latest state. */
const BEGINNING: ChangePosition = { xid: 0n, seq: 0n };

/** Managing an enterprise's webhook endpoints; delivering them is WebhookDeliveryWorker's. */
/** A new endpoint as a create remembers it: the secret as stored, encrypted. */
export interface CreatedEndpoint {
  readonly record: WebhookEndpointRecord;
  readonly secretEncrypted: string;
}

@Injectable()
export class WebhookEndpointsService {
  private readonly cursors: ChangeCursorCodec;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
    private readonly resolver: WebhookResolver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly retention: AuditRetention,
  ) {
    // The feed's own cursors (same class, same keys): a replay starts from a cursor the feed gave.
    this.cursors = new ChangeCursorCodec(config.encryptionKeys);
  }

  async list(enterpriseId: string, page: number): Promise<Page<WebhookEndpointRecord>> {
    const { limit, offset } = pageRequest(page);
    const [count] = await selectRows<{ total: number }>(
      this.dataSource,
      `SELECT count(*)::int AS total FROM webhook_endpoints WHERE enterprise_id = $1`,
      [enterpriseId],
    );
    const rows = await selectRows<WebhookEndpointRow>(
      this.dataSource,
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE enterprise_id = $1
        ORDER BY ${NEWEST_FIRST} LIMIT $2 OFFSET $3`,
      [enterpriseId, limit, offset],
    );
    return { records: rows.map(presentWebhookEndpoint), total: count?.total ?? 0 };
  }

  async get(enterpriseId: string, id: string): Promise<WebhookEndpointRecord> {
    return presentWebhookEndpoint(await this.own(enterpriseId, id));
  }

  /**
   * A new endpoint receives the changes committed from now on (replay reaches further back). The
   * body is checked first; `insert` then writes it on `db` (the transaction of an
   * `Idempotency-Key`, when there is one). What it returns holds the secret encrypted, as the
   * endpoint's row does, so a remembered answer never keeps it in clear: `reveal` gives the answer.
   */
  async validatedForCreate(body: unknown): Promise<EndpointChanges> {
    return this.validated(body, 'create');
  }

  async insert(
    enterpriseId: string,
    changes: EndpointChanges,
    actor: AuditActor,
    db: SqlExecutor = this.dataSource,
  ): Promise<CreatedEndpoint> {
    // The count, the insert and its audit event run in one transaction, behind a lock on the
    // enterprise's endpoints: two creates at once never both take the last place.
    if (db instanceof DataSource)
      return db.transaction((manager) => this.insert(enterpriseId, changes, actor, manager));
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, [enterpriseId]);
    const [registered] = await selectRows<{ total: number }>(
      db,
      `SELECT count(*)::int AS total FROM webhook_endpoints WHERE enterprise_id = $1`,
      [enterpriseId],
    );
    const most = this.config.webhooks.endpointsPerEnterprise;
    if ((registered?.total ?? 0) >= most) {
      throw new FormValidationException({ url: [WebhookInputMessages.tooManyEndpoints(most)] });
    }
    const secretEncrypted = this.cipher.encrypt(newWebhookSecret());
    const start = await readHorizon(db, enterpriseId);
    const [row] = await selectRows<WebhookEndpointRow>(
      db,
      `INSERT INTO webhook_endpoints (enterprise_id, url, types, description, secret_encrypted, cursor_xid, cursor_seq, created_by)
       VALUES ($1, $2, $3::text[], $4, $5, $6::bigint, $7::bigint, $8)
       RETURNING ${ENDPOINT_COLUMNS}`,
      [
        enterpriseId,
        changes.url,
        changes.types ?? [],
        changes.description ?? null,
        secretEncrypted,
        start.xid.toString(),
        start.seq.toString(),
        actor.userId ?? null,
      ],
    );
    if (!row) throw new Error('INSERT ... RETURNING gave no row');
    // The URL is not recorded: its query string may hold a receiver's own secret.
    await this.audit(db, enterpriseId, actor, 'webhook_endpoint.created', row.id, { types: changes.types ?? [] });
    return { record: presentWebhookEndpoint(row), secretEncrypted };
  }

  /** The answer of a create or a rotation: the endpoint and its secret, decrypted. */
  reveal(created: CreatedEndpoint): WebhookEndpointWithSecret {
    return { ...created.record, secret: this.cipher.decrypt(created.secretEncrypted) };
  }

  /**
   * Changes url, types, description or enabled. Enabling a disabled endpoint clears its failures,
   * so it is tried at once and resumes where it stopped.
   */
  async update(enterpriseId: string, id: string, body: unknown, actor: AuditActor): Promise<WebhookEndpointRecord> {
    await this.own(enterpriseId, id);
    const changes = await this.validated(body, 'update');
    return this.dataSource.transaction(async (db) => {
      const rows = await selectRows<WebhookEndpointRow>(
        db,
        `UPDATE webhook_endpoints
          SET url = coalesce($3, url),
              types = CASE WHEN $4::boolean THEN $5::text[] ELSE types END,
              description = CASE WHEN $6::boolean THEN $7 ELSE description END,
              enabled = coalesce($8, enabled),
              disabled_reason = CASE WHEN $8 IS NULL OR $8 = enabled THEN disabled_reason ELSE NULL END,
              failures = CASE WHEN $8 AND NOT enabled THEN 0 ELSE failures END,
              failing_since = CASE WHEN $8 AND NOT enabled THEN NULL ELSE failing_since END,
              next_attempt_at = CASE WHEN $8 AND NOT enabled THEN NULL ELSE next_attempt_at END,
              updated_at = now()
        WHERE id = $1 AND enterprise_id = $2
      RETURNING ${ENDPOINT_COLUMNS}`,
        [
          id,
          enterpriseId,
          changes.url ?? null,
          changes.types !== undefined,
          changes.types ?? [],
          changes.description !== undefined,
          changes.description ?? null,
          changes.enabled ?? null,
        ],
      );
      const updated = presentWebhookEndpoint(this.only(rows, id));
      await this.audit(db, enterpriseId, actor, 'webhook_endpoint.updated', id, {
        fields: Object.keys(changes).sort(),
      });
      return updated;
    });
  }

  async remove(enterpriseId: string, id: string, actor: AuditActor): Promise<void> {
    await this.own(enterpriseId, id);
    await this.dataSource.transaction(async (db) => {
      await db.query(`DELETE FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2`, [id, enterpriseId]);
      await this.audit(db, enterpriseId, actor, 'webhook_endpoint.deleted', id);
    });
  }

  /** The endpoint's audit event, in the action's transaction. */
  private audit(
    db: SqlExecutor,
    enterpriseId: string,
    actor: AuditActor,
    action:
      | 'webhook_endpoint.created'
      | 'webhook_endpoint.updated'
      | 'webhook_endpoint.deleted'
      | 'webhook_endpoint.secret_rotated'
      | 'webhook_endpoint.replayed',
    id: string,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    this.retention.afterAudit();
    return recordAudit(db, enterpriseId, actor, { action, targetType: 'webhook_endpoint', targetId: id, details });
  }

  /**
   * A new secret; the old one keeps signing alongside it for the overlap. Written on `db` (the
   * transaction of an `Idempotency-Key`, when there is one); what it returns holds the new secret
   * encrypted, as `insert` does: `reveal` gives the answer.
   */
  async rotateSecret(
    enterpriseId: string,
    id: string,
    actor: AuditActor,
    db: SqlExecutor = this.dataSource,
  ): Promise<CreatedEndpoint> {
    if (db instanceof DataSource)
      return db.transaction((manager) => this.rotateSecret(enterpriseId, id, actor, manager));
    await this.own(enterpriseId, id, db);
    const secretEncrypted = this.cipher.encrypt(newWebhookSecret());
    const rows = await selectRows<WebhookEndpointRow>(
      db,
      `UPDATE webhook_endpoints
          SET previous_secret_encrypted = secret_encrypted,
              previous_secret_expires_at = now() + interval '${ROTATION_OVERLAP}',
              secret_encrypted = $3, updated_at = now()
        WHERE id = $1 AND enterprise_id = $2
      RETURNING ${ENDPOINT_COLUMNS}`,
      [id, enterpriseId, secretEncrypted],
    );
    const record = presentWebhookEndpoint(this.only(rows, id));
    await this.audit(db, enterpriseId, actor, 'webhook_endpoint.secret_rotated', id);
    return { record, secretEncrypted };
  }

  /**
   * Delivers again from a feed cursor of this enterprise: the stream moves there, its failures are
   * forgotten, and the entries sent again carry new webhook ids (a replay is a new delivery).
   */
  async replay(
    enterpriseId: string,
    id: string,
    body: unknown,
    actor: AuditActor,
    db: SqlExecutor = this.dataSource,
  ): Promise<WebhookEndpointRecord> {
    if (db instanceof DataSource)
      return db.transaction((manager) => this.replay(enterpriseId, id, body, actor, manager));
    const endpoint = await this.own(enterpriseId, id, db);
    const position = await this.replayPosition(bodyObject(body), enterpriseId, endpoint.types, db);
    const rows = await selectRows<WebhookEndpointRow>(
      db,
      `UPDATE webhook_endpoints
          SET cursor_xid = $3::bigint, cursor_seq = $4::bigint, generation = generation + 1,
              failures = 0, failing_since = NULL, next_attempt_at = NULL, updated_at = now()
        WHERE id = $1 AND enterprise_id = $2
      RETURNING ${ENDPOINT_COLUMNS}`,
      [id, enterpriseId, position.xid.toString(), position.seq.toString()],
    );
    const replayed = presentWebhookEndpoint(this.only(rows, id));
    const from = bodyObject(body).from_beginning === true ? 'beginning' : 'cursor';
    await this.audit(db, enterpriseId, actor, 'webhook_endpoint.replayed', id, { from });
    return replayed;
  }

  /**
   * Where a replay starts: the beginning of the enterprise's changes (`from_beginning: true`), or
   * a feed cursor's position. A cursor under a key the service has retired is 410, as in the feed;
   * any other cursor that does not decode is 422.
   */
  private async replayPosition(
    input: Record<string, unknown>,
    enterpriseId: string,
    types: readonly string[],
    db: SqlExecutor,
  ): Promise<ChangePosition> {
    const { cursor, from_beginning: fromBeginning } = input;
    const noCursor = cursor === undefined || cursor === null || cursor === '';
    if (fromBeginning !== undefined && fromBeginning !== null && typeof fromBeginning !== 'boolean') {
      throw new FormValidationException({ from_beginning: [WebhookInputMessages.fromBeginning] });
    }
    if (fromBeginning === true) {
      if (!noCursor) throw new FormValidationException({ cursor: [WebhookInputMessages.cursorOrBeginning] });
      return BEGINNING;
    }
    if (noCursor) throw new FormValidationException({ cursor: [WebhookInputMessages.cursorRequired] });
    if (typeof cursor !== 'string') throw new FormValidationException({ cursor: [WebhookInputMessages.cursorInvalid] });
    const decoded = this.position(cursor, enterpriseId, types);
    if (decoded instanceof UnknownCursorKeyError) {
      const known = await selectRows(db, `SELECT 1 FROM cursor_keys WHERE key_id = $1`, [decoded.keyId]);
      if (known.length > 0) throw new GoneException({ message: WebhookInputMessages.cursorRetired });
    }
    if (decoded === undefined || decoded instanceof UnknownCursorKeyError) {
      throw new FormValidationException({ cursor: [WebhookInputMessages.cursorInvalid] });
    }
    return decoded;
  }

  /**
   * The position of a feed cursor of this enterprise: one of the feed read with the endpoint's
   * types, or with every type (as `GET /changes/cursor` gives). Positions are shared by every
   * type, so either is a place to deliver again from. A cursor under a key this process does not
   * have answers that error, for the caller to tell a retired key from a made-up one.
   */
  private position(
    cursor: string,
    enterpriseId: string,
    types: readonly string[],
  ): ChangePosition | UnknownCursorKeyError | undefined {
    let unknownKey: UnknownCursorKeyError | undefined;
    for (const candidate of [typesOf(types), [...CHANGE_TYPES]]) {
      try {
        return this.cursors.decode(cursor, enterpriseId, candidate);
      } catch (error) {
        if (error instanceof UnknownCursorKeyError) unknownKey = error;
        else if (!(error instanceof InvalidCursorError)) throw error;
      }
    }
    return unknownKey;
  }

  /** The endpoint's attempts of the last 7 days, newest first, a page at a time. */
  async deliveries(enterpriseId: string, id: string, page: number): Promise<Page<WebhookDeliveryRecord>> {
    await this.own(enterpriseId, id);
    const { offset } = pageRequest(page);
    const recent = `enterprise_id = $1 AND endpoint_id = $2 AND created_at >= now() - interval '${DELIVERIES_KEPT}'`;
    const [count] = await selectRows<{ total: number }>(
      this.dataSource,
      `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${recent}`,
      [enterpriseId, id],
    );
    const rows = await selectRows<WebhookDeliveryRow>(
      this.dataSource,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${recent}
        ORDER BY ${NEWEST_FIRST} LIMIT $3 OFFSET $4`,
      [enterpriseId, id, PAGE_SIZE, offset],
    );
    return { records: rows.map(presentWebhookDelivery), total: count?.total ?? 0 };
  }

  /** The endpoint if it is the enterprise's: 404 when there is none, 403 when it is another's. */
  private async own(
    enterpriseId: string,
    id: string,
    db: SqlExecutor = this.dataSource,
  ): Promise<WebhookEndpointRow & { enterprise_id: string }> {
    const [row] = await selectRows<WebhookEndpointRow & { enterprise_id: string }>(
      db,
      `SELECT enterprise_id, ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1 AND enterprise_id = $2`,
      [id, enterpriseId],
    );
    return row ?? refuseRecordNotOwned(db, 'webhook_endpoints', WEBHOOK_ENDPOINT_MODEL, id);
  }

  private only(result: unknown, id: string): WebhookEndpointRow {
    const rows = (Array.isArray(result) && Array.isArray(result[0]) ? result[0] : result) as WebhookEndpointRow[];
    const [row] = rows;
    // Deleted between the check and the write.
    if (!row) throw new RecordNotFoundException(WEBHOOK_ENDPOINT_MODEL, id);
    return row;
  }

  /** The body's fields, or 422; a url is refused when its host resolves to an internal address. */
  private async validated(body: unknown, mode: 'create' | 'update'): Promise<EndpointChanges> {
    const allowPrivate = this.config.webhooks.allowPrivateUrls;
    const { changes, errors } = readEndpointInput(body, mode, allowPrivate);
    // With private addresses allowed, whatever the name resolves to is allowed: nothing to check.
    if (!allowPrivate && changes.url !== undefined && errors.url === undefined) {
      try {
        await allowedAddresses(new URL(changes.url).hostname, allowPrivate, (host) => this.resolver.resolve(host));
      } catch (error) {
        errors.url = [
          error instanceof RefusedAddressError ? WebhookInputMessages.urlPrivate : WebhookInputMessages.urlUnresolved,
        ];
      }
    }
    if (Object.keys(errors).length > 0) throw new FormValidationException(errors);
    return changes;
  }
}
