import 'fastify';
import type { AuthenticatedUser } from '../access/authenticated-user.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the access guard: the user, or null when no valid token came. */
    user?: AuthenticatedUser | null;
    /** Set by the access guard: the header's enterprise, once membership is proven. */
    enterpriseId?: string;
  }
}
