import { describe, expect, it } from '@jest/globals';
import { BearerStrategy } from '../../src/auth/bearer.strategy.js';
import type { TokenService } from '../../src/auth/token.service.js';
import { authenticateWith } from '../../src/common/access/token-strategy.js';

const USER = { id: 'u1', name: 'Ann', email: 'ann@example.test', tokenId: 't1' };

/** A strategy over a token service that knows one token, recording what it was asked. */
function strategyKnowing(token: string, fault?: unknown) {
  const asked: [string, string | undefined][] = [];
  const tokens = {
    resolve: (plaintext: string, enterpriseId?: string) => {
      asked.push([plaintext, enterpriseId]);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a non-Error rejection is a case under test
      if (fault !== undefined) return Promise.reject(fault);
      return Promise.resolve(plaintext === token ? USER : undefined);
    },
  } as unknown as TokenService;
  return { strategy: new BearerStrategy(tokens), asked };
}

describe('the passport bearer strategy as the access guard runs it', () => {
  it('resolves the Authorization header token, with the enterprise the header names', async () => {
    const { strategy, asked } = strategyKnowing('abc');
    const request = { headers: { authorization: 'bEaReR abc' }, enterpriseId: 'e1' };
    await expect(authenticateWith(strategy, request)).resolves.toEqual(USER);
    expect(asked).toEqual([['abc', 'e1']]);
  });

  it.each([
    ['no header', {}],
    ['another scheme', { authorization: 'Basic abc' }],
    ['two spaces', { authorization: 'Bearer  abc' }],
    ['an extra word', { authorization: 'Bearer abc extra' }],
    ['an empty token', { authorization: 'Bearer ' }],
    ['an unknown token', { authorization: 'Bearer nope' }],
  ])('is no user (never an answer of its own) with %s', async (_name, headers) => {
    const { strategy } = strategyKnowing('abc');
    await expect(authenticateWith(strategy, { headers, enterpriseId: undefined })).resolves.toBeNull();
  });

  it('is handed no query string or body, so an access_token there is never read', async () => {
    const { strategy, asked } = strategyKnowing('abc');
    // What passport-http-bearer would read if the guard passed the request itself.
    const request = { headers: {}, enterpriseId: undefined, query: { access_token: 'abc' } };
    await expect(authenticateWith(strategy, request)).resolves.toEqual(USER);
    expect(asked).toEqual([['abc', undefined]]);
    // The guard builds the request it hands over from the headers and the enterprise id alone.
    const { strategy: guarded, asked: none } = strategyKnowing('abc');
    const { headers, enterpriseId } = request;
    await expect(authenticateWith(guarded, { headers, enterpriseId })).resolves.toBeNull();
    expect(none).toEqual([]);
  });

  it('rejects with what failed when the look-up fails (a database fault stays a 503, not a 401)', async () => {
    const fault = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(
      authenticateWith(strategyKnowing('abc', fault).strategy, {
        headers: { authorization: 'Bearer abc' },
        enterpriseId: undefined,
      }),
    ).rejects.toBe(fault);
    const odd = { code: '57P01' };
    const rejection = authenticateWith(strategyKnowing('abc', odd).strategy, {
      headers: { authorization: 'Bearer abc' },
      enterpriseId: undefined,
    });
    await expect(rejection).rejects.toMatchObject({ cause: odd });
  });
});
