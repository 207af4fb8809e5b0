import { Injectable } from '@nestjs/common';
import { MembershipCheck } from '../common/tenancy/membership-check.js';
import { PoolReader } from '../database/pool-reader.js';
import { isMember } from './membership-lookup.js';

/** Membership from the `memberships` table, through the request path's prepared reads. */
@Injectable()
export class MembershipService extends MembershipCheck {
  constructor(private readonly db: PoolReader) {
    super();
  }

  isMember(userId: string, enterpriseId: string): Promise<boolean> {
    return isMember(this.db, userId, enterpriseId);
  }
}
