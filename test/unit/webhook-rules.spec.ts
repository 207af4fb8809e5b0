import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  providerANextStatus,
  providerAStamp,
  providerBNextStatus,
  type ProviderBStatus,
} from '../../src/webhooks/signing-state.js';
import { firstText, parsePayload } from '../../src/webhooks/webhook-payload.js';
import { base64Signature, hexSignature, signatureMatches } from '../../src/webhooks/webhook-signature.js';

describe('provider A keyword rules', () => {
  it.each([
    ['signed', 'signed'],
    ['document.signed', 'signed'],
    ['DOCUMENT_SIGNED', 'signed'],
    ['completed', 'signed'],
    ['document_completed', 'signed'],
    ['signed_and_sent', 'sent'],
    ['declined', 'declined'],
    ['recipient.declined', 'declined'],
    ['revoked', 'revoked'],
    ['viewed', 'viewed'],
    ['document.viewed', 'viewed'],
    ['sent', 'sent'],
    ['created', 'sent'],
    ['', 'sent'],
  ])('keyword %j moves to %s', (keyword, next) => {
    expect(providerANextStatus(keyword)).toBe(next);
  });

  it('stamps only signed, declined and revoked', () => {
    expect(providerAStamp('signed')).toBe('signed_at');
    expect(providerAStamp('declined')).toBe('declined_at');
    expect(providerAStamp('revoked')).toBe('revoked_at');
    expect(providerAStamp('viewed')).toBeNull();
    expect(providerAStamp('sent')).toBeNull();
  });
});

describe('provider B state table', () => {
  const live: ProviderBStatus[] = ['sent', 'delivered'];
  it.each(
    live.flatMap(
      (from) =>
        [
          [from, 'completed', 'completed'],
          [from, 'declined', 'declined'],
          [from, 'voided', 'voided'],
          [from, 'Completed', 'completed'],
          [from, 'sent', 'sent'],
          [from, 'correct', 'sent'],
        ] as const,
    ),
  )('%s with envelope status %s moves to %s', (from, status, next) => {
    expect(providerBNextStatus(from, status)).toBe(next);
  });

  it('moves sent to delivered, and keeps delivered on a repeated delivered', () => {
    expect(providerBNextStatus('sent', 'delivered')).toBe('delivered');
    expect(providerBNextStatus('delivered', 'delivered')).toBe('delivered');
  });

  it.each(['completed', 'declined', 'voided'] as const)('ignores every event once %s (terminal)', (from) => {
    for (const status of ['sent', 'delivered', 'completed', 'declined', 'voided', 'other']) {
      expect(providerBNextStatus(from, status)).toBeNull();
    }
  });
});

describe('signature comparison', () => {
  const body = Buffer.from('{"documentId":"d-1"}');

  it('matches provider A lowercase hex and provider B base64 exactly', () => {
    expect(hexSignature('s', body)).toBe(createHmac('sha256', 's').update(body).digest('hex'));
    expect(base64Signature('k', body)).toBe(createHmac('sha256', 'k').update(body).digest('base64'));
    expect(signatureMatches(hexSignature('s', body), hexSignature('s', body))).toBe(true);
  });

  it('refuses upper-case hex, truncated, padded, missing and non-hex text of the same length', () => {
    const expected = hexSignature('s', body);
    expect(signatureMatches(expected.toUpperCase(), expected)).toBe(false);
    expect(signatureMatches(expected.slice(0, 63), expected)).toBe(false);
    expect(signatureMatches(`${expected}0`, expected)).toBe(false);
    expect(signatureMatches(undefined, expected)).toBe(false);
    expect(signatureMatches(`${expected.slice(0, 62)}zz`, expected)).toBe(false);
    expect(signatureMatches('', expected)).toBe(false);
  });
});

describe('webhook payloads', () => {
  it('reads only JSON objects', () => {
    expect(parsePayload(Buffer.from('[1]'))).toBeUndefined();
    expect(parsePayload(Buffer.from('"x"'))).toBeUndefined();
    expect(parsePayload(Buffer.from('{bad'))).toBeUndefined();
    expect(parsePayload(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
  });

  it('takes the first present, non-empty value in order', () => {
    const payload = { event: '  ', data: { event: 'viewed' }, status: 'signed' };
    expect(firstText(payload, [['event'], ['data', 'event'], ['status']])).toBe('viewed');
    expect(firstText({ documentId: 42 }, [['documentId']])).toBe('42');
    expect(firstText({ documentId: { x: 1 } }, [['documentId']])).toBeUndefined();
  });
});
