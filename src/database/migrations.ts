import { InitialSchema1763800000000 } from '../../migrations/1763800000000-initial-schema.js';
import { TenantRowCounts1763900000000 } from '../../migrations/1763900000000-tenant-row-counts.js';
import { KeyCheck1764000000000 } from '../../migrations/1764000000000-key-check.js';

/** Every migration, oldest first. Listed explicitly: no file globbing at run time. */
export const MIGRATIONS = [InitialSchema1763800000000, TenantRowCounts1763900000000, KeyCheck1764000000000];
