import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import type { EnterpriseRole } from '../../src/common/access/authenticated-user.js';
import { EnterpriseAccess } from '../../src/common/tenancy/enterprise-access.js';
import { MembershipCheck } from '../../src/common/tenancy/membership-check.js';
import { loadConfig } from '../../src/config/app-config.js';

const BOUND_MS = 1_500;
const ENTERPRISE = 'e0000000-0000-4000-8000-000000000001';

/** Places only: these tests never ask for a role. */
class NoMemberships extends MembershipCheck {
  roleOf(): Promise<EnterpriseRole | undefined> {
    return Promise.resolve(undefined);
  }
}

/** Two writers of a record, two places per enterprise, the given lock bound. */
function access(): EnterpriseAccess {
  const config = loadConfig({
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/app',
    APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`,
    DATABASE_POOL_MAX: '4',
    DATABASE_POOL_MAX_PER_ENTERPRISE: '2',
    DATABASE_LOCK_TIMEOUT_MS: String(BOUND_MS),
  });
  return new EnterpriseAccess(new NoMemberships(), config);
}

/** A PUT of the record `id` (the request fields the places read), and its answer's end. */
function put(id: string): { request: FastifyRequest; answered: () => void } {
  const request = { method: 'PUT', params: { id } } as unknown as FastifyRequest;
  return {
    request,
    answered: () => {
      request.answerClosed = true;
      request.leaveEnterpriseBulkhead?.();
    },
  };
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * A write's waits for its places share the lock bound: its record's turn, then its enterprise's
 * place, then what is left for its row locks. A short wait (a tenth of the bound or less, the
 * usual wait under load) leaves the row locks their whole bound, so such writes run as before.
 */
describe('the lock bound a write waits for its places', () => {
  it('leaves the bound alone after no wait or a short one', async () => {
    const places = access();
    const first = put('a');
    await places.enter(first.request, ENTERPRISE);
    expect(first.request.lockWaitLeftMs).toBeUndefined();
    // Two writers of one enterprise at once: the third waits for a place, briefly.
    const second = put('b');
    await places.enter(second.request, ENTERPRISE);
    const third = put('c');
    const entering = places.enter(third.request, ENTERPRISE);
    await sleep(20);
    first.answered();
    await entering;
    expect(third.request.lockWaitLeftMs).toBeUndefined();
    second.answered();
    third.answered();
  });

  it('gives a write that waited its turn and then its place only what is left of the bound', async () => {
    const places = access();
    // Two writers of record x take the record's two turns and the enterprise's two places.
    const x1 = put('x');
    const x2 = put('x');
    await places.enter(x1.request, ENTERPRISE);
    await places.enter(x2.request, ENTERPRISE);
    // A writer of y waits for a place, and a third writer of x for its turn.
    const y = put('y');
    const yEntering = places.enter(y.request, ENTERPRISE);
    const late = put('x');
    const started = performance.now();
    const lateEntering = Promise.resolve(places.enter(late.request, ENTERPRISE)).then(
      () => 'entered',
      () => 'refused',
    );
    await sleep(BOUND_MS * 0.6);
    // The first writer of x answers: its turn goes to the late writer, its place to y (first in line).
    x1.answered();
    await yEntering;
    // The late writer now waits for a place with 0.4 of the bound left, not a whole bound again
    // (refused at 1.6 times the bound then).
    expect(await lateEntering).toBe('refused');
    expect(performance.now() - started).toBeLessThan(BOUND_MS * 1.3);
    late.answered(); // its 503 is sent: the turn it held goes back
    x2.answered();
    y.answered();

    // Let in after 0.6 of the bound, a writer keeps the rest of it for its row locks.
    const again = put('x');
    const blocker = put('x');
    await places.enter(blocker.request, ENTERPRISE);
    const other = put('x');
    await places.enter(other.request, ENTERPRISE);
    const waited = places.enter(again.request, ENTERPRISE);
    await sleep(BOUND_MS * 0.6);
    blocker.answered();
    await waited;
    // About 0.4 of the bound; a loaded machine's late timers only make it less.
    expect(again.request.lockWaitLeftMs).toBeLessThan(BOUND_MS * 0.45);
    expect(again.request.lockWaitLeftMs).toBeGreaterThan(0);
    other.answered();
    again.answered();
  });
});
