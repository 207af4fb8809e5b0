import type { z } from 'zod';

export type ProblemPath = readonly PropertyKey[];

/** `people[3].emails[0].address`, the form import-format.md prints problems in. */
export function formatPath(path: ProblemPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(file)' : out;
}

export function problem(path: ProblemPath, message: string): string {
  return `${formatPath(path)}: ${message}`;
}

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be a valid email address',
  guid: 'must be a UUID',
  uuid: 'must be a UUID',
  date: 'must be a date (YYYY-MM-DD)',
  datetime: 'must be an ISO 8601 timestamp with a time zone',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
};

function describe(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      if (issue.input === null) return 'must not be null';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_format':
      return FORMAT_MESSAGES[issue.format] ?? `must be a valid ${issue.format}`;
    case 'too_big':
      return issue.origin === 'string'
        ? `must not be greater than ${String(issue.maximum)} characters`
        : `must not be greater than ${String(issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return issue.origin === 'string'
        ? `must be at least ${String(issue.minimum)} characters`
        : `must be at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'custom':
    case 'invalid_element':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
      return issue.message;
  }
}

/** One line per problem; an unknown key is reported at its own path. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root: ProblemPath = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...root, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = path.length === 0 ? 'is not a section of the import format' : 'is not a known field';
      return issue.keys.map((key) => problem([...path, key], known));
    }
    return [problem(path, describe(issue))];
  });
}
