import { ApiProperty } from '@nestjs/swagger';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import type { WebhookAck } from './webhooks.controller.js';

@NamedSchema('WebhookAck', 'The delivery was handled, or safely ignored.')
export class WebhookAckSchema implements WebhookAck {
  @ApiProperty({ type: 'boolean', enum: [true] }) ok!: true;
}
