import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { lsnFromKey, lsnKey, type Lsn } from './lsn.js';

/** Whose reads must see a write: a user, in one enterprise. */
export interface ReadScope {
  readonly userId: string;
  readonly enterpriseId: string;
}

/**
 * The WAL position of each user's last write per enterprise, so that user's next reads go to a
 * replica only once it has replayed that far. A position is kept only as long as it can matter:
 * a replica serving at all is at most the lag bound behind, so after `ttlMs` (well above it) every
 * replica in use has replayed it. In-process, or in Redis when configured so every instance knows.
 */
export interface WritePositions {
  /** Keeps `lsn` unless a later position is kept already. */
  raise(scope: ReadScope, lsn: Lsn): Promise<void>;
  /** The position to wait for, or undefined (no recent write). Throws when it cannot tell. */
  get(scope: ReadScope): Promise<Lsn | undefined>;
}

const MAX_SCOPES = 100_000;

export class MemoryWritePositions implements WritePositions {
  private readonly positions: LRUCache<string, string>;

  constructor(ttlMs: number) {
    this.positions = new LRUCache<string, string>({ max: MAX_SCOPES, ttl: ttlMs });
  }

  raise(scope: ReadScope, lsn: Lsn): Promise<void> {
    const key = scopeKey(scope);
    const kept = this.positions.get(key);
    const next = lsnKey(lsn);
    if (kept === undefined || kept < next) this.positions.set(key, next);
    return Promise.resolve();
  }

  get(scope: ReadScope): Promise<Lsn | undefined> {
    const kept = this.positions.get(scopeKey(scope));
    return Promise.resolve(kept === undefined ? undefined : lsnFromKey(kept));
  }
}

/** Raise only: two instances answering the same user's writes never lower the position. */
const RAISE_SCRIPT = `
local kept = redis.call('GET', KEYS[1])
if not kept or kept < ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

export class RedisWritePositions implements WritePositions {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  async raise(scope: ReadScope, lsn: Lsn): Promise<void> {
    await this.redis.eval(RAISE_SCRIPT, 1, this.key(scope), lsnKey(lsn), this.ttlMs);
  }

  async get(scope: ReadScope): Promise<Lsn | undefined> {
    const kept = await this.redis.get(this.key(scope));
    return kept === null ? undefined : lsnFromKey(kept);
  }

  private key(scope: ReadScope): string {
    return `${this.prefix}read-your-writes:${scopeKey(scope)}`;
  }
}

function scopeKey(scope: ReadScope): string {
  return `${scope.userId}:${scope.enterpriseId}`;
}
