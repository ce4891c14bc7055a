import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { freePort } from '../../support/free-port';
import {
  DAEMON_WAIT,
  MAIN_JS,
  baseEnv,
  brokerageConfig,
  makeWorkspace,
  secretsOf,
  startProcess,
  writeBrokerage,
  type RunningProcess,
  type Workspace,
} from './daemon.fixtures';
import { waitFor } from '../../support/wait-for';

// Health and metrics (brokerage ids, timings) used to share the port the service
// must reach. Now the admin listener serves only them and the webhook listener only webhooks.
describe('the admin and webhook listeners', () => {
  let ws: Workspace;
  let daemon: RunningProcess;
  let admin: string;
  let webhooks: string;
  const secret = secretsOf('acme').ACME_WEBHOOK_SECRET;

  beforeAll(async () => {
    ws = makeWorkspace();
    const [adminPort, webhookPort] = [await freePort(), await freePort()];
    // Nothing listens on port 9: the jobs and the registration fail quietly, which is not under test.
    const config = brokerageConfig('acme') as { cashOffer: { baseUrl: string }; crm: { baseUrl: string } };
    config.cashOffer.baseUrl = 'http://127.0.0.1:9/api/v2';
    config.crm.baseUrl = 'http://127.0.0.1:9';
    writeBrokerage(ws, config);
    daemon = startProcess(MAIN_JS, baseEnv(ws, adminPort, ['acme'], webhookPort));
    await waitFor(() => daemon.stdout().includes('"listening on') || daemon.child.exitCode !== null, {
      what: 'the daemon to listen',
      ...DAEMON_WAIT,
    });
    if (daemon.child.exitCode !== null) throw new Error(`daemon exited: ${daemon.stderr()}`);
    admin = `http://127.0.0.1:${adminPort}`;
    webhooks = `http://127.0.0.1:${webhookPort}`;
  });

  afterAll(async () => {
    await daemon.stop();
    ws.cleanup();
  });

  const event = JSON.stringify({
    event: 'offer_request_approved',
    offer_request_id: 7,
    offer_request_status: 'receiving_offers',
  });

  it('serves health and metrics on the admin listener only', async () => {
    expect((await fetch(`${admin}/health/live`)).status).toBe(200);
    expect((await fetch(`${admin}/metrics`)).status).toBe(200);
    for (const path of ['/metrics', '/health/live', '/health/ready', '/']) {
      const res = await fetch(`${webhooks}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(await res.text()).not.toContain('acme');
    }
  });

  it('receives webhooks on the webhook listener only', async () => {
    const onWebhooks = await fetch(`${webhooks}/webhooks/acme/${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: event,
    });
    expect(onWebhooks.status).toBe(200);
    // Longer than a load balancer's 60 s idle, so it is never the daemon that closes a reused connection.
    expect(onWebhooks.headers.get('keep-alive')).toBe('timeout=65');
    const onAdmin = await fetch(`${admin}/webhooks/acme/${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: event,
    });
    expect(onAdmin.status).toBe(404);
    // A GET on the webhook route answers 4xx: the listener is reachable, which register-webhooks checks.
    expect((await fetch(`${webhooks}/webhooks`)).status).toBe(404);
  });

  // Issue 24: every webhook route answered `200 {"received":true}` to text/plain and form bodies.
  // The CRM routes take JSON only. The Cash Offer route reads any text type's body as JSON (the spec
  // shows no Content-Type for its deliveries; fetch() declares a string body text/plain): a body that
  // is not JSON is a 400, and only a type that cannot be JSON text is a 415.
  it('refuses what cannot be a JSON event on every webhook route (415, or 400 for a text body that is not JSON), and counts the 415s', async () => {
    const post = (path: string, type: string, body: string) =>
      fetch(`${webhooks}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    for (const path of ['/webhooks/crm/followupboss/acme', '/webhooks/crm/hubspot/acme'])
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await post(path, type, type === 'text/plain' ? event : 'event=offer_request_approved');
        expect({ path, type, status: res.status }).toEqual({ path, type, status: 415 });
      }
    const cashOffer = `/webhooks/acme/${secret}`;
    const answers = [
      ['text/plain;charset=UTF-8', event, 200],
      ['application/x-www-form-urlencoded', 'event=offer_request_approved', 400],
      ['multipart/form-data; boundary=x', event, 415],
      ['image/png', event, 415],
    ] as const;
    for (const [type, body, status] of answers)
      expect({ type, status: (await post(cashOffer, type, body)).status }).toEqual({ type, status });
    const metrics = await (await fetch(`${admin}/metrics`)).text();
    const count = (pattern: RegExp): number =>
      metrics
        .split('\n')
        .filter((line) => pattern.test(line))
        .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
    expect(
      count(/^cash_offer_sync_webhook_events_total\{brokerage="acme",result="unsupported_media_type"\}/),
    ).toBe(2);
    expect(
      count(
        /^cash_offer_sync_crm_webhook_events_total\{.*crm="followupboss".*result="unsupported_media_type"/,
      ),
    ).toBe(2);
    expect(
      count(/^cash_offer_sync_crm_webhook_events_total\{.*crm="hubspot".*result="unsupported_media_type"/),
    ).toBe(2);
  });

  it('names both listeners in the start log', () => {
    expect(daemon.stdout()).toContain(`(admin: health, metrics, console) and ${webhooks} (webhooks)`);
  });

  // They hold personal data (sellers' addresses, agents' emails); they used to be 0644.
  it("keeps the running daemon's ledger, WAL, SHM and pid file private (0600)", () => {
    const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);
    const files = [ws.ledgerPath, `${ws.ledgerPath}-wal`, `${ws.ledgerPath}-shm`, join(ws.dir, 'daemon.pid')];
    expect(files.map((f) => `${basename(f)} ${mode(f)}`)).toEqual(files.map((f) => `${basename(f)} 600`));
  });
});
