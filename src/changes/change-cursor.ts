import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { ChangePosition } from './change-types.js';

const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PLAIN_BYTES = 1 + 8 + 8;
const KEY_INFO = 'finance-intake change-feed cursor';

export class InvalidCursorError extends Error {
  constructor() {
    super('The cursor is invalid.');
    this.name = 'InvalidCursorError';
  }
}

/**
 * Cursors are opaque to clients: the position (a transaction id and a sequence number, both
 * counters shared by every tenant) is encrypted with AES-256-GCM under a key derived from
 * APP_KEY, with the enterprise id as associated data. So a cursor reveals nothing about other
 * tenants' activity, cannot be edited or made up, and is refused with another enterprise's
 * header. Cursors made with a previous key (APP_PREVIOUS_KEYS) are still read.
 */
export class ChangeCursorCodec {
  private readonly keys: readonly Buffer[];

  constructor(appKeys: readonly Buffer[]) {
    if (appKeys.length === 0) throw new Error('ChangeCursorCodec needs at least one key');
    this.keys = appKeys.map((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), KEY_INFO, 32)));
  }

  encode(position: ChangePosition, enterpriseId: string): string {
    const plain = Buffer.alloc(PLAIN_BYTES);
    plain.writeUInt8(FORMAT, 0);
    plain.writeBigUInt64BE(position.xid, 1);
    plain.writeBigUInt64BE(position.seq, 9);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0] as Buffer, iv);
    cipher.setAAD(Buffer.from(enterpriseId.toLowerCase(), 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  decode(cursor: string, enterpriseId: string): ChangePosition {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length !== IV_BYTES + TAG_BYTES + PLAIN_BYTES) throw new InvalidCursorError();
    for (const key of this.keys) {
      const plain = this.open(raw, key, enterpriseId);
      if (plain && plain.readUInt8(0) === FORMAT) {
        return { xid: plain.readBigUInt64BE(1), seq: plain.readBigUInt64BE(9) };
      }
    }
    throw new InvalidCursorError();
  }

  private open(raw: Buffer, key: Buffer, enterpriseId: string): Buffer | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(enterpriseId.toLowerCase(), 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      return undefined;
    }
  }
}
