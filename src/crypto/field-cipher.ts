import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class DecryptionError extends Error {
  constructor() {
    super('A stored value could not be decrypted with the configured keys (APP_KEY, APP_PREVIOUS_KEYS).');
    this.name = 'DecryptionError';
  }
}

/**
 * AES-256-GCM for values stored encrypted at rest.
 * Stored form: `enc:v1:<key id>:<base64(iv | tag | ciphertext)>`. The key id names which key
 * encrypted the value, so rotation (APP_PREVIOUS_KEYS) decrypts without trying every key.
 */
export class FieldCipher {
  private readonly current: { id: string; key: Buffer };
  private readonly byId: Map<string, Buffer>;

  constructor(keys: readonly Buffer[]) {
    const [first] = keys;
    if (!first) throw new Error('FieldCipher needs at least one key');
    this.current = { id: keyId(first), key: first };
    this.byId = new Map(keys.map((k) => [keyId(k), k]));
  }

  encrypt(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const packed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    return `${PREFIX}:${this.current.id}:${packed}`;
  }

  decrypt(stored: string): string {
    const parts = stored.split(':');
    if (parts.length !== 4 || `${parts[0]}:${parts[1]}` !== PREFIX) throw new DecryptionError();
    const key = this.byId.get(parts[2] ?? '');
    if (!key) throw new DecryptionError();
    const raw = Buffer.from(parts[3] ?? '', 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptionError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptionError();
    }
  }

  encryptNullable(plain: string | null): string | null {
    return plain === null ? null : this.encrypt(plain);
  }

  decryptNullable(stored: string | null): string | null {
    return stored === null ? null : this.decrypt(stored);
  }

  /** The id that values encrypted now carry (third part of the stored form). */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** True when `stored` was written with an older key and should be re-encrypted. */
  needsRotation(stored: string): boolean {
    return stored.split(':')[2] !== this.current.id;
  }
}
