import { Injectable } from '@nestjs/common';
import { PoolReader } from '../../database/pool-reader.js';
import { isMember } from './membership-lookup.js';

@Injectable()
export class MembershipService {
  constructor(private readonly db: PoolReader) {}

  isMember(userId: string, enterpriseId: string): Promise<boolean> {
    return isMember(this.db, userId, enterpriseId);
  }
}
