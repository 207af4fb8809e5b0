import { isoTimestamp } from '../common/http/iso-timestamp.js';

/** A webhook endpoint as the API answers it; `secret` only in the answers that make one. */
export interface WebhookEndpointRecord {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  /** Failed attempts in a row (0 while deliveries succeed). */
  failures: number;
  failing_since: string | null;
  /** When the next attempt is due after a failure (null: as soon as there is something to send). */
  next_attempt_at: string | null;
  /** While failing: the last failed attempt's reason and HTTP status (null when none was answered). */
  last_error: string | null;
  last_status_code: number | null;
  /** The user who created it (null: created before this was recorded, or that user was removed). */
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointWithSecret extends WebhookEndpointRecord {
  secret: string;
}

export interface WebhookEndpointRow {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  failures: number;
  failing_since: Date | null;
  next_attempt_at: Date | null;
  last_error: string | null;
  last_status_code: number | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

/**
 * The newest failed attempt of the endpoint (`webhook_endpoints` unaliased), while it is failing:
 * a failed attempt is the one with an `error` (a round stops at its first failure, so no two
 * failures share a moment).
 */
const lastFailed = (column: string) =>
  `CASE WHEN webhook_endpoints.failures > 0 THEN (SELECT d.${column} FROM webhook_deliveries d
     WHERE d.endpoint_id = webhook_endpoints.id AND d.enterprise_id = webhook_endpoints.enterprise_id
       AND d.error IS NOT NULL ORDER BY d.created_at DESC LIMIT 1) END`;

/**
 * The columns a WebhookEndpointRow is read from (from `webhook_endpoints`, unaliased, also in a
 * RETURNING): the last failure comes from the newest attempt, through its index.
 */
export const ENDPOINT_COLUMNS =
  'id, url, types, description, enabled, disabled_reason, failures, failing_since, next_attempt_at, ' +
  `${lastFailed('error')} AS last_error, ${lastFailed('status_code')} AS last_status_code, created_by, created_at, updated_at`;

export function presentWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failures: row.failures,
    failing_since: row.failing_since === null ? null : isoTimestamp(row.failing_since),
    next_attempt_at: row.next_attempt_at === null ? null : isoTimestamp(row.next_attempt_at),
    last_error: row.last_error,
    last_status_code: row.last_status_code,
    created_by: row.created_by,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** One attempt of the deliveries list. */
export interface WebhookDeliveryRecord {
  id: string;
  webhook_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  duration_ms: number;
  created_at: string;
}

export interface WebhookDeliveryRow extends Omit<WebhookDeliveryRecord, 'created_at'> {
  created_at: Date;
}

export const DELIVERY_COLUMNS =
  'id, webhook_id, event_type, attempt, status_code, error, response_body, duration_ms, created_at';

export function presentWebhookDelivery(row: WebhookDeliveryRow): WebhookDeliveryRecord {
  return { ...row, created_at: isoTimestamp(row.created_at) };
}
