import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { ChangePosition, ChangeType } from './change-types.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 8;
const CURSOR_KEY_INFO = 'finance-intake change-feed cursor';
const KEY_ID_INFO = 'finance-intake change-feed cursor key id';

/** Cursors of the first format: no key id, bound to the enterprise only. Still read. */
const LEGACY_PLAIN_BYTES = 1 + 8 + 8;
const LEGACY_LENGTH = IV_BYTES + TAG_BYTES + LEGACY_PLAIN_BYTES;
const LEGACY_FORMAT = 1;

/** Cursors written now: format byte and key id in clear, then the sealed position. */
const FORMAT = 2;
const PLAIN_BYTES = 8 + 8;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
const LENGTH = HEADER_BYTES + IV_BYTES + TAG_BYTES + PLAIN_BYTES;

export class InvalidCursorError extends Error {
  constructor() {
    super('The cursor is invalid.');
    this.name = 'InvalidCursorError';
  }
}

/** A well-formed cursor written under a key this process no longer has. */
export class UnknownCursorKeyError extends Error {
  constructor(readonly keyId: string) {
    super('The cursor was written under a key this service does not have.');
    this.name = 'UnknownCursorKeyError';
  }
}

interface CursorKey {
  readonly id: string;
  readonly secret: Buffer;
}

/** The public id of a key: derived one way, so it tells nothing about the key. */
export function cursorKeyId(appKey: Buffer): string {
  return Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), KEY_ID_INFO, KEY_ID_BYTES)).toString('hex');
}

/**
 * Cursors are opaque to clients: the position (a transaction epoch and a sequence number, both
 * shared by every tenant) is encrypted with AES-256-GCM under a key derived from APP_KEY, with
 * the enterprise id and the feed's types as associated data. So a cursor reveals nothing about
 * other tenants' activity, cannot be edited or made up, and is refused with another
 * enterprise's header or other types. The key's id travels in clear, so a cursor of a key that
 * has been retired is told apart from a forged one. Keys listed in APP_PREVIOUS_KEYS still read.
 */
export class ChangeCursorCodec {
  private readonly keys: readonly CursorKey[];

  constructor(appKeys: readonly Buffer[]) {
    if (appKeys.length === 0) throw new Error('ChangeCursorCodec needs at least one key');
    this.keys = appKeys.map((key) => ({
      id: cursorKeyId(key),
      secret: Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), CURSOR_KEY_INFO, 32)),
    }));
  }

  /** The ids of the keys this process reads cursors with, the writing key first. */
  get keyIds(): string[] {
    return this.keys.map((key) => key.id);
  }

  encode(position: ChangePosition, enterpriseId: string, types: readonly ChangeType[]): string {
    const key = this.keys[0] as CursorKey;
    const plain = Buffer.alloc(PLAIN_BYTES);
    plain.writeBigUInt64BE(position.xid, 0);
    plain.writeBigUInt64BE(position.seq, 8);
    const header = Buffer.concat([Buffer.from([FORMAT]), Buffer.from(key.id, 'hex')]);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.secret, iv);
    cipher.setAAD(Buffer.concat([header, boundTo(enterpriseId, types)]));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([header, iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /**
   * The position of a cursor written for this enterprise and these types. Throws
   * InvalidCursorError when it is not one, UnknownCursorKeyError when it is well formed but
   * written under a key this process does not have (retired, or never this service's).
   */
  decode(cursor: string, enterpriseId: string, types: readonly ChangeType[]): ChangePosition {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw new InvalidCursorError();
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length === LEGACY_LENGTH) return this.decodeLegacy(raw, enterpriseId);
    if (raw.length !== LENGTH || raw.readUInt8(0) !== FORMAT) throw new InvalidCursorError();
    const header = raw.subarray(0, HEADER_BYTES);
    const keyId = header.subarray(1).toString('hex');
    const key = this.keys.find((candidate) => candidate.id === keyId);
    if (!key) throw new UnknownCursorKeyError(keyId);
    const plain = open(raw.subarray(HEADER_BYTES), key.secret, Buffer.concat([header, boundTo(enterpriseId, types)]));
    if (!plain) throw new InvalidCursorError();
    return { xid: plain.readBigUInt64BE(0), seq: plain.readBigUInt64BE(8) };
  }

  /** A cursor of the first format, bound to its enterprise only: read with any types. */
  private decodeLegacy(raw: Buffer, enterpriseId: string): ChangePosition {
    for (const key of this.keys) {
      const plain = open(raw, key.secret, boundTo(enterpriseId, undefined));
      if (plain && plain.readUInt8(0) === LEGACY_FORMAT) {
        return { xid: plain.readBigUInt64BE(1), seq: plain.readBigUInt64BE(9) };
      }
    }
    throw new InvalidCursorError();
  }
}

function boundTo(enterpriseId: string, types: readonly ChangeType[] | undefined): Buffer {
  const enterprise = enterpriseId.toLowerCase();
  return Buffer.from(types === undefined ? enterprise : `${enterprise}|${types.join(',')}`, 'utf8');
}

function open(sealed: Buffer, secret: Buffer, aad: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', secret, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
