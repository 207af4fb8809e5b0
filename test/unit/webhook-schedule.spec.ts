import { describe, expect, it } from '@jest/globals';
import { isPublicAddress } from '../../src/webhook-endpoints/webhook-address.js';
import {
  FAILURE_WINDOW_MS,
  failureWindowOver,
  MAX_RETRY_MS,
  retryDelayMs,
} from '../../src/webhook-endpoints/webhook-schedule.js';

describe('outbound webhook retry schedule', () => {
  it('retries first within 5 seconds, at half the delay at the least', () => {
    expect(retryDelayMs(1, () => 1)).toBe(5_000);
    expect(retryDelayMs(1, () => 0)).toBe(2_500);
  });

  it('grows each delay 4 times up to 12 hours, and nine retries span about a day', () => {
    const upper = Array.from({ length: 12 }, (_, i) => retryDelayMs(i + 1, () => 1));
    expect(upper.slice(0, 4)).toEqual([5_000, 20_000, 80_000, 320_000]);
    expect(Math.max(...upper)).toBe(MAX_RETRY_MS);
    const typical = Array.from({ length: 9 }, (_, i) => retryDelayMs(i + 1, () => 0.5)).reduce((a, b) => a + b, 0);
    expect(typical / 3_600_000).toBeGreaterThan(18);
    expect(typical / 3_600_000).toBeLessThan(30);
  });

  it('disables after 3 days of failures, not before', () => {
    const since = new Date('2026-01-01T00:00:00.000Z');
    expect(failureWindowOver(since, new Date(since.getTime() + FAILURE_WINDOW_MS - 1))).toBe(false);
    expect(failureWindowOver(since, new Date(since.getTime() + FAILURE_WINDOW_MS))).toBe(true);
  });
});

describe('addresses webhooks may be sent to', () => {
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:192.168.1.1',
    '2002:7f00:1::',
    // IPv4-compatible (::a.b.c.d), NAT64 (well-known and local-use prefixes), 6to4 and Teredo
    // forms of internal addresses.
    '::7f00:1',
    '::127.0.0.1',
    '::a9fe:a9fe',
    '::a00:1',
    '::c0a8:101',
    '64:ff9b::a00:1',
    '64:ff9b:1::7f00:1',
    '2002:a00:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
