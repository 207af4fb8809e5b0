import { readFileSync } from 'node:fs';

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly from: string;
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

/** The stages of a Dockerfile: comments dropped, continuation lines joined. */
export function readDockerfile(path: string): Stage[] {
  const logical = readFileSync(path, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [image = '', , name] = args.split(/\s+/);
      stages.push({ from: image, name, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ') });
    }
  }
  return stages;
}

/** An exec-form argument list (`["node", "..."]`); undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed = JSON.parse(args) as unknown;
  return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : undefined;
}

/** HEALTHCHECK's command in exec form, its options aside. */
export function healthcheckCommand(args: string): string[] | undefined {
  const at = args.indexOf('CMD ');
  return at < 0 ? undefined : execForm(args.slice(at + 4).trim());
}

/** Every instruction of the stage with this keyword. */
export function instructions(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
}
