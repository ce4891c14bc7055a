import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliCommandsFromSources, staleCliUses, staleVariables } from './documentation.check';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const COMMANDS = cliCommandsFromSources(
  readdirSync(join(ROOT, 'src', 'cli', 'commands'))
    .filter((f) => f.endsWith('.command.ts'))
    .map((f) => read(join('src', 'cli', 'commands', f))),
);

describe('the docs tell an operator only what the daemon reads and the CLI takes', () => {
  it('knows the CLI commands', () => {
    expect(Object.keys(COMMANDS)).toEqual(expect.arrayContaining(['status', 'sync', 'validate-config']));
    expect(COMMANDS.sync.has('--brokerage')).toBe(true);
  });

  it.each(DOCS)('%s: every documented variable, command and flag exists', (file) => {
    const text = read(file);
    expect([...staleVariables(file, text), ...staleCliUses(file, text, COMMANDS)]).toEqual([]);
  });

  it('fails on a planted stale variable, refused variable, command and flag', () => {
    const planted = [
      '| `ADMIN_TIMEOUT` | 5 | planted |',
      '```ini',
      'Environment=HTTP_HOST=0.0.0.0 HTTP_PORT=3000',
      '```',
      '```sh',
      'LOG_LEVELZ=debug node dist/src/main.js',
      'npm run cli -- statuz',
      'npm run cli -- sync --brokerage acme --jobz offers',
      '```',
    ].join('\n');
    const problems = [
      ...staleVariables('docs/operations.md', planted),
      ...staleCliUses('docs/operations.md', planted, COMMANDS),
    ];
    expect(problems).toEqual([
      expect.stringContaining('ADMIN_TIMEOUT is not a variable the daemon reads'),
      expect.stringContaining('HTTP_HOST is refused by the daemon'),
      expect.stringContaining('HTTP_PORT is refused by the daemon'),
      expect.stringContaining('LOG_LEVELZ is not a variable the daemon reads'),
      expect.stringContaining('there is no CLI command "statuz"'),
      expect.stringContaining('"sync" has no flag --jobz'),
    ]);
  });
});
