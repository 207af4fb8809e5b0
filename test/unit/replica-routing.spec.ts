import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';
import { lsnFromKey, lsnKey, parseLsn } from '../../src/database/replicas/lsn.js';
import { PrimaryPositions } from '../../src/database/replicas/replica-lag.js';
import { replicaName } from '../../src/database/replicas/replica-set.js';
import { MemoryWritePositions } from '../../src/database/replicas/write-positions.js';

const KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;

describe('WAL positions', () => {
  it('parse as numbers that compare as the positions do, and keep their order as Redis text', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    const keys = ['0/FFFFFFFF', '1/0', '16/B374D848', 'A/1'].map((text) => lsnKey(parseLsn(text)));
    expect([...keys].sort()).toEqual([keys[0], keys[1], keys[3], keys[2]]);
    expect(lsnFromKey(lsnKey(parseLsn('16/B374D848')))).toBe(parseLsn('16/B374D848'));
    expect(() => parseLsn('not a position')).toThrow();
  });
});

describe('replica lag from sampled primary positions', () => {
  it('is 0 when the replica replayed the latest sample, even if nothing was written for long', () => {
    const primary = new PrimaryPositions(60_000);
    primary.add(0, 100n);
    primary.add(50_000, 100n);
    expect(primary.lagMs(100n, 55_000)).toBe(0);
  });

  it('is the time since the primary first held a position the replica has not replayed', () => {
    const primary = new PrimaryPositions(60_000);
    primary.add(1_000, 100n);
    primary.add(1_250, 200n);
    primary.add(1_500, 300n);
    expect(primary.lagMs(150n, 2_000)).toBe(750);
    expect(primary.lagMs(250n, 2_000)).toBe(500);
    expect(primary.lagMs(50n, 2_000)).toBe(1_000);
  });

  it('is unknown before the first sample', () => {
    expect(new PrimaryPositions(1_000).lagMs(0n, 0)).toBeUndefined();
  });
});

describe('read-your-writes positions in process', () => {
  it('only ever rise, per user and enterprise', async () => {
    const positions = new MemoryWritePositions(60_000);
    const scope = { userId: 'u1', enterpriseId: 'e1' };
    await positions.raise(scope, 200n);
    await positions.raise(scope, 100n);
    expect(await positions.get(scope)).toBe(200n);
    expect(await positions.get({ userId: 'u1', enterpriseId: 'e2' })).toBeUndefined();
    await positions.raise(scope, 300n);
    expect(await positions.get(scope)).toBe(300n);
  });
});

describe('replica configuration', () => {
  const base = { DATABASE_URL: 'postgres://p@primary/db', APP_KEY: KEY };

  it('reads DATABASE_REPLICA_URLS as a list and the lag bound with its default', () => {
    const config = loadConfig({ ...base, DATABASE_REPLICA_URLS: 'postgres://r@one:5433/db, postgresql://r@two/db' });
    expect(config.databaseReplicaUrls).toEqual(['postgres://r@one:5433/db', 'postgresql://r@two/db']);
    expect(config.databaseReplicaMaxLagMs).toBe(1000);
    expect(loadConfig(base).databaseReplicaUrls).toEqual([]);
  });

  it('refuses a URL that is not postgres://, and replicas without a primary', () => {
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_URLS: 'mysql://x/y' })).toThrow(/DATABASE_REPLICA_URLS/);
    expect(() => loadConfig({ APP_KEY: KEY, DATA_DIR: '/tmp/none', DATABASE_REPLICA_URLS: 'postgres://r/db' })).toThrow(
      /DATABASE_REPLICA_URLS needs DATABASE_URL/,
    );
    expect(() => loadConfig({ ...base, DATABASE_REPLICA_MAX_LAG_MS: '0' })).toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
  });

  it('names a replica without its credentials', () => {
    expect(replicaName('postgres://user:secret@db-replica:5433/app')).toBe('db-replica:5433/app');
    expect(replicaName('postgres://user:secret@db-replica/app')).toBe('db-replica:5432/app');
  });
});
