import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';

export type ErrorReply = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Nest installs its exception layer as Fastify's error handler during `init()`; this adapter
 * installs the API's own there instead, once. Replacing Nest's after `init()` set a handler twice
 * in one scope, which Fastify warns about (FSTWRN004) at every start.
 */
export class ApiFastifyAdapter extends FastifyAdapter {
  constructor(
    options: FastifyServerOptions,
    private readonly replyToError: ErrorReply,
  ) {
    super(options);
  }

  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance().setErrorHandler(this.replyToError);
  }
}
