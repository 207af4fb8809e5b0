import type { ApiVersion } from './api-version.js';

/** The fixed texts of the error bodies (docs/api-guide.md#errors). */
export const ErrorMessages = {
  unauthenticated: 'Unauthenticated.',
  invalidCredentials: 'Invalid credentials.',
  forbidden: 'Forbidden.',
  registrationDisabled: 'Registration is disabled. Accounts are created by an administrator.',
  tooManyAttempts: 'Too Many Attempts.',
  serverError: 'Server Error',
  malformedJson: 'Malformed JSON in request body.',
  payloadTooLarge: 'The request body is larger than 1 MiB.',
  unsupportedMediaType: 'The request body must be JSON (Content-Type: application/json).',
  invalidData: 'The given data was invalid.',
  serviceUnavailable: 'The service is temporarily unavailable.',
  enterpriseBusy: 'Too many requests of this enterprise are in progress; try again shortly.',
  invalidHost: 'The Host header is not a valid host name.',
  invalidForwardedProto: 'The X-Forwarded-Proto header must be http or https.',
  enterpriseHeaderRequired: (version: ApiVersion): string =>
    `The ${version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id'} header is required.`,
  routeNotFound: (path: string): string => `The route ${path} could not be found.`,
  recordNotFound: (model: string, id: string): string => `No query results for model [${model}] ${id}`,
  methodNotAllowed: (method: string, route: string, allowed: readonly string[]): string =>
    `The ${method} method is not supported for route ${route}. Supported methods: ${allowed.join(', ')}.`,
} as const;
