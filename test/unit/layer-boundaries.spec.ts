import { describe, expect, it } from '@jest/globals';
import { ESLint, type Linter } from 'eslint';

const root = process.cwd();
// Plain JavaScript modules (no types): the project's configuration and its layer blocks.
const load = (file: string): Promise<{ default: unknown }> => import(file) as Promise<{ default: unknown }>;
const config = (await load('../../eslint.config.js')).default as unknown[];
const blocks = (await load('../../eslint-layers.config.js')).default as Linter.Config[];

/** Lints `code` as if it were the file at `filePath`, with the layer rule alone (no type information needed). */
async function layerProblems(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: blocks });
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'none'}: ${m.message}`);
}

describe('the layer rule: src/common/ and src/database/ import no resource or domain module', () => {
  it('is part of the project lint configuration', () => {
    for (const block of blocks) expect(config).toContain(block);
  });

  it.each([
    ['src/common/http/probe.ts', "import { Person } from '../../people/entities/person.entity.js';"],
    [
      'src/common/http/conditional/probe.ts',
      "import type { Person } from '../../../people/entities/person.entity.js';",
    ],
    ['src/common/access/probe.ts', "import { TokenService } from '../../auth/token.service.js';"],
    [
      'src/common/tenancy/probe.ts',
      "import { IdempotentWrites } from '../../idempotency/idempotent-writes.service.js';",
    ],
    ['src/common/http/probe.ts', "import { Operation } from '../../openapi/api-operation.decorator.js';"],
    ['src/database/probe.ts', "import { Enterprise } from '../enterprises/enterprise.entity.js';"],
    ['src/database/probe.ts', "import { ENTITIES } from '../entities.js';"],
    ['src/database/probe.ts', "import { ErrorMessages } from '../common/http/error-messages.js';"],
  ])('fails %s importing %s', async (filePath, code) => {
    const problems = await layerProblems(filePath, `${code}\nexport {};\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^import-x\/no-restricted-paths: Unexpected path/);
  });

  it.each([
    ['src/common/http/probe.ts', "import { isoTimestamp } from './iso-timestamp.js';"],
    ['src/common/access/probe.ts', "import { ApiThrottlerGuard } from '../rate-limit/api-throttler.guard.js';"],
    ['src/common/http/probe.ts', "import { selectRows } from '../../database/sql.js';"],
    ['src/common/rate-limit/probe.ts', "import { APP_CONFIG } from '../../config/app-config.js';"],
    ['src/database/probe.ts', "import { MIGRATIONS } from './migrations.js';"],
    ['src/database/probe.ts', "import type { AppConfig } from '../config/app-config.js';"],
    [
      'src/database/probe.ts',
      "import { InitialSchema1763800000000 } from '../../migrations/1763800000000-initial-schema.js';",
    ],
  ])('lets %s import %s', async (filePath, code) => {
    expect(await layerProblems(filePath, `${code}\nexport {};\n`)).toEqual([]);
  });
});
