import type { FastifyRequest } from 'fastify';
import { apiVersionOf, type ApiVersion } from '../http/api-version.js';
import { isUuid } from '../../database/uuid.js';

/** Header names per version; Fastify lower-cases incoming header names. */
export const ENTERPRISE_HEADER: Record<ApiVersion, string> = {
  v1: 'enterpriseid',
  v2: 'x-enterprise-id',
};

/** The same headers as documented. */
export const ENTERPRISE_HEADER_NAME: Record<ApiVersion, string> = {
  v1: 'EnterpriseID',
  v2: 'X-Enterprise-Id',
};

/** A request's enterprise header as sent: its version, and its first value trimmed (undefined when absent or blank). */
export interface EnterpriseHeader {
  readonly version: ApiVersion;
  readonly value: string | undefined;
}

/** The raw enterprise header of a request in its version, first value, trimmed; undefined when absent or blank. */
export function rawEnterpriseHeader(request: FastifyRequest): EnterpriseHeader {
  const version = apiVersionOf(request.url) ?? 'v2';
  const header = request.headers[ENTERPRISE_HEADER[version]];
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  return { version, value: value === '' ? undefined : value };
}

/** The enterprise id the header names, lower-cased, when it is a UUID. */
export function enterpriseIdOf(header: EnterpriseHeader): string | undefined {
  return header.value !== undefined && isUuid(header.value) ? header.value.toLowerCase() : undefined;
}
