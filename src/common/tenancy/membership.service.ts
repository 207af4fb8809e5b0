import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { poolReader } from '../../database/pool-reader.js';
import { isMember } from './membership-lookup.js';

@Injectable()
export class MembershipService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  isMember(userId: string, enterpriseId: string): Promise<boolean> {
    return isMember(poolReader(this.dataSource), userId, enterpriseId);
  }
}
