import { describe, expect, it } from '@jest/globals';
import { idempotencyKeyOf } from '../../src/idempotency/idempotency-key.js';
import { canonicalJson, requestFingerprint } from '../../src/idempotency/request-fingerprint.js';
import { ResourceValidationException } from '../../src/common/http/validation-failed.exception.js';
import { loadConfig } from '../../src/config/app-config.js';

const BASE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/app', APP_KEY: 'ab'.repeat(32) };

describe('TOKEN_LIFETIME_MINUTES', () => {
  it('is unset by default: login tokens do not expire', () => {
    expect(loadConfig(BASE).tokenLifetimeMinutes).toBeUndefined();
  });
  it('reads whole minutes', () => {
    expect(loadConfig({ ...BASE, TOKEN_LIFETIME_MINUTES: '720' }).tokenLifetimeMinutes).toBe(720);
  });
  it.each([
    ['0', 'Invalid configuration: TOKEN_LIFETIME_MINUTES must be between 1 and 5256000.'],
    ['1.5', 'Invalid configuration: TOKEN_LIFETIME_MINUTES must be a whole number.'],
    ['forever', 'Invalid configuration: TOKEN_LIFETIME_MINUTES must be a whole number.'],
  ])('refuses %j with one line naming the variable', (value, message) => {
    expect(() => loadConfig({ ...BASE, TOKEN_LIFETIME_MINUTES: value })).toThrow(message);
  });
});

describe('Idempotency-Key values', () => {
  it.each([['a'], ['0f9c2c1e-2b7d-4c1a-9a57-1f2e3d4c5b6a'], ['!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'], ['k'.repeat(255)]])(
    'takes %j as it is',
    (key) => {
      expect(idempotencyKeyOf(key)).toBe(key);
    },
  );
  it('is absent when the header is', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
  });
  it.each([[''], ['k'.repeat(256)], ['a b'], ['tab\there'], ['\u00e9'], ['nul\u0000']])('refuses %j', (key) => {
    expect(() => idempotencyKeyOf(key)).toThrow(ResourceValidationException);
  });
});

describe('request fingerprint', () => {
  it('ignores key order at every depth, not values, types or array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    const print = (body: unknown) => requestFingerprint('POST', '/api/v2/leads', body);
    expect(print({ title: 'a', person: 'b' })).toBe(print({ person: 'b', title: 'a' }));
    expect(print({ amount: 1 })).not.toBe(print({ amount: '1' }));
    expect(print([1, 2])).not.toBe(print([2, 1]));
  });
  it('differs by method and path', () => {
    const body = { title: 'a' };
    expect(requestFingerprint('POST', '/api/v2/leads', body)).not.toBe(
      requestFingerprint('PUT', '/api/v2/leads', body),
    );
    expect(requestFingerprint('POST', '/api/v1/leads', body)).not.toBe(
      requestFingerprint('POST', '/api/v2/leads', body),
    );
  });
});
