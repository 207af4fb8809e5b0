import { InitialSchema1763800000000 } from '../../migrations/1763800000000-initial-schema.js';
import { TenantRowCounts1763900000000 } from '../../migrations/1763900000000-tenant-row-counts.js';
import { KeyCheck1764000000000 } from '../../migrations/1764000000000-key-check.js';
import { ChangeLog1764100000000 } from '../../migrations/1764100000000-change-log.js';
import { ChangeVersions1764150000000 } from '../../migrations/1764150000000-change-versions.js';
import { TokenLifecycle1764200000000 } from '../../migrations/1764200000000-token-lifecycle.js';
import { IdempotencyKeys1764200000001 } from '../../migrations/1764200000001-idempotency-keys.js';
import { InlineChangeCapture1764240000000 } from '../../migrations/1764240000000-inline-change-capture.js';
import { TruncateMovesListVersions1764300000000 } from '../../migrations/1764300000000-truncate-moves-list-versions.js';
import { TenantsNeverWait1764400000000 } from '../../migrations/1764400000000-tenants-never-wait.js';
import { WebhookEndpoints1764500000000 } from '../../migrations/1764500000000-webhook-endpoints.js';
import { FinancialsOwnerIndex1764700000000 } from '../../migrations/1764700000000-financials-owner-index.js';
import { ChangesOncePerTransaction1764800000000 } from '../../migrations/1764800000000-changes-once-per-transaction.js';
import { StoredRecordJson1764900000000 } from '../../migrations/1764900000000-stored-record-json.js';
import { RolesAndTokenScopes1765000000000 } from '../../migrations/1765000000000-roles-and-token-scopes.js';
import { AuditTrail1765100000000 } from '../../migrations/1765100000000-audit-trail.js';
import { TenancyInTheKeys1765200000000 } from '../../migrations/1765200000000-tenancy-in-the-keys.js';
import { PrimaryKeysWithEnterprise1765300000000 } from '../../migrations/1765300000000-primary-keys-with-enterprise.js';
import { EveryRecordHasAnEnterprise1765400000000 } from '../../migrations/1765400000000-every-record-has-an-enterprise.js';

/** Every migration, oldest first. Listed explicitly: no file globbing at run time. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  TenantRowCounts1763900000000,
  KeyCheck1764000000000,
  ChangeLog1764100000000,
  ChangeVersions1764150000000,
  TokenLifecycle1764200000000,
  IdempotencyKeys1764200000001,
  InlineChangeCapture1764240000000,
  TruncateMovesListVersions1764300000000,
  TenantsNeverWait1764400000000,
  WebhookEndpoints1764500000000,
  FinancialsOwnerIndex1764700000000,
  ChangesOncePerTransaction1764800000000,
  StoredRecordJson1764900000000,
  RolesAndTokenScopes1765000000000,
  AuditTrail1765100000000,
  TenancyInTheKeys1765200000000,
  PrimaryKeysWithEnterprise1765300000000,
  EveryRecordHasAnEnterprise1765400000000,
];
