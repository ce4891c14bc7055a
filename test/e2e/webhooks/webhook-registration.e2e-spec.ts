import { startCashOfferSandbox, RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { ConfigService } from '../../../src/config/config.service';
import { WebhookRegistrationService } from '../../../src/webhooks/webhook-registration.service';
import { waitFor } from '../../support/wait-for';
import {
  startWebhookApp,
  writeBrokerageConfigs,
  WebhookTestApp,
  TestBrokerage,
} from '../../support/webhook-app';
import { join } from 'node:path';

const ACME_SECRET = 'acme-secret-0123456789abcdefghij';
const ROTATED_SECRET = 'acme-rotated-0123456789abcdefghi';

describe('webhook registration with the service', () => {
  let sandbox: RunningCashOfferSandbox;
  let t: WebhookTestApp;
  let brokerages: TestBrokerage[];

  const registeredUrls = async (): Promise<string[]> => {
    const answer = await fetch(`${sandbox.controlUrl}/webhooks`);
    return Object.values((await answer.json()) as Record<string, string>);
  };
  const calls = async (): Promise<string[]> => {
    const answer = await fetch(`${sandbox.controlUrl}/calls`);
    const body = (await answer.json()) as
      | { method: string; path: string; status: number }[]
      | { items: { method: string; path: string; status: number }[] };
    const list = Array.isArray(body) ? body : body.items;
    return list.filter((c) => c.path.startsWith('/api/v2/wh')).map((c) => `${c.method} ${c.status}`);
  };

  beforeAll(async () => {
    sandbox = await startCashOfferSandbox({ port: 0 });
    brokerages = [
      {
        id: 'acme',
        secret: ACME_SECRET,
        cashOfferBaseUrl: sandbox.baseUrl,
        cashOfferApiKey: sandbox.agentKey,
        publicBaseUrl: 'http://127.0.0.1:3999/',
      },
      {
        id: 'broken',
        secret: 'broken-secret-0123456789abcdefgh',
        cashOfferBaseUrl: sandbox.baseUrl,
        cashOfferApiKey: 'not-a-key-of-the-service',
      },
    ];
    t = await startWebhookApp(brokerages);
  });

  afterAll(async () => {
    await t.close();
    await sandbox.close();
  });

  it('registers each brokerage at start with POST /wh; one refused key does not stop the others', async () => {
    await waitFor(async () => (await registeredUrls()).length > 0, {
      what: 'a webhook URL registered at the service',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect(await registeredUrls()).toEqual([`http://127.0.0.1:3999/webhooks/acme/${ACME_SECRET}`]);
    const reports = await t.app.get(WebhookRegistrationService).registerAll();
    expect(reports).toEqual(
      expect.arrayContaining([
        {
          brokerageId: 'acme',
          outcome: 'already registered',
          url: 'http://127.0.0.1:3999/webhooks/acme/<secret>',
        },
        expect.objectContaining({
          brokerageId: 'broken',
          outcome: 'failed',
          error: expect.stringContaining('401'),
        }),
      ]),
    );
  });

  it('uses PATCH /wh when the URL changes (a rotated secret), and never prints the secret', async () => {
    brokerages[0].secret = ROTATED_SECRET;
    writeBrokerageConfigs(join(t.dir, 'brokerages'), brokerages, t.env);
    const reload = await t.app.get(ConfigService).reload();
    expect(reload.problems).toEqual([]);
    const report = await t.app.get(WebhookRegistrationService).register('acme');
    expect(report).toEqual({
      brokerageId: 'acme',
      outcome: 'updated',
      url: 'http://127.0.0.1:3999/webhooks/acme/<secret>',
    });
    expect(await registeredUrls()).toEqual([`http://127.0.0.1:3999/webhooks/acme/${ROTATED_SECRET}`]);
    expect(await calls()).toEqual(expect.arrayContaining(['POST 201', 'PATCH 200']));
    expect(JSON.stringify(report)).not.toContain(ROTATED_SECRET);
  });

  it('re-sends on --force even when nothing changed', async () => {
    const report = await t.app.get(WebhookRegistrationService).register('acme', { force: true });
    expect(report.outcome).toBe('updated');
  });

  it('registers a URL a config reload changed by itself, with no restart and no register-webhooks', async () => {
    brokerages[0].publicBaseUrl = 'http://127.0.0.1:3998/';
    writeBrokerageConfigs(join(t.dir, 'brokerages'), brokerages, t.env);
    const reload = await t.app.get(ConfigService).reload();
    expect(reload.diff.changed.map((b) => b.id)).toEqual(['acme']);
    const expected = `http://127.0.0.1:3998/webhooks/acme/${brokerages[0].secret}`;
    await waitFor(async () => (await registeredUrls()).includes(expected), {
      what: 'the changed webhook URL registered at the service',
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    expect(await registeredUrls()).toEqual([expected]);
  });
});
