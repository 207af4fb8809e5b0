import 'reflect-metadata';
import type { IncomingHttpHeaders } from 'node:http';
import { BearerStrategy } from '../src/auth/bearer.strategy.js';
import type { TokenService } from '../src/auth/token.service.js';
import type { AuthenticatedUser } from '../src/common/access/authenticated-user.js';
import { authenticateWith } from '../src/common/access/token-strategy.js';

/**
 * `npm run bench:token-step`: the CPU the access guard's first step costs per request, the
 * passport bearer strategy (as the guard runs it) against the hand-written header parse it
 * replaced, both over a token service that answers at once (the database's time is the same for
 * both and not what is compared). Alternating rounds in one process; prints the median CPU time
 * per request of each, with a token and without one.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const PER_ROUND = 200_000;

const USER: AuthenticatedUser = { id: 'u', name: 'n', email: 'e@example.test', tokenId: 't' };
const tokens = { resolve: () => Promise.resolve(USER) } as unknown as TokenService;
const strategy = new BearerStrategy(tokens);

/** The step before passport came back: `Authorization: Bearer <token>`, scheme in any case, one space. */
const BEARER_SCHEME = /^Bearer$/i;
function handWritten(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length !== 2) return undefined;
  const [scheme, token] = parts as [string, string];
  return BEARER_SCHEME.test(scheme) && token !== '' ? token : undefined;
}

type Step = (headers: IncomingHttpHeaders, enterpriseId: string) => Promise<AuthenticatedUser | null>;

const steps: Record<string, Step> = {
  'hand-written': async (headers, enterpriseId) => {
    const token = handWritten(headers);
    return token === undefined ? null : ((await tokens.resolve(token, enterpriseId)) ?? null);
  },
  passport: (headers, enterpriseId) => authenticateWith(strategy, { headers, enterpriseId }),
};

const withToken: IncomingHttpHeaders = {
  host: '127.0.0.1:3000',
  authorization: `Bearer 0193f0e4-7a1b-7c2d-8e3f-4a5b6c7d8e9f|${'a'.repeat(48)}`,
  'x-enterprise-id': '0193f0e4-7a1b-7c2d-8e3f-4a5b6c7d8e90',
  accept: 'application/json',
};
const withoutToken: IncomingHttpHeaders = { host: '127.0.0.1:3000', accept: 'application/json' };

async function cpuPerRequest(step: Step, headers: IncomingHttpHeaders): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i++) await step(headers, 'e');
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / PER_ROUND; // ns
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

async function main(): Promise<void> {
  for (const [label, headers] of [
    ['with a token', withToken],
    ['without a token', withoutToken],
  ] as const) {
    const times: Record<string, number[]> = { 'hand-written': [], passport: [] };
    for (const step of Object.values(steps)) await cpuPerRequest(step, headers); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? Object.keys(steps) : Object.keys(steps).reverse();
      for (const name of order) times[name]?.push(await cpuPerRequest(steps[name] as Step, headers));
    }
    const hand = median(times['hand-written'] ?? []);
    const pass = median(times.passport ?? []);
    process.stdout.write(
      `${label}: hand-written ${hand.toFixed(0)} ns, passport ${pass.toFixed(0)} ns of CPU a request (+${(pass - hand).toFixed(0)} ns; median of ${ROUNDS} alternating rounds of ${PER_ROUND})\n`,
    );
  }
}

await main();
