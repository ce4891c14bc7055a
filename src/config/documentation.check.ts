import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { parse as parseYaml } from 'yaml';
import { BrokerageConfig } from './brokerage-config.schema';
import { problemsFromValidation } from './config-error';
import { DaemonEnvironment, validateDaemonEnvironment } from './daemon-environment';

// Checks that what the docs tell an operator to set or type exists: the daemon's environment
// variables (the operations.md table, `Environment=` lines of unit files, `VAR=… node dist/bin/…`
// and `VAR=… npm run start…` lines) and the CLI's commands and flags (`npm run cli -- <command>`,
// `node dist/bin/cli.js <command>`). Pure: the spec feeds it the real documents and planted stale
// ones.

export interface CliCommandFacts {
  // command name -> every long flag its options declare (`--brokerage`)
  [command: string]: ReadonlySet<string>;
}

export function daemonVariables(): Set<string> {
  return new Set(Object.keys(plainToInstance(DaemonEnvironment, {}, { excludeExtraneousValues: true })));
}

// A variable the daemon still knows only to refuse it (HTTP_HOST, HTTP_PORT).
function refused(variable: string): string | undefined {
  try {
    validateDaemonEnvironment({ [variable]: 'x' });
    return undefined;
  } catch (error) {
    const message = (error as Error).message;
    return message.includes(`${variable} is no longer read`) ? message : undefined;
  }
}

function codeBlocks(markdown: string): { lang: string; body: string }[] {
  const blocks: { lang: string; body: string }[] = [];
  const fence = /```([a-z]*)\n([\s\S]*?)```/g;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) blocks.push({ lang: m[1], body: m[2] });
  return blocks;
}

// Variables the docs say the daemon reads, with where each was seen.
export function documentedVariables(file: string, markdown: string): { variable: string; where: string }[] {
  const found: { variable: string; where: string }[] = [];
  // The environment table: rows whose first cell is a variable in backticks.
  if (file.endsWith('operations.md'))
    for (const m of markdown.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\|/gm))
      found.push({ variable: m[1], where: `${file}: the environment table` });
  for (const block of codeBlocks(markdown)) {
    for (const line of block.body.split('\n')) {
      const unit = /^Environment=(.*)$/.exec(line.trim());
      const daemonLine =
        /^((?:[A-Z][A-Z0-9_]*=\S*\s+)+)(?:node\b.*dist\/bin\/daemon\.js|npm run start(?::daemon)?\b)/.exec(
          line.trim(),
        );
      const assignments = unit?.[1] ?? daemonLine?.[1];
      if (!assignments) continue;
      for (const m of assignments.matchAll(/([A-Z][A-Z0-9_]*)=/g))
        found.push({ variable: m[1], where: `${file}: ${line.trim()}` });
    }
  }
  return found;
}

// The demo's and the deployment's own variables that the daemon's environment class does not hold
// (read by the embedded demo, Node itself, or named by a brokerage file).
const NOT_THE_DAEMONS = /^(NODE_|SANDBOX_|HUBSPOT_EMULATOR_|FUB_EMULATOR_|SOAK_|BENCH_|DEMO_)/;

export function staleVariables(file: string, markdown: string, known = daemonVariables()): string[] {
  const problems: string[] = [];
  for (const { variable, where } of documentedVariables(file, markdown)) {
    if (NOT_THE_DAEMONS.test(variable)) continue;
    if (!known.has(variable)) problems.push(`${where}: ${variable} is not a variable the daemon reads`);
    else {
      const refusal = refused(variable);
      if (refusal) problems.push(`${where}: ${variable} is refused by the daemon (${refusal})`);
    }
  }
  return problems;
}

// `npm run cli -- <command> [--flag ...]` and `node dist/bin/cli.js <command> ...` lines.
export function staleCliUses(file: string, markdown: string, commands: CliCommandFacts): string[] {
  const problems: string[] = [];
  const use = /(?:npm run cli --|node (?:dist\/bin\/(?:embedded-)?cli\.js))\s+([a-z][a-z-]*)([^`\n|]*)/g;
  for (const m of markdown.matchAll(use)) {
    const [, command, rest] = m;
    const flags = commands[command];
    if (!flags) {
      if (command !== 'help')
        problems.push(`${file}: \`${m[0].trim()}\`: there is no CLI command "${command}"`);
      continue;
    }
    for (const flag of rest.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g))
      if (flag[1] !== '--help' && !flags.has(flag[1]))
        problems.push(`${file}: \`${m[0].trim()}\`: "${command}" has no flag ${flag[1]}`);
  }
  return problems;
}

// The CLI's commands and flags from the command classes' sources (nest-commander decorators).
export function cliCommandsFromSources(sources: readonly string[]): CliCommandFacts {
  const commands: Record<string, Set<string>> = {};
  for (const source of sources) {
    const name = /@Command\(\{\s*name:\s*'([a-z-]+)'/.exec(source)?.[1];
    if (!name) continue;
    const flags = new Set<string>();
    for (const m of source.matchAll(/flags:\s*'([^']+)'/g))
      for (const f of m[1].matchAll(/--[a-z][a-z-]*/g)) flags.add(f[0]);
    // nest-commander adds --help to every command.
    flags.add('--help');
    commands[name] = flags;
  }
  return commands;
}

// Brokerage-file keys the docs show (YAML blocks that hold `cashOffer:`, `crm:`, `webhooks:` or
// `schedules:` at the top) that the schema does not know: what the loader would refuse as "not a
// known setting". Other problems of a partial example (a required key left out) are not the point.
export function staleBrokerageKeys(file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const block of codeBlocks(markdown)) {
    if (block.lang !== 'yaml' && block.lang !== 'yml') continue;
    if (!/^(cashOffer|crm|webhooks|schedules):/m.test(block.body)) continue;
    let parsed: unknown;
    try {
      parsed = parseYaml(block.body);
    } catch (error) {
      problems.push(`${file}: a brokerage example is not YAML: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
    const config = plainToInstance(BrokerageConfig, parsed);
    const errors = validateSync(config, { whitelist: true, forbidNonWhitelisted: true });
    for (const problem of problemsFromValidation(errors, file, undefined))
      if (problem.message.startsWith('is not a known setting'))
        problems.push(
          `${file}: the brokerage example's ${problem.path} is not a key the brokerage schema has`,
        );
  }
  return problems;
}
