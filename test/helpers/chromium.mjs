import { existsSync } from 'node:fs';

/** Debian's chromium (`apt-get install chromium`); CHROMIUM_PATH names another one. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function chromiumInstalled() {
  return existsSync(CHROMIUM_PATH);
}
