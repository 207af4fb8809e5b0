import { ApiProperty } from '@nestjs/swagger';
import { CHANGE_TYPES } from '../changes/change-types.js';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { IntegerField, TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type {
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEndpointWithSecret,
} from './webhook-endpoint.presenter.js';

const TYPES_DESCRIPTION = `Record types sent, of: ${CHANGE_TYPES.join(', ')}. Empty: every type.`;
export const SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{32,}={0,2}$';

@RecordSchema('WebhookEndpoint', "A URL of the enterprise's integration that every change is pushed to.")
export class WebhookEndpointSchema implements WebhookEndpointRecord {
  @UuidField() id!: string;
  @TextField({ format: 'uri', description: 'Where events are sent (https)', example: 'https://crm.example.com/hooks' })
  url!: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...CHANGE_TYPES] },
    description: TYPES_DESCRIPTION,
    example: ['lead', 'person'],
  })
  types!: string[];
  @TextField({ nullable: true, description: 'A note for people', example: 'CRM sync' }) description!: string | null;
  @ApiProperty({ type: 'boolean', description: 'False: nothing is sent until it is enabled again' })
  enabled!: boolean;
  @TextField({ nullable: true, description: 'Why the service disabled it (null when enabled or disabled by a PATCH)' })
  disabled_reason!: string | null;
  @IntegerField({ minimum: 0, description: 'Failed attempts in a row; 0 while deliveries succeed' })
  failures!: number;
  @TimestampField({ nullable: true, description: 'Since when every attempt has failed; null when not failing' })
  failing_since!: string | null;
  @TimestampField({
    nullable: true,
    description: 'When the next attempt is due after a failure; null: as soon as there is a change to send',
  })
  next_attempt_at!: string | null;
  @TextField({
    nullable: true,
    description: 'While failing: why the last attempt failed (as the deliveries list says); null otherwise',
    example: 'HTTP 500',
  })
  last_error!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'While failing: the HTTP status the last attempt was answered with; null when none was',
  })
  last_status_code!: number | null;
  @UuidField({
    nullable: true,
    description:
      'The user who created it; null when created before this was recorded, or that user was removed. The enterprise ' +
      'owns the endpoint: it keeps delivering when that user is deactivated or is no longer an admin',
  })
  created_by!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}

@RecordSchema('WebhookEndpointWithSecret', 'A webhook endpoint and its signing secret, shown only in this answer.')
export class WebhookEndpointWithSecretSchema extends WebhookEndpointSchema implements WebhookEndpointWithSecret {
  @ApiProperty({
    type: 'string',
    pattern: SECRET_PATTERN,
    description: 'The signing secret, for a Standard Webhooks library: shown here only, keep it safe',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

@RecordSchema('WebhookDelivery', 'One attempt to deliver an event to an endpoint.')
export class WebhookDeliverySchema implements WebhookDeliveryRecord {
  @UuidField() id!: string;
  @TextField({
    description: 'The `webhook-id` header: the same on every retry',
    example: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  })
  webhook_id!: string;
  @TextField({ description: 'The event type', example: 'lead.upserted' }) event_type!: string;
  @IntegerField({ minimum: 1, description: 'Attempts at this point of the stream, this one included' })
  attempt!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status answered; null when none was' })
  status_code!: number | null;
  @TextField({ nullable: true, description: 'Why the attempt failed; null when it succeeded' }) error!: string | null;
  @TextField({ nullable: true, description: 'The first 1 KB of the answer body' }) response_body!: string | null;
  @IntegerField({ minimum: 0, description: 'Milliseconds from sending to the end of the answer' })
  duration_ms!: number;
  @TimestampField() created_at!: string;
}
