import type { FastifyInstance } from 'fastify';
import type { ReadRouter } from '../../database/replicas/read-router.js';
import { onlyReads } from './read-methods.js';

/**
 * With replicas, every answered write of a user in an enterprise keeps the primary's WAL position
 * for that user and enterprise before the answer leaves, so the user's next read (on any
 * instance) is served by a replica only once it has replayed the write. Writes that answered
 * 5xx are kept too: a failure after the commit is possible, and keeping costs one read at most.
 */
export function recordWritePositions(fastify: FastifyInstance, router: ReadRouter): void {
  if (!router.routing) return;
  fastify.addHook('onSend', async (request, _reply, payload) => {
    if (onlyReads(request.method)) return payload;
    const userId = request.user?.id;
    const enterpriseId = request.enterpriseId;
    if (userId && enterpriseId) await router.wrote({ userId, enterpriseId });
    return payload;
  });
}
