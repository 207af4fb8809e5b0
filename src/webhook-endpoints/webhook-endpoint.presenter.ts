import { isoTimestamp } from '../common/http/iso-timestamp.js';

/** A webhook endpoint as the API answers it; `secret` only in the answers that make one. */
export interface WebhookEndpointRecord {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
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
  created_at: Date;
  updated_at: Date;
}

/** The columns a WebhookEndpointRow is read from. */
export const ENDPOINT_COLUMNS = 'id, url, types, description, enabled, disabled_reason, created_at, updated_at';

export function presentWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpointRecord {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
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
