import { Injectable } from '@nestjs/common';
import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { MembershipCheck } from '../common/tenancy/membership-check.js';
import { PoolReader } from '../database/pool-reader.js';
import { roleOf } from './membership-lookup.js';

/** Membership from the `memberships` table, through the request path's prepared reads. */
@Injectable()
export class MembershipService extends MembershipCheck {
  constructor(private readonly db: PoolReader) {
    super();
  }

  roleOf(userId: string, enterpriseId: string): Promise<EnterpriseRole | undefined> {
    return roleOf(this.db, userId, enterpriseId);
  }
}
