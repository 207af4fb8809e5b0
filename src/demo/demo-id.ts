import { createHash } from 'node:crypto';

/** A stable UUID per demo record name, so seeding twice updates instead of duplicating. */
export function demoId(name: string): string {
  const hex = createHash('sha256').update(`finance-intake-demo:${name}`).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
