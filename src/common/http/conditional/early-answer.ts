import { HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Ends a read as soon as its version is known, before any row is read: thrown by the read,
 * answered by the exception filter through `send` (a 304, or a page already kept). Not an error:
 * the filter sends it as it is and logs nothing.
 */
export abstract class EarlyAnswer extends HttpException {
  abstract send(reply: FastifyReply): void;
}
