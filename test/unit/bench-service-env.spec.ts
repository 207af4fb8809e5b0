import { describe, expect, it } from '@jest/globals';
import { extraServiceEnv } from '../../bench/lib/scenarios.js';

describe('BENCH_SERVICE_ENV', () => {
  it('reads NAME=value pairs, values may hold = and be empty', () => {
    expect(extraServiceEnv(' DATABASE_POOL_MAX_PER_ENTERPRISE=10, A_B=x=y ,EMPTY=')).toEqual({
      DATABASE_POOL_MAX_PER_ENTERPRISE: '10',
      A_B: 'x=y',
      EMPTY: '',
    });
    expect(extraServiceEnv('')).toEqual({});
  });

  it('stops at a malformed entry instead of dropping it', () => {
    expect(() => extraServiceEnv('DATABASE_POOL_MAX=10,pool')).toThrow('BENCH_SERVICE_ENV: pool is not NAME=value');
    expect(() => extraServiceEnv('lower=1')).toThrow('is not NAME=value');
  });
});
