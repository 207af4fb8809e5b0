import type { ApiVersion } from '../http/api-version.js';

/** Header names per version (spec 4.1); Fastify lower-cases incoming header names. */
export const ENTERPRISE_HEADER: Record<ApiVersion, string> = {
  v1: 'enterpriseid',
  v2: 'x-enterprise-id',
};

/** The same headers as documented (spec 4.1). */
export const ENTERPRISE_HEADER_NAME: Record<ApiVersion, string> = {
  v1: 'EnterpriseID',
  v2: 'X-Enterprise-Id',
};
