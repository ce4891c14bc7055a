import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../../sandbox/hubspot';
import { openLedger } from '../../../src/ledger/ledger';
import { freePort } from '../../support/free-port';
import {
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  runCli,
  secretsOf,
  writeBrokerage,
  type Workspace,
} from '../daemon/daemon.fixtures';

jest.setTimeout(60_000);

// The operator's side of HubSpot webhooks (needs `npm run build`): setup-crm says what to subscribe
// and writes a webhooks.json HubSpot (here, the emulator) takes as it is; validate-config --online
// warns while none has arrived.
describe('CLI: HubSpot webhooks', () => {
  let ws: Workspace;
  let emulator: HubSpotEmulator;
  const token = secretsOf('acme').ACME_CRM_TOKEN;
  const env = () => ({
    ...baseEnv(ws, 0, ['acme']),
    ACME_HUBSPOT_CLIENT_SECRET: 'client-secret-of-acme-0000',
  });

  beforeAll(async () => {
    emulator = await startHubSpotEmulator({ port: await freePort(), token });
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(() => {
    ws = makeWorkspace();
    const config = brokerageConfig('acme');
    writeBrokerage(ws, {
      ...config,
      crm: {
        ...(config.crm as object),
        baseUrl: emulator.url,
        clientSecretEnv: 'ACME_HUBSPOT_CLIENT_SECRET',
      },
      webhooks: { ...(config.webhooks as object), publicBaseUrl: 'https://sync.acme.example' },
    });
  });
  afterEach(() => ws.cleanup());

  it('setup-crm prints each subscription with the target URL and writes a webhooks.json HubSpot takes', async () => {
    const result = await runCli(['setup-crm'], env());
    expect(result.code).toBe(0);
    const target = 'https://sync.acme.example/webhooks/crm/hubspot/acme';
    expect(result.stdout).toContain(`set the target URL to\n  ${target}`);
    expect(result.stdout).toMatch(
      /deal\s+created\s+-\s+https:\/\/sync\.acme\.example\/webhooks\/crm\/hubspot\/acme/,
    );
    expect(result.stdout).toMatch(/deal\s+property changed\s+cash_offer_request_trigger\s+https:/);
    expect(result.stdout).toMatch(/contact\s+property changed\s+cash_offer_submit_lead\s+https:/);
    const file = join(ws.dir, 'hubspot-webhooks', 'acme', 'webhooks.json');
    expect(existsSync(join(ws.dir, 'hubspot-webhooks', 'acme', 'webhooks-hsmeta.json'))).toBe(true);
    const webhooks = JSON.parse(readFileSync(file, 'utf8')) as {
      settings: { targetUrl: string; maxConcurrentRequests: number };
      subscriptions: { crmObjects: Record<string, unknown>[] };
    };
    expect(webhooks.settings).toEqual({ targetUrl: target, maxConcurrentRequests: 10 });
    expect(webhooks.subscriptions.crmObjects).toContainEqual({
      subscriptionType: 'object.propertyChange',
      objectName: 'deal',
      propertyName: 'dealstage',
      active: true,
    });
    // Properties the daemon writes back are not subscribed: its own writes do not wake it.
    const names = webhooks.subscriptions.crmObjects.map((s) => s.propertyName);
    expect(names).not.toContain('cash_offer_request_id');
    expect(names).not.toContain('cash_offer_sync_error');
    const deployed = await fetch(`${emulator.url}/__control/webhooks`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhooks),
    });
    expect(deployed.status).toBe(200);
  });

  it('validate-config --online warns while no verified webhook has arrived, and stops once one has', async () => {
    const silent = await runCli(['validate-config', '--online'], env());
    expect(silent.code).toBe(0);
    expect(silent.stderr).toContain('warning: acme: HubSpot webhooks are configured');
    expect(silent.stderr).toContain('none has arrived in the last 24 h');
    const ledger = await openLedger({ databasePath: ws.ledgerPath });
    await ledger.crmWebhookEvents.remember('acme', 'hubspot', ['1']);
    await ledger.close();
    const heard = await runCli(['validate-config', '--online', '--json'], env());
    expect(heard.code).toBe(0);
    expect(JSON.parse(heard.stdout)).toMatchObject({ valid: true, warnings: [] });
  });
});
