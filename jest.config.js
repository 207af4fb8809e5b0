import { availableParallelism } from 'node:os';
import { buildArgv } from 'jest-cli';
import { chromiumInstalled } from './test/helpers/chromium.mjs';
import { replicaToolsMissing } from './test/helpers/replica-tools.mjs';
import { groupIgnorePatterns, wholeRun } from './test/helpers/test-groups.mjs';

// Run without test paths, the short files of test/unit, api, cli and e2e load a few at a time
// through the entries under test/groups/ (test/helpers/test-groups.mjs says why); given paths or
// patterns, each file runs on its own.
const whole = wholeRun(await buildArgv(process.argv.slice(2)));

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.group-spec.ts'],
  // Suites that need a Redis server run only when REDIS_URL says there is one, those that need a
  // real PostgreSQL server (killing connections) only with DATABASE_URL, the browser suite
  // only where chromium is installed, and the replica suites only where PostgreSQL's binaries and
  // pgbouncer are (global setup says so; .ci/run provides all four).
  testPathIgnorePatterns: [
    '/node_modules/',
    ...groupIgnorePatterns(whole),
    ...(process.env.REDIS_URL ? [] : ['<rootDir>/test/redis/']),
    ...(process.env.DATABASE_URL ? [] : ['<rootDir>/test/postgres/']),
    ...(chromiumInstalled() ? [] : ['<rootDir>/test/browser/']),
    // The replica and PgBouncer suites start servers of their own from PostgreSQL's binaries and
    // pgbouncer; only a machine without them, outside CI, leaves them out (CI fails instead).
    ...(process.env.CI === 'true' || !replicaToolsMissing() ? [] : ['<rootDir>/test/replicas/']),
  ],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  globalSetup: '<rootDir>/test/helpers/global-setup.mjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.mjs',
  testTimeout: 60000,
  // One worker more than the cores: the process suites spend much of their time waiting for the
  // services, CLI commands and installs they start, and a third worker on two cores runs other
  // files meanwhile (docs/decisions/0112). Each worker gets its own embedded server (global setup).
  maxWorkers: availableParallelism() + 1,
};
