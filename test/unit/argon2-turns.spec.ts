import { availableParallelism } from 'node:os';
import { describe, expect, it } from '@jest/globals';
import { argon2Load, hashPassword, verifyPassword } from '../../src/auth/password-hasher.js';

describe('argon2 work takes turns, one per core', () => {
  it('runs at most one hash or verification per core at once, the rest waiting in order', async () => {
    const cores = Math.max(1, availableParallelism());
    const count = cores * 3 + 1;
    const hashes = Array.from({ length: count }, (_, i) => hashPassword(`password-${i}`));
    // The first turns start on a later tick; each hash takes tens of milliseconds, far longer.
    for (let tick = 0; tick < 100 && argon2Load().running < cores; tick++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(argon2Load()).toEqual({ running: cores, waiting: count - cores });

    let busiest = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        busiest = Math.max(busiest, argon2Load().running);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const made = await Promise.all(hashes);
    const checks = await Promise.all(made.map((hash, i) => verifyPassword(hash, `password-${i}`)));
    sampling = false;
    await sampler;

    expect(checks).toEqual(Array.from({ length: count }, () => true));
    expect(busiest).toBeLessThanOrEqual(cores);
    expect(argon2Load()).toEqual({ running: 0, waiting: 0 });
  });

  it('passes a wrong password as false, through its turn', async () => {
    const hash = await hashPassword('right');
    await expect(verifyPassword(hash, 'wrong')).resolves.toBe(false);
    expect(argon2Load()).toEqual({ running: 0, waiting: 0 });
  });
});
