// ConfigService's Logger is replaced by a silent stand-in.
jest.mock('@nestjs/common', () => ({
  // The rest of Nest stays real: the wire classes the config reaches load @nestjs/swagger.
  ...jest.requireActual<Record<string, unknown>>('@nestjs/common'),
  Logger: class {
    log(): void {}
    error(): void {}
  },
}));

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { selectBrokerages, unreadyBrokerageMessages } from '../../../src/cli/commands/brokerage-selection';
import { ConfigService } from '../../../src/config/config.service';
import { SecretRedactor } from '../../../src/observability/logging/secret-redactor';

// What a CLI command acting on brokerages is told when a brokerage file exists but does not load:
// the operator sees which setting to fix, never an "unknown brokerage" or a silent, empty success.
const secret = { WEBHOOK_SECRET: 'a-webhook-secret-0123456789abcdef' };

describe('choosing the brokerages a CLI command acts on', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'selection-'));
    for (const id of ['acme', 'bolt'])
      writeFileSync(
        join(dir, `${id}.yaml`),
        stringify({
          id,
          cashOffer: { baseUrl: 'https://api.example.test/api/v2', apiKeyEnv: `${id.toUpperCase()}_KEY` },
          crm: {
            kind: 'hubspot',
            tokenEnv: `${id.toUpperCase()}_TOKEN`,
            pipelines: { listings: { pipelineId: 'default' } },
          },
          webhooks: { publicBaseUrl: 'https://sync.example.test', secretEnv: 'WEBHOOK_SECRET' },
        }),
      );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function loaded(env: Record<string, string>): ConfigService {
    const config = new ConfigService(dir, new SecretRedactor(), env);
    config.load(false);
    return config;
  }

  it('names the unset variable of a brokerage whose file does not load, asked for by name or not', () => {
    const config = loaded({
      ...secret,
      ACME_KEY: 'acme-key',
      ACME_TOKEN: 'acme-token',
      BOLT_KEY: 'bolt-key',
    });

    expect(selectBrokerages(config, undefined)).toEqual(['acme']);
    expect(unreadyBrokerageMessages(config)).toEqual([
      expect.stringMatching(
        /^brokerage "bolt" is not loaded: .*crm\.tokenEnv names the environment variable BOLT_TOKEN, which is not set/,
      ),
    ]);
    expect(() => selectBrokerages(config, 'bolt')).toThrow(/brokerage "bolt" is not loaded: .*BOLT_TOKEN/);
  });

  it('still calls a name with no file unknown, listing the known ones', () => {
    const config = loaded({ ...secret, ACME_KEY: 'a', ACME_TOKEN: 'b', BOLT_KEY: 'c', BOLT_TOKEN: 'd' });
    expect(unreadyBrokerageMessages(config)).toEqual([]);
    expect(() => selectBrokerages(config, 'nosuch')).toThrow(
      `no brokerage "nosuch" is configured in ${dir} (known: acme, bolt)`,
    );
  });

  it('lists a brokerage whose file does not load among the known ones, saying so', () => {
    const config = loaded({ ...secret, ACME_KEY: 'a', ACME_TOKEN: 'b', BOLT_KEY: 'c' });
    expect(() => selectBrokerages(config, 'bolts')).toThrow(
      `no brokerage "bolts" is configured in ${dir} (known: acme, bolt (its file does not load))`,
    );
  });
});
