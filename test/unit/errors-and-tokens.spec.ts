import { describe, expect, it } from '@jest/globals';
import { digestsEqual, newSecret, parseToken, sha256Hex } from '../../src/auth/access-token.js';
import { summariseErrors } from '../../src/common/http/validation-failed.exception.js';

describe('422 message composition', () => {
  it.each([
    [{ email: ['The email field is required.'] }, 'The email field is required.'],
    [
      { email: ['The email field is required.'], password: ['The password field is required.'] },
      'The email field is required. (and 1 more error)',
    ],
    [{ a: ['one', 'two'], b: ['three'] }, 'one (and 2 more errors)'],
  ])('%j -> %s', (errors, message) => {
    expect(summariseErrors(errors)).toBe(message);
  });
});

describe('access tokens', () => {
  it('parses <uuid>|<40+ characters> and nothing else', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    const id = '0b5c6c1e-2f5d-4c1e-9a5e-1f2d3c4b5a69';
    expect(parseToken(`${id}|${secret}`)).toEqual({ id, secret });
    for (const bad of [secret, `${id}|short`, `not-a-uuid|${secret}`, `${id}|${secret}!`, `${id}${secret}`, '']) {
      expect(parseToken(bad)).toBeUndefined();
    }
  });

  it('compares digests in constant time and refuses malformed ones', () => {
    const digest = sha256Hex('x');
    expect(digestsEqual(digest, sha256Hex('x'))).toBe(true);
    expect(digestsEqual(digest, sha256Hex('y'))).toBe(false);
    expect(digestsEqual(digest, digest.slice(1))).toBe(false);
  });
});
