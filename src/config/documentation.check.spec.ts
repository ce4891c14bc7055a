import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cliCommandsFromSources,
  staleBrokerageKeys,
  staleCliUses,
  staleVariables,
} from './documentation.check';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  join('deploy', 'README.md'),
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
    expect([
      ...staleVariables(file, text),
      ...staleCliUses(file, text, COMMANDS),
      ...staleBrokerageKeys(file, text),
    ]).toEqual([]);
  });

  it('fails on a planted stale variable, refused variable, command and flag', () => {
    const planted = [
      '| `ADMIN_TIMEOUT` | 5 | planted |',
      '```ini',
      'Environment=HTTP_HOST=0.0.0.0 HTTP_PORT=3000',
      '```',
      '```sh',
      'LOG_LEVELZ=debug node dist/bin/daemon.js',
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

  it('fails on a planted brokerage-file key the schema does not have', () => {
    const planted = [
      '```yaml',
      'id: acme',
      'cashOffer:',
      '  baseUrl: https://api.example/api/v2',
      '  apiKeyEnvironment: ACME_KEY',
      'crm:',
      '  kind: hubspot',
      '  pipelines:',
      '    listings: { pipelineId: default, triggerStage: x }',
      'schedules:',
      "  crmChange: '* * * * *'",
      '```',
    ].join('\n');
    expect(staleBrokerageKeys('docs/operations.md', planted)).toEqual([
      expect.stringContaining('cashOffer.apiKeyEnvironment is not a key the brokerage schema has'),
      expect.stringContaining('crm.pipelines.listings.triggerStage is not a key the brokerage schema has'),
      expect.stringContaining('schedules.crmChange is not a key the brokerage schema has'),
    ]);
  });

  it('reads every unit and environment file in deploy/: each variable set is one the daemon reads', () => {
    const dir = join(ROOT, 'deploy', 'systemd');
    const files = readdirSync(dir);
    expect(files).toEqual(
      expect.arrayContaining(['cash-offer-sync.service', 'cash-offer-sync-worker@.service', 'env.example']),
    );
    for (const name of files) {
      const text = read(join('deploy', 'systemd', name));
      // The environment file lists the daemon's variables and a brokerage's secrets (ACME_*), which
      // its brokerage file names; units set only the daemon's.
      const lines = name.endsWith('.service')
        ? text
        : text
            .split('\n')
            .map((l) => l.replace(/^#\s*/, ''))
            .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l) && !l.startsWith('ACME_'))
            .map((l) => `Environment=${l.split(' ')[0]}`)
            .join('\n');
      const asDoc = `\`\`\`ini\n${lines}\n\`\`\``;
      expect({ name, problems: staleVariables(join('deploy', name), asDoc) }).toEqual({ name, problems: [] });
    }
  });
});
