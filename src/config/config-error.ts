import type { ValidationError } from 'class-validator';

// One problem in one brokerage file, worded for the operator: file, brokerage, key path, what is wrong.
export interface ConfigProblem {
  file: string;
  brokerageId?: string;
  path?: string;
  message: string;
  // Set when what is wrong is this process's surroundings, not the file: a variable the file names
  // that is not set here, or a secret file this process cannot read. Another process (the daemon,
  // with its own environment and mounts) may load the same file. Says what, e.g. `X is not set here`.
  hereOnly?: string;
}

// The `file` of a problem with a daemon setting (an environment variable) rather than a brokerage file.
export const ENVIRONMENT = 'environment';

export function formatProblem(problem: ConfigProblem): string {
  const who = problem.brokerageId ? ` (${problem.brokerageId})` : '';
  const where = problem.path ? `${problem.path} ` : '';
  return `${problem.file}${who}: ${where}${problem.message}`;
}

export class ConfigInvalidError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    const what = problems.every((p) => p.file === ENVIRONMENT)
      ? 'the environment is invalid'
      : 'brokerage configuration is invalid';
    // One problem reads as one sentence naming its file (or the environment) and key; several as a
    // list, one a line.
    super(
      problems.length === 1
        ? formatProblem(problems[0])
        : `${what} (${problems.length} problems):\n` +
            problems.map((p) => `  - ${formatProblem(p)}`).join('\n'),
    );
    this.name = 'ConfigInvalidError';
  }
}

// Flattens class-validator's tree into one problem per failed constraint, with a dotted key path.
export function problemsFromValidation(
  errors: ValidationError[],
  file: string,
  brokerageId: string | undefined,
  parentPath = '',
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      // class-validator starts messages with the bare property name; the path already says it.
      const text =
        constraint === 'whitelistValidation'
          ? 'is not a known setting (check its spelling and nesting)'
          : message.startsWith(`${error.property} `)
            ? message.slice(error.property.length + 1)
            : message;
      problems.push({ file, brokerageId, path, message: text });
    }
    problems.push(...problemsFromValidation(error.children ?? [], file, brokerageId, path));
  }
  return problems;
}
