import { HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Ends a read as soon as its version is known, before any row is read: thrown by the read,
 * answered by the exception filter through `send` (a 304, or a page already kept). Not an error:
 * the filter sends it as it is and logs nothing.
 */
export abstract class EarlyAnswer extends HttpException {
  constructor(message: string, status: number) {
    // No stack trace: nothing reads it, and capturing one was 2-2.5% of the CPU of a kept page
    // or a 304 (profiled).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, status);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }

  abstract send(reply: FastifyReply): void;
}
