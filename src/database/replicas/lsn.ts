/**
 * A WAL position (pg_lsn, written `16/B374D848`) as a number that compares: positions grow with
 * every record the primary writes, and a standby's replay position reaches them in order.
 */
export type Lsn = bigint;

export function parseLsn(text: string): Lsn {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text);
  if (!match) throw new Error(`Not a WAL position: ${text}`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** Sixteen hex digits: text that sorts as the position does (kept so in Redis). */
export function lsnKey(lsn: Lsn): string {
  return lsn.toString(16).padStart(16, '0');
}

export function lsnFromKey(key: string): Lsn {
  return BigInt(`0x${key}`);
}

/** Above every position: "read from the primary" for a user whose write's position is unknown. */
export const UNKNOWN_POSITION: Lsn = (1n << 64n) - 1n;
