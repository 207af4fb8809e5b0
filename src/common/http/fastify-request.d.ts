import 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the token resolver: the user, or null when no valid token came. */
    user?: AuthenticatedUser | null;
    /** Set by the enterprise guard: the header's enterprise, once membership is proven. */
    enterpriseId?: string;
  }
}
