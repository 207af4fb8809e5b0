import type { CliCommand } from './cli-command.js';

export function commandUsage(command: CliCommand): string {
  const parts = [command.name, ...(command.positionals ?? [])];
  for (const option of command.options ?? []) {
    const usage = option.flag ? `--${option.name}` : `--${option.name} <value>`;
    parts.push(option.required ? usage : `[${usage}]`);
  }
  return parts.join(' ');
}

export function helpText(commands: readonly CliCommand[]): string {
  const lines = ['Usage: npm run cli -- <command> [options]', '', 'Commands:'];
  for (const command of commands) {
    lines.push(`  ${commandUsage(command)}`, `      ${command.summary}`);
    for (const option of command.options ?? []) lines.push(`      --${option.name}: ${option.description}`);
  }
  lines.push(
    '',
    'The database is DATABASE_URL when set, else the embedded one under DATA_DIR.',
    'Every command that uses the database applies pending migrations first.',
  );
  return lines.join('\n');
}
