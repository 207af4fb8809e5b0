import { BadRequestException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ErrorMessages } from './error-messages.js';
import { PageEnvelope } from './envelopes.js';
import { routePath } from './request-path.js';

export const PAGE_SIZE = 100;

/**
 * `page` missing, non-numeric or below 1 means 1. Any number of digits is a number: a page past
 * the last one is an empty page however large it is, the largest told as
 * Number.MAX_SAFE_INTEGER (the page it answers with has no records either way).
 */
export function parsePage(value: unknown): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return 1;
  const page = Math.min(Number(value), Number.MAX_SAFE_INTEGER);
  return page >= 1 ? page : 1;
}

export interface PageRequest {
  readonly page: number;
  readonly limit: number;
  readonly offset: number;
}

export function pageRequest(page: number): PageRequest {
  return { page, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE };
}

/** A DNS name (labels of letters, digits, `-` and `_`), an IPv4 address or a bracketed IPv6 one, and a port. */
const HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/** The host a client named (Host, or X-Forwarded-Host with TRUST_PROXY), when it is one. */
export function validHost(host: string | undefined): boolean {
  if (host === undefined || host.length > 261) return false;
  const match = HOST.exec(host);
  return match !== null && (match[1] === undefined || Number(match[1]) <= 65535);
}

/**
 * `protocol://host` of the request, from what the client (or with TRUST_PROXY the proxy) sent:
 * only http or https and a valid host go into links; anything else is a 400 rather than a link
 * that points somewhere else or runs script.
 */
function requestOrigin(request: FastifyRequest): string {
  const protocol = request.protocol.toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') {
    throw new BadRequestException({ message: ErrorMessages.invalidForwardedProto });
  }
  const host = request.host as string | undefined;
  if (!validHost(host)) throw new BadRequestException({ message: ErrorMessages.invalidHost });
  return `${protocol}://${host}`;
}

/** The absolute URL of the list, without query: APP_URL when set, else the request's own. */
export function listUrl(request: FastifyRequest, appUrl: string | undefined): string {
  // The links name the list as the router matches it, without a trailing slash.
  const path = routePath(request.url);
  const base = appUrl ?? requestOrigin(request);
  return `${base}${path}`;
}

/** Builds the envelope of a list page (Laravel's LengthAwarePaginator shape, `meta.links` left out). */
export function pageEnvelope<T>(records: T[], total: number, page: number, path: string): PageEnvelope<T> {
  const lastPage = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const from = records.length > 0 ? (page - 1) * PAGE_SIZE + 1 : null;
  const to = from === null ? null : from + records.length - 1;
  const at = (n: number) => `${path}?page=${n}`;
  return new PageEnvelope(
    records,
    {
      first: at(1),
      last: at(lastPage),
      prev: page > 1 ? at(page - 1) : null,
      next: page < lastPage ? at(page + 1) : null,
    },
    { current_page: page, from, to, last_page: lastPage, path, per_page: PAGE_SIZE, total },
  );
}
