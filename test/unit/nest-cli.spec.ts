import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

interface NestCliConfig {
  sourceRoot: string;
  entryFile: string;
  compilerOptions: { builder: string; tsConfigPath: string };
}
interface TsConfig {
  extends?: string;
  include?: string[];
  compilerOptions?: { outDir?: string };
}

const read = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const nestCli = read<NestCliConfig>('nest-cli.json');
const packageJson = read<{ scripts: Record<string, string> }>('package.json');

describe('nest-cli.json describes the build the project really runs', () => {
  it('builds with tsc from the tsconfig `npm run build` uses', () => {
    expect(nestCli.compilerOptions.builder).toBe('tsc');
    expect(packageJson.scripts.build).toBe(`tsc -p ${nestCli.compilerOptions.tsConfigPath}`);
  });

  it('compiles the source root', () => {
    const build = read<TsConfig>(nestCli.compilerOptions.tsConfigPath);
    expect(build.include).toContain(`${nestCli.sourceRoot}/**/*.ts`);
    expect(existsSync(`${nestCli.sourceRoot}/main.ts`)).toBe(true);
  });

  it('names the entry file `npm start` runs', () => {
    const base = read<TsConfig>('tsconfig.json');
    const compiled = `${base.compilerOptions?.outDir ?? 'dist'}/${nestCli.entryFile}.js`;
    expect(packageJson.scripts.start).toContain(compiled);
    expect(existsSync(compiled)).toBe(true);
  });
});
