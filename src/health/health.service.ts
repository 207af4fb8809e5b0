import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RateLimitStorage, type RedisState } from '../common/rate-limit/rate-limit.storage.js';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  database: 'up' | 'down';
  /** Only when REDIS_URL is set: the shared rate-limit store. */
  redis?: 'up' | 'down';
  message?: string;
}

const PROBE_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly rateLimits: RateLimitStorage,
  ) {}

  async report(): Promise<HealthReport> {
    const up = await this.databaseAnswers();
    const redis = this.redisPart(this.rateLimits.redisState);
    return up
      ? { status: 'ok', database: 'up', ...redis }
      : { status: 'unavailable', database: 'down', ...redis, message: 'The database is not answering.' };
  }

  private redisPart(state: RedisState): Pick<HealthReport, 'redis'> {
    return state === 'not configured' ? {} : { redis: state };
  }

  private async databaseAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    const probe = this.dataSource
      .query('SELECT 1')
      .then(() => true)
      .catch(() => false);
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
