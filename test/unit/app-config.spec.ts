import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';
import { ConfigError } from '../../src/config/config-error.js';

const KEY = `base64:${Buffer.alloc(32, 1).toString('base64')}`;
const HEX_KEY = 'ab'.repeat(32);
const PG = 'postgres://postgres@127.0.0.1:5432/app';

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({ DATABASE_URL: PG, APP_KEY: KEY });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: PG,
      redisUrl: undefined,
      rateLimitPerMinute: 60,
      trustProxy: false,
      migrationsRun: true,
      logLevel: 'info',
      v1LegacyUserLookup: false,
      webConcurrency: 1,
      databasePreparedStatements: true,
      pageCacheMegabytes: 16,
      recordCacheMegabytes: 8,
      databasePoolMax: 10,
      databasePoolMaxPerEnterprise: 5,
      databaseLockTimeoutMs: 3000,
    });
    expect(config.webhooks).toMatchObject({ yieldAtRequests: 16, yieldAtMostMs: 10_000 });
  });

  it('keeps each enterprise to a share of the pool below its size, and has no bulkhead on one connection', () => {
    const base = { DATABASE_URL: PG, APP_KEY: KEY };
    expect(loadConfig({ ...base, DATABASE_POOL_MAX: '7' }).databasePoolMaxPerEnterprise).toBe(4);
    expect(loadConfig({ ...base, DATABASE_POOL_MAX_PER_ENTERPRISE: '8' }).databasePoolMaxPerEnterprise).toBe(8);
    expect(() => loadConfig({ ...base, DATABASE_POOL_MAX_PER_ENTERPRISE: '11' })).toThrow(
      "Invalid configuration: DATABASE_POOL_MAX_PER_ENTERPRISE must be at most the pool's size (10).",
    );
    expect(loadConfig({ ...base, DATABASE_POOL_MAX: '1' }).databasePoolMaxPerEnterprise).toBeUndefined();
    const dir = mkdtempSync(join(tmpdir(), 'fi-config-'));
    expect(loadConfig({ DATA_DIR: dir }).databasePoolMaxPerEnterprise).toBeUndefined();
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: PG,
      REDIS_URL: 'redis://127.0.0.1:6379',
      APP_KEY: HEX_KEY,
      APP_PREVIOUS_KEYS: `${KEY}, ${'cd'.repeat(32)}`,
      APP_URL: 'https://api.example.com/',
      SIGNPROVIDER_A_SECRET: 'shh',
      RATE_LIMIT_PER_MINUTE: '120',
      TRUST_PROXY: 'true',
      MIGRATIONS_RUN: 'false',
      LOG_LEVEL: 'debug',
      V1_LEGACY_USER_LOOKUP: '1',
      DATABASE_PREPARED_STATEMENTS: 'no',
      PAGE_CACHE_MB: '0',
      RECORD_CACHE_MB: '0',
    });
    expect(config.port).toBe(8080);
    expect(config.encryptionKeys).toHaveLength(3);
    expect(config.encryptionKeys[0]?.toString('hex')).toBe(HEX_KEY);
    expect(config.appUrl).toBe('https://api.example.com');
    expect(config.signProviderASecret).toBe('shh');
    expect(config.rateLimitPerMinute).toBe(120);
    expect(config.trustProxy).toBe(true);
    expect(config.migrationsRun).toBe(false);
    expect(config.v1LegacyUserLookup).toBe(true);
    expect(config.databasePreparedStatements).toBe(false);
    expect(config.pageCacheMegabytes).toBe(0);
    expect(config.recordCacheMegabytes).toBe(0);
  });

  it.each([
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT must be a port number.'],
    [
      { PAGE_CACHE_MB: 'lots' },
      'Invalid configuration: PAGE_CACHE_MB must be a whole number of megabytes (0 turns the page cache off).',
    ],
    [{ PAGE_CACHE_MB: '5000' }, 'Invalid configuration: PAGE_CACHE_MB must be between 0 and 4096.'],
    [
      { RECORD_CACHE_MB: '-1' },
      'Invalid configuration: RECORD_CACHE_MB must be a whole number of megabytes (0 turns the record cache off).',
    ],
    [{ RECORD_CACHE_MB: '65' }, 'Invalid configuration: RECORD_CACHE_MB must be between 0 and 64.'],
    [{ DATABASE_LOCK_TIMEOUT_MS: '0' }, 'Invalid configuration: DATABASE_LOCK_TIMEOUT_MS must be between 1 and 60000.'],
    [
      { DATABASE_POOL_MAX_PER_ENTERPRISE: 'half' },
      'Invalid configuration: DATABASE_POOL_MAX_PER_ENTERPRISE must be a whole number.',
    ],
    [{ PORT: '70000' }, 'Invalid configuration: PORT must be between 0 and 65535.'],
    [{ WEBHOOK_YIELD_REQUESTS: 'many' }, 'Invalid configuration: WEBHOOK_YIELD_REQUESTS must be a whole number.'],
    [{ WEBHOOK_YIELD_MAX_MS: '300001' }, 'Invalid configuration: WEBHOOK_YIELD_MAX_MS must be between 0 and 300000.'],
    [{ DATABASE_URL: 'mysql://x' }, 'Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL.'],
    [{ REDIS_URL: 'http://x' }, 'Invalid configuration: REDIS_URL must be a redis:// or rediss:// URL.'],
    [{ APP_URL: 'ftp://x' }, 'Invalid configuration: APP_URL must be an http:// or https:// URL.'],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, 'Invalid configuration: RATE_LIMIT_PER_MINUTE must be between 1 and 1000000.'],
    [{ TRUST_PROXY: 'maybe' }, 'Invalid configuration: TRUST_PROXY must be true or false.'],
    [{ MIGRATIONS_RUN: 'sometimes' }, 'Invalid configuration: MIGRATIONS_RUN must be true or false.'],
    [
      { DATABASE_PREPARED_STATEMENTS: 'off' },
      'Invalid configuration: DATABASE_PREPARED_STATEMENTS must be true or false.',
    ],
    [{ V1_LEGACY_USER_LOOKUP: '2' }, 'Invalid configuration: V1_LEGACY_USER_LOOKUP must be true or false.'],
    [
      { LOG_LEVEL: 'loud' },
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.',
    ],
    [
      { APP_KEY: 'short' },
      'Invalid configuration: APP_KEY must be 32 bytes written as base64:<base64> or 64 hex characters.',
    ],
    [
      { APP_PREVIOUS_KEYS: `${KEY},nope` },
      'Invalid configuration: APP_PREVIOUS_KEYS must be 32 bytes written as base64:<base64> or 64 hex characters.',
    ],
  ])('rejects %j with one line naming the variable', (override, message) => {
    const load = () => loadConfig({ DATABASE_URL: PG, APP_KEY: KEY, ...override });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(message);
    expect(message).not.toContain('\n');
  });

  it('refuses DATABASE_URL without APP_KEY', () => {
    expect(() => loadConfig({ DATABASE_URL: PG })).toThrow(
      'Invalid configuration: APP_KEY is required when DATABASE_URL is set',
    );
  });

  it('refuses several workers on the embedded database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fi-config-'));
    expect(() => loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '2' })).toThrow(
      'WEB_CONCURRENCY above 1 needs DATABASE_URL',
    );
  });

  it('generates the embedded key once and keeps it beside the data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fi-config-'));
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    expect(first.databaseUrl).toBeUndefined();
    expect(first.databasePoolMax).toBe(1);
    expect(first.encryptionKeys[0]?.length).toBe(32);
    expect(second.encryptionKeys[0]?.equals(first.encryptionKeys[0] ?? Buffer.alloc(0))).toBe(true);
    expect(readFileSync(join(dir, 'app-key'), 'utf8')).toMatch(/^base64:/);
  });
});
