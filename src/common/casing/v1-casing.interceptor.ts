import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { map, type Observable } from 'rxjs';
import { apiVersionOf } from '../http/api-version.js';
import { ChangeFeedEnvelope, CursorEnvelope, DataEnvelope, LoginEnvelope, PageEnvelope } from '../http/envelopes.js';
import { toV1Record, toV1Records, type JsonRecord, type RecordCasing } from './v1-casing.js';
import { V1_CASING } from './v1-casing.decorator.js';

/**
 * The only place v1 differs in shape: controllers return canonical v2 records in envelopes,
 * and on v1 routes this step renames the keys of the records (R1, R2). Envelope keys stay.
 */
@Injectable()
export class V1CasingInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (apiVersionOf(request.url) !== 'v1') return next.handle();
    const casing = this.reflector.getAllAndOverride<RecordCasing | undefined>(V1_CASING, [
      context.getHandler(),
      context.getClass(),
    ]);
    return next.handle().pipe(map((body: unknown) => caseBody(body, casing)));
  }
}

function caseBody(body: unknown, casing: RecordCasing | undefined): unknown {
  if (body instanceof PageEnvelope) {
    return new PageEnvelope(toV1Records(body.data as JsonRecord[], casing) as JsonRecord[], body.links, body.meta);
  }
  if (body instanceof DataEnvelope) return new DataEnvelope(toV1Records(body.data as JsonRecord, casing));
  if (body instanceof ChangeFeedEnvelope) {
    // The entries keep their own keys; only the records in them are cased.
    const entries = body.data.map((entry) => ({
      ...entry,
      record: entry.record === null ? null : toV1Record(entry.record as JsonRecord),
    }));
    return new ChangeFeedEnvelope(entries, body.links, body.meta);
  }
  if (body instanceof CursorEnvelope) return body;
  if (body instanceof LoginEnvelope) return new LoginEnvelope(toV1Record(body.user as JsonRecord), body.access_token);
  if (typeof body === 'object' && body !== null) return toV1Record(body as JsonRecord, casing);
  return body;
}
