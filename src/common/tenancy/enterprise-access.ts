import { ForbiddenException, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser, EnterpriseRole } from '../access/authenticated-user.js';
import { ErrorMessages } from '../http/error-messages.js';
import { onlyReads } from '../http/read-methods.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { EnterpriseBulkhead, enterBulkhead } from './enterprise-bulkhead.js';
import type { EnterpriseHeader } from './enterprise-header.js';
import { MembershipCheck } from './membership-check.js';

/**
 * Writes of one record let into the database at once per process: one running and the next
 * already waiting on its row lock, so the database hands the record from one writer to the next
 * as soon as the first commits. With one at a time every hand-over waited for the answer to leave
 * the process and the next writer's statements to arrive: ten writers of one lead made 0.7 times
 * the writes a second they made with no queue at all; with two, as many (`npm run bench:compare`,
 * scenario `v2 lead update, one record`). A hot record holds at most this many of its
 * enterprise's places.
 */
export const RECORD_WRITERS_AT_ONCE = 2;

/** The part of the lock bound a write may wait for its place without its locks' wait being shortened. */
const WAIT_LEFT_ALONE = 0.1;

/**
 * The enterprise header names an enterprise the caller belongs to. Missing: 403 naming the
 * header; not a UUID or not a member: 403 Forbidden. On success the request carries the
 * enterprise's id (lower-cased) and, once the token's scope allowed it, a write has a place in
 * the enterprise's bulkhead (given back when its answer is sent).
 */
@Injectable()
export class EnterpriseAccess {
  readonly bulkhead: EnterpriseBulkhead | undefined;
  /**
   * At most RECORD_WRITERS_AT_ONCE writes per record in this process: the writers queued on a
   * record another transaction has locked wait here, holding neither a connection nor a place of
   * their enterprise, so the enterprise's other writes keep their capacity. A writer that waited
   * the lock timeout answers 503 as one that waited on the lock itself does.
   */
  readonly recordGate: EnterpriseBulkhead | undefined;
  private readonly lockTimeoutMs: number;

  constructor(
    private readonly memberships: MembershipCheck,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.lockTimeoutMs = config.databaseLockTimeoutMs;
    const limit = config.databasePoolMaxPerEnterprise;
    this.bulkhead = limit === undefined ? undefined : new EnterpriseBulkhead(limit, config.databaseLockTimeoutMs);
    this.recordGate =
      limit === undefined
        ? undefined
        : new EnterpriseBulkhead(
            RECORD_WRITERS_AT_ONCE,
            config.databaseLockTimeoutMs,
            ErrorMessages.serviceUnavailable,
          );
  }

  /**
   * The membership check: 403 unless the header names an enterprise the user belongs to. Sets
   * the request's enterprise id; answers the user's role there, without a promise when the
   * token's lookup told it already (the usual case: the request path then awaits nothing here).
   * `enterpriseId`: the header's value as an enterprise id (`enterpriseIdOf`), read once per
   * request.
   */
  admit(
    request: FastifyRequest,
    header: EnterpriseHeader,
    enterpriseId: string | undefined,
    user: AuthenticatedUser,
  ): EnterpriseRole | Promise<EnterpriseRole> {
    if (header.value === undefined) {
      throw new ForbiddenException({ message: ErrorMessages.enterpriseHeaderRequired(header.version) });
    }
    if (enterpriseId === undefined) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    const known = user.membership;
    if (known?.enterpriseId === enterpriseId && (!known.member || known.role !== undefined)) {
      return admitted(request, enterpriseId, known.member ? known.role : undefined);
    }
    return this.memberships.roleOf(user.id, enterpriseId).then((role) => admitted(request, enterpriseId, role));
  }

  /**
   * A write's place in its enterprise's bulkhead (given back when its answer is sent), after
   * its record's turn when it names one. A read, or a service without a bulkhead, has nothing to
   * wait for: no promise.
   */
  enter(request: FastifyRequest, enterpriseId: string): Promise<void> | undefined {
    // Reads never wait on another transaction's row locks (PostgreSQL snapshots): they hold a
    // connection only for their own queries, so only writes are bounded per enterprise.
    if (this.bulkhead === undefined || onlyReads(request.method)) return undefined;
    return this.enterWrite(request, enterpriseId, this.bulkhead);
  }

  private async enterWrite(request: FastifyRequest, enterpriseId: string, bulkhead: EnterpriseBulkhead): Promise<void> {
    let waitStarted: number | undefined;
    const recordId = recordIdOf(request);
    if (this.recordGate !== undefined && recordId !== undefined) {
      const queued = enterBulkhead(this.recordGate, request, `${enterpriseId}:${recordId}`);
      if (queued) {
        waitStarted = performance.now();
        await queued;
      }
      stopIfClientLeft(request);
    }
    // A write that waited for its record's turn waits for its enterprise's place only what is left.
    const leftMs =
      waitStarted === undefined ? undefined : Math.max(1, this.lockTimeoutMs - (performance.now() - waitStarted));
    const waiting = enterBulkhead(bulkhead, request, enterpriseId, leftMs);
    if (waiting) {
      waitStarted ??= performance.now();
      await waiting;
    }
    stopIfClientLeft(request);
    if (waitStarted !== undefined) this.takeWaitOffLockBound(request, performance.now() - waitStarted);
  }

  /**
   * The lock bound is the write's in all: its waits for places share it, and a wait of more than a
   * tenth of it is taken off what a row lock may then be waited for. A shorter one is left alone:
   * under load most writes wait a few milliseconds for a place, and bounding their locks costs
   * each a transaction of its own (a quarter fewer writes a second, `npm run bench:compare`). So a
   * write waits for its places and one row lock at most 1.1 times the bound in all.
   */
  private takeWaitOffLockBound(request: FastifyRequest, waitedMs: number): void {
    if (waitedMs <= this.lockTimeoutMs * WAIT_LEFT_ALONE) return;
    request.lockWaitLeftMs = this.lockTimeoutMs - waitedMs;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set when a write waited more than a tenth of the lock bound for its place (its record's
     * turn, its enterprise's bulkhead): what is left of the bound (`DATABASE_LOCK_TIMEOUT_MS`)
     * for the row locks it will wait for (at least 1 ms once it is applied).
     */
    lockWaitLeftMs?: number;
  }
}

/** A member (`role` known) gets the request's enterprise set; anyone else the 403. */
function admitted(request: FastifyRequest, enterpriseId: string, role: EnterpriseRole | undefined): EnterpriseRole {
  if (role === undefined) throw new ForbiddenException({ message: ErrorMessages.forbidden });
  request.enterpriseId = enterpriseId;
  return role;
}

/**
 * A client that went away while its write waited for a place gets nothing: the write is not run
 * (it would take a connection, and wait on the same lock, for nobody).
 */
function stopIfClientLeft(request: FastifyRequest): void {
  if (request.answerClosed === true)
    throw new ServiceUnavailableException({ message: ErrorMessages.serviceUnavailable });
}

/** The record a write names in its path (`:id`), lower-cased; undefined for a create. */
function recordIdOf(request: FastifyRequest): string | undefined {
  const params = request.params as Record<string, unknown> | undefined;
  const id = params?.id;
  return typeof id === 'string' && id !== '' ? id.toLowerCase() : undefined;
}
