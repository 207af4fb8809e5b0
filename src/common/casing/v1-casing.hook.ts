import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { BareRecord, ChangeFeedEnvelope, DataEnvelope, LoginEnvelope, PageEnvelope } from '../http/envelopes.js';
import { toV1Record, toV1Records, type JsonRecord, type RecordCasing } from './v1-casing.js';
import { V1_CASING } from './v1-casing.decorator.js';

const V1_PREFIX = '/api/v1/';

/**
 * The only place v1 differs in shape: controllers return canonical v2 records in envelopes, and
 * on v1 routes this step renames the keys of the records; envelope keys stay. A Fastify
 * hook on v1 answers rather than a Nest interceptor on every route: an interceptor puts each
 * request of either version through an rxjs pipeline, which cost a v2 retrieve about an eighth
 * of its CPU for nothing. Error bodies are not envelopes and are left as they are.
 */
export function caseV1Answers(fastify: FastifyInstance, app: NestFastifyApplication): void {
  let casings: ReadonlyMap<string, RecordCasing> | undefined;
  // Each route's casing, worked out on its first v1 answer.
  const byRoute = new Map<string, RecordCasing | undefined>();
  const casingOfRoute = (route: string): RecordCasing | undefined => {
    if (!byRoute.has(route)) byRoute.set(route, casingOf((casings ??= controllerCasings(app)), route));
    return byRoute.get(route);
  };
  fastify.addHook('preSerialization', (request, _reply, payload, done) => {
    const route = request.routeOptions.url;
    if (!request.url.startsWith(V1_PREFIX) || route === undefined) return done(null, payload);
    done(null, caseBody(payload, casingOfRoute(route)));
  });
}

/** `@V1Casing` of each controller, by the controller's path. */
function controllerCasings(app: NestFastifyApplication): Map<string, RecordCasing> {
  const found = new Map<string, RecordCasing>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const casing = Reflect.getMetadata(V1_CASING, metatype) as RecordCasing | undefined;
      const path = Reflect.getMetadata(PATH_METADATA, metatype) as string | undefined;
      if (casing && path !== undefined) found.set(`${V1_PREFIX}${path.replace(/^\/+|\/+$/g, '')}`, casing);
    }
  }
  return found;
}

function casingOf(casings: ReadonlyMap<string, RecordCasing>, route: string): RecordCasing | undefined {
  for (const [path, casing] of casings) if (route === path || route.startsWith(`${path}/`)) return casing;
  return undefined;
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
  if (body instanceof BareRecord) return toV1Record(body.record as JsonRecord, casing);
  if (body instanceof LoginEnvelope) return new LoginEnvelope(toV1Record(body.user as JsonRecord), body.access_token);
  return body;
}
