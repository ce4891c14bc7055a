// ConfigService's Logger is replaced by a silent stand-in.
jest.mock('@nestjs/common', () => ({
  // The rest of Nest stays real: the wire classes the config reaches load @nestjs/swagger.
  ...jest.requireActual<Record<string, unknown>>('@nestjs/common'),
  Logger: class {
    log(): void {}
    error(): void {}
  },
}));

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { DEFAULT_SCHEDULES } from '../../../src/config/brokerage-config.schema';
import { formatProblem } from '../../../src/config/config-error';
import { loadBrokerageConfigs } from '../../../src/config/config.loader';
import { ConfigService } from '../../../src/config/config.service';
import type { ConfigDiff } from '../../../src/config/config-diff';
import { readDaemonSettings } from '../../../src/config/daemon-settings';
import { SecretRedactor } from '../../../src/observability/logging/secret-redactor';

const env = {
  ACME_KEY: 'acme-api-key-123456',
  ACME_TOKEN: 'acme-crm-token-abcdef',
  ACME_WH: 'acme-webhook-secret-0123456789abcdef',
  BOLT_KEY: 'bolt-api-key-654321',
  BOLT_TOKEN: 'bolt-crm-token-fedcba',
  BOLT_WH: 'bolt-webhook-secret-0123456789abcdef',
};

function config(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const p = id.toUpperCase();
  return {
    id,
    cashOffer: { baseUrl: 'https://api.example.test/api/v2', apiKeyEnv: `${p}_KEY` },
    crm: { kind: 'hubspot', tokenEnv: `${p}_TOKEN`, pipelines: { listings: { pipelineId: 'default' } } },
    webhooks: { publicBaseUrl: 'https://sync.example.test', secretEnv: `${p}_WH` },
    ...extra,
  };
}

describe('brokerage config loading', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cos-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, value: unknown): void =>
    writeFileSync(join(dir, name), name.endsWith('.json') ? JSON.stringify(value) : stringify(value));

  it('loads YAML and JSON files, fills default schedules and resolves secrets from the environment', () => {
    write('acme.yaml', config('acme', { schedules: { marketplace: '0 * * * *' } }));
    write('bolt.json', config('bolt', { enabled: false }));
    writeFileSync(join(dir, 'README.md'), 'not a brokerage');
    const { brokerages, problems } = loadBrokerageConfigs(dir, env);
    expect(problems).toEqual([]);
    expect(brokerages.map((b) => b.id)).toEqual(['acme', 'bolt']);
    const acme = brokerages[0];
    expect(acme.config.schedules).toEqual({ ...DEFAULT_SCHEDULES, marketplace: '0 * * * *' });
    expect(acme.secrets).toEqual({
      cashOfferApiKey: env.ACME_KEY,
      crmToken: env.ACME_TOKEN,
      webhookSecret: env.ACME_WH,
      previousWebhookSecret: undefined,
    });
    expect(JSON.stringify(acme.config)).not.toContain(env.ACME_KEY);
    expect(brokerages[1].config.enabled).toBe(false);
  });

  // A FIFO named acme.yaml blocked validate-config (and the daemon's start) for good, saying nothing.
  it('reads no FIFO, directory or oversized file named like a brokerage file, and says so; the rest load', () => {
    write('acme.yaml', config('acme'));
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    mkdirSync(join(dir, 'folder.yml'));
    writeFileSync(join(dir, 'huge.yaml'), `id: huge\nnotes: "${'x'.repeat(2 * 1024 * 1024)}"\n`);
    const { brokerages, problems } = loadBrokerageConfigs(dir, env);
    expect(brokerages.map((b) => b.id)).toEqual(['acme']);
    expect(problems.map((p) => formatProblem(p).replace(dir, '<dir>'))).toEqual([
      '<dir>/fifo.yaml: is not a regular file; not read',
      '<dir>/folder.yml: is not a regular file; not read',
      `<dir>/huge.yaml: is ${2 * 1024 * 1024 + 19} bytes; a brokerage file may be 1048576 at most; not read`,
    ]);
  });

  it('reports every problem with file, brokerage and key path', () => {
    write(
      'acme.yaml',
      config('acme', {
        cashOffer: {
          baseUrl: 'https://x.test',
          apiKeyEnv: 'ACME_KEY',
          timeoutMs: 5,
          rateLimit: { requestsPerSecond: 0 },
        },
        webhooks: {
          publicBaseUrl: 'https://x.test',
          secretEnv: 'ACME_WH',
          previousSecretEnv: 'ACME_OLD_WH',
          previousSecretValidUntil: 'soon',
        },
      }),
    );
    write('bolt.yaml', {
      ...config('bolt'),
      id: 'Bolt Realty',
      crm: {
        kind: 'hubspot',
        tokenEnv: 'BOLT_TOKEN',
        mapping: { overrides: { street: 7 } },
        pipelines: { listings: { pipelineId: 'p' } },
      },
    });
    write('acme.json', config('acme'));
    const messages = loadBrokerageConfigs(dir, env).problems.map(formatProblem);
    const file = (name: string): string => join(dir, name);
    expect(messages).toEqual(
      expect.arrayContaining([
        `${file('acme.yaml')} (acme): cashOffer.timeoutMs must not be less than 100`,
        `${file('acme.yaml')} (acme): cashOffer.rateLimit.requestsPerSecond must not be less than 1`,
        `${file('acme.yaml')} (acme): webhooks.previousSecretValidUntil must be an ISO 8601 date-time`,
        `${file('bolt.yaml')} (Bolt Realty): id must be a slug: lowercase letters, digits and dashes`,
        `${file('bolt.yaml')} (Bolt Realty): crm.mapping.overrides entry "street" must be a string: a CRM property, "seller_contact:a,b", or "" for unmapped`,
      ]),
    );
    // A duplicate id (acme.json and acme.yaml) is only detectable once both files are valid.
    write(
      'acme.yaml',
      config('acme', {
        webhooks: { publicBaseUrl: 'https://x.test', secretEnv: 'ACME_WH', previousSecretEnv: 'ACME_OLD_WH' },
      }),
    );
    const again = loadBrokerageConfigs(dir, env).problems.map(formatProblem);
    expect(again).toContain(
      `${file('acme.yaml')} (acme): webhooks.previousSecretEnv names the environment variable ACME_OLD_WH, which is not set`,
    );
    write('acme.yaml', config('acme'));
    expect(loadBrokerageConfigs(dir, env).problems.map(formatProblem)).toContain(
      `${file('acme.yaml')} (acme): id is already used by ${file('acme.json')}; each brokerage id must be unique`,
    );
  });

  it('refuses a rate limit burst, which no limiter reads, naming the key and why', () => {
    write(
      'acme.yaml',
      config('acme', {
        cashOffer: {
          baseUrl: 'https://x.test',
          apiKeyEnv: 'ACME_KEY',
          rateLimit: { requestsPerSecond: 5, burst: 10 },
        },
      }),
    );
    write('bolt.yaml', {
      ...config('bolt'),
      crm: {
        kind: 'hubspot',
        tokenEnv: 'BOLT_TOKEN',
        rateLimit: { requestsPerSecond: 9, burst: null },
        pipelines: { listings: { pipelineId: 'p' } },
      },
    });
    const why =
      'is not a known setting: a limit is requestsPerSecond alone, and up to that many calls may start at once; remove burst';
    expect(loadBrokerageConfigs(dir, env).problems.map(formatProblem)).toEqual([
      `${join(dir, 'acme.yaml')} (acme): cashOffer.rateLimit.burst ${why}`,
      `${join(dir, 'bolt.yaml')} (bolt): crm.rateLimit.burst ${why}`,
    ]);
  });

  it("takes HubSpot's own search limit and refuses it, naming the kind, on Follow Up Boss", () => {
    const crm = (kind: string, searchRateLimit: unknown) => ({
      kind,
      tokenEnv: 'BOLT_TOKEN',
      searchRateLimit,
      pipelines: { listings: { pipelineId: 'p' } },
    });
    write('bolt.yaml', { ...config('bolt'), crm: crm('hubspot', { requestsPerSecond: 3 }) });
    const { brokerages, problems } = loadBrokerageConfigs(dir, env);
    expect(problems).toEqual([]);
    expect(brokerages[0].config.crm.searchRateLimit).toEqual({ requestsPerSecond: 3 });

    write('bolt.yaml', { ...config('bolt'), crm: crm('followupboss', { requestsPerSecond: 3 }) });
    write('acme.yaml', config('acme', { crm: crm('hubspot', { requestsPerSecond: 0 }) }));
    expect(
      loadBrokerageConfigs(dir, { ...env, ACME_TOKEN: env.BOLT_TOKEN }).problems.map(formatProblem),
    ).toEqual([
      `${join(dir, 'acme.yaml')} (acme): crm.searchRateLimit.requestsPerSecond must not be less than 1`,
      `${join(dir, 'bolt.yaml')} (bolt): crm.searchRateLimit is read only for crm.kind hubspot: Follow Up Boss has no separate search limit; its calls all count against rateLimit`,
    ]);
  });

  it('reports every problem of every file in one run: the schema, the secrets, the id and the mapping together', () => {
    write('acme.yaml', {
      ...config('acme'),
      id: 'acme-two',
      cashOffer: { baseUrl: 'not a url', apiKeyEnv: 'UNSET_KEY' },
      crm: {
        kind: 'hubspot',
        tokenEnv: 'UNSET_TOKEN',
        mapping: { overrides: { street: 7 } },
        pipelines: { listings: {} },
      },
      schedules: { crmChanges: 'bad cron' },
    });
    write('bolt.yaml', { id: 'bolt', cashOffer: {} });
    const file = (name: string): string => join(dir, name);
    expect(loadBrokerageConfigs(dir, env).problems.map(formatProblem).sort()).toEqual(
      [
        `${file('acme.yaml')} (acme-two): cashOffer.baseUrl must be an http(s) URL such as https://host/api/v2`,
        `${file('acme.yaml')} (acme-two): crm.pipelines.listings.pipelineId should not be empty`,
        `${file('acme.yaml')} (acme-two): crm.pipelines.listings.pipelineId must be a string`,
        `${file('acme.yaml')} (acme-two): schedules.crmChanges must be a cron expression of 5 or 6 fields, got 2: "bad cron"`,
        `${file('acme.yaml')} (acme-two): id must match the file name ("acme")`,
        `${file('acme.yaml')} (acme-two): crm.mapping.overrides entry "street" must be a string: a CRM property, "seller_contact:a,b", or "" for unmapped`,
        `${file('acme.yaml')} (acme-two): crm.mapping.overrides HubSpot field mapping is invalid: "street" is not one of the spec's property fields`,
        `${file('acme.yaml')} (acme-two): cashOffer.apiKeyEnv names the environment variable UNSET_KEY, which is not set`,
        `${file('acme.yaml')} (acme-two): crm.tokenEnv names the environment variable UNSET_TOKEN, which is not set`,
        `${file('bolt.yaml')} (bolt): cashOffer.baseUrl must be an http(s) URL such as https://host/api/v2`,
        `${file('bolt.yaml')} (bolt): crm is required`,
        `${file('bolt.yaml')} (bolt): webhooks is required`,
        `${file('bolt.yaml')} (bolt): cashOffer.apiKeyEnv is required: the NAME of an environment variable, or cashOffer.apiKeyFile: a file holding only the secret`,
      ].sort(),
    );
  });

  it('puts ${VAR} and ${VAR:-default} into values, and names a variable that is unset without a default', () => {
    write(
      'acme.yaml',
      config('acme', {
        webhooks: { publicBaseUrl: 'http://127.0.0.1:${WEBHOOK_PORT:-3001}', secretEnv: 'ACME_WH' },
      }),
    );
    const loaded = loadBrokerageConfigs(dir, { ...env, WEBHOOK_PORT: '3101' });
    expect(loaded.brokerages[0].config.webhooks.publicBaseUrl).toBe('http://127.0.0.1:3101');
    expect(loadBrokerageConfigs(dir, env).brokerages[0].config.webhooks.publicBaseUrl).toBe(
      'http://127.0.0.1:3001',
    );
    write(
      'acme.yaml',
      config('acme', { crm: { ...(config('acme').crm as object), baseUrl: 'https://${CRM_HOST}' } }),
    );
    expect(loadBrokerageConfigs(dir, env).problems.map(formatProblem)).toEqual([
      `${join(dir, 'acme.yaml')} (acme): crm.baseUrl must be an http(s) URL`,
      `${join(dir, 'acme.yaml')} (acme): crm.baseUrl names \${CRM_HOST}, which is not set (give it a value, or a default: \${CRM_HOST:-value})`,
    ]);
  });

  it("checks the field mapping with the CRM adapter's rules", () => {
    const crm = (overrides: Record<string, string>) => ({
      kind: 'hubspot',
      tokenEnv: 'ACME_TOKEN',
      mapping: { overrides },
      pipelines: { listings: { pipelineId: 'default' } },
    });
    write('acme.yaml', config('acme', { crm: crm({ NotAField: 'x', StreetName: 'Street Name' }) }));
    const [problem] = loadBrokerageConfigs(dir, env).problems.map(formatProblem);
    expect(problem).toMatch(
      /acme\.yaml \(acme\): crm\.mapping\.overrides HubSpot field mapping is invalid: .*NotAField/,
    );
    expect(problem).toContain('Street Name');
    write('acme.yaml', config('acme', { crm: crm({ StreetName: 'street_line', UnitNumber: '' }) }));
    expect(loadBrokerageConfigs(dir, env).problems).toEqual([]);
  });

  it('refuses a webhook secret too short to be unguessable', () => {
    write('acme.yaml', config('acme'));
    const { problems } = loadBrokerageConfigs(dir, { ...env, ACME_WH: 'short' });
    expect(problems.map(formatProblem)).toEqual([
      `${join(dir, 'acme.yaml')} (acme): webhooks.secretEnv names ACME_WH, whose value is too short for a webhook secret (at least 22 random characters)`,
    ]);
    // The daemon's own value of the variable may differ: a CLI shell leaves that to it (reload-config).
    expect(problems[0].hereOnly).toBe('ACME_WH is too short here');
  });

  it('reload reports added, changed and removed brokerages; a brokerage that fails keeps its last good config, alone', async () => {
    write('acme.yaml', config('acme'));
    write('bolt.yaml', config('bolt'));
    const redactor = new SecretRedactor();
    const service = new ConfigService(dir, redactor, env);
    service.load(true);
    expect(redactor.redact(`key ${env.BOLT_KEY}`)).toBe('key [REDACTED]');
    const diffs: ConfigDiff[] = [];
    service.onChange((diff) => {
      diffs.push(diff);
    });

    const unchanged = await service.reload();
    expect(unchanged.applied).toBe(true);
    expect(diffs).toEqual([]);

    rmSync(join(dir, 'bolt.yaml'));
    write('acme.yaml', config('acme', { schedules: { outboxDrain: '*/30 * * * * *' } }));
    write('cove.yaml', {
      ...config('cove'),
      cashOffer: { baseUrl: 'https://x.test', apiKeyEnv: 'COVE_KEY' },
    });
    // Cove's key is unset in the daemon's environment. Cove alone is unready; acme's
    // change and bolt's removal apply (they used to wait, all-or-nothing, for cove to be fixed).
    const partial = await service.reload();
    expect(partial).toMatchObject({ applied: true, failed: ['cove'] });
    expect(service.valid).toBe(false);
    expect(service.globalProblems()).toEqual([]);
    expect([...service.unreadyBrokerages().keys()]).toEqual(['cove']);
    expect(service.brokerages().map((b) => b.id)).toEqual(['acme']);
    expect(diffs).toHaveLength(1);
    expect(diffs[0].changed.map((b) => b.id)).toEqual(['acme']);
    expect(diffs[0].removed.map((b) => b.id)).toEqual(['bolt']);
    diffs.length = 0;

    // A brokerage already running keeps its last good config while its file is broken.
    write('acme.yaml', { ...config('acme'), crm: {} });
    const broken = await service.reload();
    expect(broken.failed).toEqual(['acme', 'cove']);
    expect(service.get('acme')?.config.schedules.outboxDrain).toBe('*/30 * * * * *');
    expect(diffs).toEqual([]);
    write('acme.yaml', config('acme', { schedules: { outboxDrain: '*/30 * * * * *' } }));

    const extraEnv = {
      COVE_KEY: 'cove-api-key-999999',
      COVE_TOKEN: 'cove-crm-token-888',
      COVE_WH: 'cove-webhook-secret-0123456789abc',
    };
    Object.assign(env, extraEnv);
    const applied = await service.reload();
    expect(applied.applied).toBe(true);
    expect(service.valid).toBe(true);
    expect(diffs).toHaveLength(1);
    expect({
      added: diffs[0].added.map((b) => b.id),
      changed: diffs[0].changed.map((b) => b.id),
      removed: diffs[0].removed.map((b) => b.id),
    }).toEqual({ added: ['cove'], changed: [], removed: [] });
    expect(service.get('acme')?.config.schedules.outboxDrain).toBe('*/30 * * * * *');
    expect(redactor.redact(extraEnv.COVE_TOKEN)).toBe('[REDACTED]');
  });

  it('reads secrets from files (one per secret), again on every reload, relative to the config directory', async () => {
    const secretsDir = join(dir, 'secrets');
    mkdirSync(secretsDir);
    const put = (name: string, value: string): void => writeFileSync(join(secretsDir, name), value);
    put('acme-key', 'acme-file-key-123456\n');
    put('acme-token', 'acme-file-token-abcdef');
    put('acme-wh', 'acme-file-webhook-secret-0123456789\n');
    write('acme.yaml', {
      ...config('acme'),
      cashOffer: { baseUrl: 'https://x.test/api/v2', apiKeyFile: join(secretsDir, 'acme-key') },
      crm: {
        kind: 'hubspot',
        tokenFile: 'secrets/acme-token',
        pipelines: { listings: { pipelineId: 'default' } },
      },
      webhooks: { publicBaseUrl: 'https://x.test', secretFile: join(secretsDir, 'acme-wh') },
    });
    const redactor = new SecretRedactor();
    const service = new ConfigService(dir, redactor, {});
    service.load(true);
    expect(service.get('acme')?.secrets).toEqual({
      cashOfferApiKey: 'acme-file-key-123456',
      crmToken: 'acme-file-token-abcdef',
      webhookSecret: 'acme-file-webhook-secret-0123456789',
      previousWebhookSecret: undefined,
    });

    // Rotated by the orchestrator: the next reload reads the new value.
    put('acme-wh', 'acme-rotated-webhook-secret-9876543210');
    const rotated = await service.reload();
    expect(rotated.diff.changed.map((b) => b.id)).toEqual(['acme']);
    expect(service.get('acme')?.secrets.webhookSecret).toBe('acme-rotated-webhook-secret-9876543210');
    expect(redactor.redact('acme-rotated-webhook-secret-9876543210')).toBe('[REDACTED]');

    rmSync(join(secretsDir, 'acme-token'));
    const missing = await service.reload();
    expect(missing.problems.map(formatProblem)).toEqual([
      `${join(dir, 'acme.yaml')} (acme): crm.tokenFile names the file ${join(secretsDir, 'acme-token')}, which cannot be read (ENOENT)`,
    ]);
    expect(service.get('acme')?.secrets.crmToken).toBe('acme-file-token-abcdef');
  });

  it('needs exactly one of *Env and *File for each secret', () => {
    write('acme.yaml', {
      ...config('acme'),
      cashOffer: { baseUrl: 'https://x.test/api/v2', apiKeyEnv: 'ACME_KEY', apiKeyFile: '/run/secrets/k' },
      crm: { kind: 'hubspot', pipelines: { listings: { pipelineId: 'default' } } },
    });
    expect(loadBrokerageConfigs(dir, env).problems.map(formatProblem)).toEqual([
      `${join(dir, 'acme.yaml')} (acme): cashOffer.apiKeyFile and cashOffer.apiKeyEnv are both given; give one`,
      `${join(dir, 'acme.yaml')} (acme): crm.tokenEnv is required: the NAME of an environment variable, or crm.tokenFile: a file holding only the secret`,
    ]);
  });

  it('reads daemon settings with their defaults', () => {
    const settings = readDaemonSettings({});
    expect(settings).toMatchObject({
      adminPort: 3000,
      adminHost: '127.0.0.1',
      webhookPort: 3001,
      webhookHost: '127.0.0.1',
      logLevel: 'info',
      shutdownTimeoutMs: 25_000,
    });
    expect(settings.ledgerPath.endsWith(join('data', 'ledger.sqlite'))).toBe(true);
    expect(settings.configDir.endsWith(join('config', 'brokerages'))).toBe(true);
    expect(() => readDaemonSettings({ LOG_LEVEL: 'loud' })).toThrow('environment: LOG_LEVEL must be one of');
    expect(() => readDaemonSettings({ ADMIN_PORT: '4000', WEBHOOK_PORT: '4000' })).toThrow(
      'environment: WEBHOOK_PORT must differ from ADMIN_PORT (4000)',
    );
  });
});
