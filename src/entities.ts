import { AccessToken } from './auth/access-token.entity.js';
import { AuditEvent } from './audit/audit-event.entity.js';
import { Address } from './contacts/address.entity.js';
import { Email } from './contacts/email.entity.js';
import { PhoneNumber } from './contacts/phone-number.entity.js';
import { KeyCheck } from './crypto/key-check.entity.js';
import { IdempotencyKey } from './idempotency/idempotency-key.entity.js';
import { Enterprise } from './enterprises/enterprise.entity.js';
import { Financial } from './people/entities/financial.entity.js';
import { CursorKey } from './changes/cursor-key.entity.js';
import { TENANT_RESOURCES } from './resources/tenant-resources.js';
import { Membership } from './users/membership.entity.js';
import { SigningDocument } from './webhooks/signing-document.entity.js';
import { TenantCountDelta } from './database/tenant-count-delta.entity.js';
import { TenantRowCount } from './resources/tenant-row-count.entity.js';
import { WebhookDelivery } from './webhook-endpoints/webhook-delivery.entity.js';
import { WebhookEndpoint } from './webhook-endpoints/webhook-endpoint.entity.js';

/** Tables that are not a resource's own: tenants, access, nested rows, signing documents, bookkeeping, webhook endpoints, the audit trail. */
const SUPPORTING_ENTITIES = [
  Enterprise,
  Membership,
  AccessToken,
  Financial,
  PhoneNumber,
  Email,
  Address,
  SigningDocument,
  TenantRowCount,
  TenantCountDelta,
  CursorKey,
  IdempotencyKey,
  KeyCheck,
  WebhookEndpoint,
  WebhookDelivery,
  AuditEvent,
];

/**
 * Every table of the schema but TypeORM's migrations table and change_log (its xid8 column is a
 * type TypeORM cannot declare): the supporting ones and each resource's (its descriptor names it).
 * test/e2e/entities-match-migrations holds them to the migrations.
 */
export const ENTITIES = [...new Set([...SUPPORTING_ENTITIES, ...TENANT_RESOURCES.map((resource) => resource.entity)])];
