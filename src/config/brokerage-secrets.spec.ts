import type { BrokerageConfig } from './brokerage-config.schema';
import { resolveSecrets } from './brokerage-secrets';

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
});
