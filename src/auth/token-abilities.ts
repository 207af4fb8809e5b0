import { TENANT_RESOURCES } from '../resources/tenant-resources.js';
import { writableAtAll, writeAbility } from '../resources/tenant-resource.js';

/**
 * What a token may be limited to: reading records and lists, the change feed, managing webhook
 * endpoints, reading the audit trail and managing the enterprise's tokens (admins only), and writing each writable resource (derived from the descriptors, so
 * a new writable resource has its ability without edits).
 */
export const TOKEN_ABILITIES: readonly string[] = [
  'read',
  'changes:read',
  'webhooks:manage',
  'audit:read',
  'tokens:manage',
  ...TENANT_RESOURCES.filter(writableAtAll).map(writeAbility),
];
