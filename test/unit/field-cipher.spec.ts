import { describe, expect, it } from '@jest/globals';
import { DecryptionError, FieldCipher } from '../../src/crypto/field-cipher.js';

const OLD = Buffer.alloc(32, 1);
const NEW = Buffer.alloc(32, 2);
const OTHER = Buffer.alloc(32, 3);

describe('FieldCipher', () => {
  it('round-trips text, unicode included, with a fresh IV each time', () => {
    const cipher = new FieldCipher([NEW]);
    const a = cipher.encrypt('Zoë 🚗');
    const b = cipher.encrypt('Zoë 🚗');
    expect(a).not.toBe(b);
    // The plaintext is not in the stored text ('ë' cannot appear in base64, so this never
    // matches a random ciphertext by chance, as 'Zo' did once in 70 runs or so).
    expect(a).not.toContain('Zoë');
    expect(cipher.decrypt(a)).toBe('Zoë 🚗');
    expect(cipher.decrypt(b)).toBe('Zoë 🚗');
  });

  it('never gives two values the same IV, across the blocks its IVs are drawn in, and each decrypts', () => {
    const cipher = new FieldCipher([NEW]);
    const stored = Array.from({ length: 2_000 }, (_, i) => cipher.encrypt(`name ${i}`));
    const ivs = stored.map((value) =>
      Buffer.from(value.split(':')[3] ?? '', 'base64')
        .subarray(0, 12)
        .toString('hex'),
    );
    expect(new Set(ivs).size).toBe(stored.length);
    expect(ivs.every((iv) => iv !== '0'.repeat(24))).toBe(true);
    stored.forEach((value, i) => expect(cipher.decrypt(value)).toBe(`name ${i}`));
  });

  it('decrypts values written with a previous key after rotation, and flags them', () => {
    const stored = new FieldCipher([OLD]).encrypt('Jane');
    const rotated = new FieldCipher([NEW, OLD]);
    expect(rotated.decrypt(stored)).toBe('Jane');
    expect(rotated.needsRotation(stored)).toBe(true);
    expect(rotated.needsRotation(rotated.encrypt('Jane'))).toBe(false);
  });

  it('refuses values from a key it does not have', () => {
    const stored = new FieldCipher([OTHER]).encrypt('Jane');
    expect(() => new FieldCipher([NEW, OLD]).decrypt(stored)).toThrow(DecryptionError);
  });

  it.each(['plain', 'enc:v1:abc', 'enc:v1:00000000:AAAA'])('refuses a malformed stored value %s', (stored) => {
    expect(() => new FieldCipher([NEW]).decrypt(stored)).toThrow(DecryptionError);
  });

  it('refuses a value written right but with another prefix, an empty key id or a fifth part', () => {
    const cipher = new FieldCipher([NEW]);
    const stored = cipher.encrypt('Jane');
    const [, , id, packed] = stored.split(':');
    expect(cipher.decrypt(`enc:v1:${id}:${packed}`)).toBe('Jane');
    for (const altered of [`enc:v2:${id}:${packed}`, `enc:v1::${packed}`, `${stored}:extra`, `x${stored}`]) {
      expect(() => cipher.decrypt(altered)).toThrow(DecryptionError);
    }
  });

  it('detects tampering (GCM tag)', () => {
    const cipher = new FieldCipher([NEW]);
    const stored = cipher.encrypt('Jane');
    const parts = stored.split(':');
    const raw = Buffer.from(parts[3] ?? '', 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => cipher.decrypt([...parts.slice(0, 3), raw.toString('base64')].join(':'))).toThrow(DecryptionError);
  });
});
