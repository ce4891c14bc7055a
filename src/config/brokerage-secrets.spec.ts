import type { BrokerageConfig } from './brokerage-config.schema';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSecrets, secretValues } from './brokerage-secrets';

const config = (simulated: boolean): BrokerageConfig =>
  ({
    id: 'demo',
    simulated,
    cashOffer: { apiKeyEnv: 'DEMO_KEY' },
    crm: { kind: 'hubspot', tokenEnv: 'DEMO_TOKEN' },
    webhooks: { secretEnv: 'DEMO_SECRET' },
  }) as unknown as BrokerageConfig;

describe('resolveSecrets', () => {
  it('names each unset variable with the field that names it', () => {
    const { problems } = resolveSecrets(config(false), {}, 'demo.yaml');
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'cashOffer.apiKeyEnv: names the environment variable DEMO_KEY, which is not set',
      'crm.tokenEnv: names the environment variable DEMO_TOKEN, which is not set',
      'webhooks.secretEnv: names the environment variable DEMO_SECRET, which is not set',
    ]);
  });

  it('tells the operator running the daemon alone on a simulated brokerage where its credentials come from', () => {
    const { problems } = resolveSecrets(config(true), {}, 'demo.yaml');
    expect(problems).toHaveLength(3);
    for (const p of problems) expect(p.message).toContain('marked simulated: true');
    expect(problems[0].message).toContain('`npm start`');
  });

  it("reads HubSpot's client secret from its variable or file, and counts it among the secrets to redact", () => {
    const env = {
      DEMO_KEY: 'k',
      DEMO_TOKEN: 't',
      DEMO_SECRET: 's'.repeat(22),
      DEMO_CLIENT: 'client-secret-1',
    };
    const withEnv = {
      ...config(false),
      crm: { kind: 'hubspot', tokenEnv: 'DEMO_TOKEN', clientSecretEnv: 'DEMO_CLIENT' },
    };
    const fromEnv = resolveSecrets(withEnv as BrokerageConfig, env, 'demo.yaml');
    expect(fromEnv.secrets?.crmClientSecret).toBe('client-secret-1');
    expect(secretValues(fromEnv.secrets!)).toContain('client-secret-1');
    const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
    try {
      writeFileSync(join(dir, 'client'), 'client-secret-2\n');
      const withFile = {
        ...config(false),
        crm: { kind: 'hubspot', tokenEnv: 'DEMO_TOKEN', clientSecretFile: 'client' },
      };
      expect(
        resolveSecrets(withFile as BrokerageConfig, env, 'demo.yaml', dir).secrets?.crmClientSecret,
      ).toBe('client-secret-2');
      const both = { ...config(false), crm: { ...withEnv.crm, clientSecretFile: 'client' } };
      expect(
        resolveSecrets(both as BrokerageConfig, env, 'demo.yaml', dir).problems.map((p) => p.path),
      ).toEqual(['crm.clientSecretFile']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Optional: without it there is no problem and no client secret.
    expect(resolveSecrets(config(false), env, 'demo.yaml').secrets?.crmClientSecret).toBeUndefined();
  });
});
