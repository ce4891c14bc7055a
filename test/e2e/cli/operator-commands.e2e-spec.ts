import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../../../src/ledger/ledger';
import { DECIDE_OFFER, decisionKey } from '../../../src/sync/decisions/decision.command';
import { startSimulators, Simulators } from '../../../sandbox/simulators';
import { runCli } from '../daemon/daemon.fixtures';
import { freePort } from '../../support/free-port';
import { SandboxControl } from '../../support/sync-sandbox';
import { writeBrokerageConfigs } from '../../support/webhook-app';

// setup-crm, register-webhooks and sync --once against the bundled simulators, as an operator runs
// them: the compiled CLI in a child process (`npm run build` first), real HTTP, a real ledger file.
describe('operator commands', () => {
  let sims: Simulators;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const cli = (...args: string[]) => runCli(args, env);

  // Stands in for the daemon's webhook listener, which answers 404 outside a brokerage's route.
  let listener: Server;
  let listenerUrl: string;
  let closedUrl: string;

  beforeAll(async () => {
    sims = await startSimulators({ cashOfferPort: 0, hubspotPort: 0, log: false });
    listener = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    closedUrl = `http://127.0.0.1:${await freePort()}`;
    dir = mkdtempSync(join(tmpdir(), 'cos-cli-'));
    const vars: Record<string, string> = {};
    writeBrokerageConfigs(
      join(dir, 'brokerages'),
      [
        {
          id: 'acme',
          secret: 'acme-secret-0123456789abcdefghij',
          cashOfferBaseUrl: sims.cashOffer.baseUrl,
          cashOfferApiKey: sims.cashOffer.agentKey,
          crmBaseUrl: sims.hubspot.url,
          crmToken: sims.hubspot.token,
          publicBaseUrl: listenerUrl,
        },
        {
          id: 'nowhere',
          secret: 'nowhere-secret-0123456789abcdefg',
          cashOfferBaseUrl: sims.cashOffer.baseUrl,
          cashOfferApiKey: sims.cashOffer.agentKey,
          crmBaseUrl: sims.hubspot.url,
          crmToken: sims.hubspot.token,
          // A port nothing listens on.
          publicBaseUrl: closedUrl,
        },
      ],
      vars,
    );
    env = {
      ...process.env,
      ...vars,
      CONFIG_DIR: join(dir, 'brokerages'),
      LEDGER_PATH: join(dir, 'ledger.sqlite'),
      LOG_LEVEL: 'silent',
    };
    // The daemon's first start creates the ledger; the CLI never does (it refuses a missing one).
    await (await openLedger({ databasePath: join(dir, 'ledger.sqlite') })).close();
  });

  afterAll(async () => {
    await new Promise((done) => listener.close(done));
    await sims.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('setup-crm creates everything once, then reports it already present', async () => {
    const first = await cli('setup-crm', '--json');
    expect(first.code).toBe(0);
    const items = (JSON.parse(first.stdout) as { brokerages: { report: { items: { outcome: string }[] } }[] })
      .brokerages[0].report.items;
    expect(items.length).toBeGreaterThan(20);
    expect(items.every((i) => i.outcome === 'created')).toBe(true);
    const second = await cli('setup-crm');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`acme: 0 created, 0 updated, ${items.length} already present`);
    // The ids the CRM assigned, as in the JSON report, one row per stage.
    const pipelines = (
      JSON.parse(first.stdout) as {
        brokerages: {
          report: { pipelines: Record<string, { id: string; stages: Record<string, string> }> };
        }[];
      }
    ).brokerages[0].report.pipelines;
    expect(second.stdout).toContain('acme: pipelines and stages');
    expect(second.stdout).toMatch(/PIPELINE\s+PIPELINE ID\s+STAGE\s+STAGE ID/);
    for (const [key, pipeline] of Object.entries(pipelines))
      for (const [stage, id] of Object.entries(pipeline.stages))
        expect(second.stdout).toMatch(new RegExp(`${key}\\s+${pipeline.id}\\s+${stage}\\s+${id}`));
  });

  it('register-webhooks registers once, then says it is already registered, never printing the secret', async () => {
    const first = await cli('register-webhooks', '--brokerage', 'acme');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/acme\s+registered\s+http:\/\/127\.0\.0\.1:\d+\/webhooks\/acme\/<secret>/);
    const second = await cli('register-webhooks', '--brokerage', 'acme', '--json');
    expect(JSON.parse(second.stdout)).toEqual({
      registrations: [
        {
          brokerageId: 'acme',
          outcome: 'already registered',
          url: `${listenerUrl}/webhooks/acme/<secret>`,
        },
      ],
    });
    expect(first.stdout + first.stderr + second.stdout + second.stderr).not.toContain(
      'acme-secret-0123456789abcdefghij',
    );
  });

  // A registered address the service cannot reach would lose every event silently.
  it('register-webhooks refuses an address where nothing answers, and registers nothing', async () => {
    const answer = await cli('register-webhooks', '--brokerage', 'nowhere', '--json');
    expect(answer.code).toBe(1);
    const [report] = (JSON.parse(answer.stdout) as { registrations: { outcome: string; error: string }[] })
      .registrations;
    expect(report.outcome).toBe('failed');
    expect(report.error).toContain(
      `webhooks.publicBaseUrl is not reachable: ${closedUrl}/webhooks did not answer (ECONNREFUSED)`,
    );
    const registered = (await (await fetch(`${sims.cashOffer.controlUrl}/webhooks`)).json()) as Record<
      string,
      string
    >;
    expect(Object.values(registered).some((url) => url.includes('/webhooks/nowhere/'))).toBe(false);
    // The table wraps the error instead of cutting it: its end says what to check.
    const table = await cli('register-webhooks', '--brokerage', 'nowhere');
    expect(table.stdout).not.toContain('…');
    expect(table.stdout.replace(/\s+/g, ' ')).toContain(
      "is the daemon's webhook listener running and reachable",
    );
  });

  it('sync --dry-run shows what the marketplace pass would create and writes nothing; the real run does it', async () => {
    await fetch(`${sims.cashOffer.controlUrl}/seed-active`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ count: 30 }),
    });
    const dry = await cli('sync', '--brokerage', 'acme', '--job', 'marketplace', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({
      status: 'succeeded',
      dryRun: true,
      counts: { read: 30, created: 30 },
    });
    expect(sims.hubspot.state.count('deals')).toBe(0);
    const real = await cli('sync', '--brokerage', 'acme', '--job', 'marketplace', '--once');
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/acme\s+marketplace\s+succeeded\s+30\s+30\s+0\s+0\s+0/);
    expect(sims.hubspot.state.count('deals')).toBe(30);
    const again = await cli('sync', '--brokerage', 'acme', '--job', 'marketplace', '--dry-run', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({
      counts: { read: 30, created: 0, updated: 0, unchanged: 30 },
    });
    const runs = await cli('runs', '--json');
    // The dry runs recorded nothing.
    expect(
      (JSON.parse(runs.stdout) as { runs: { job: string }[] }).runs.filter((r) => r.job === 'marketplace'),
    ).toHaveLength(1);
  });

  it('sync of a drain that ends on its time budget (DRAIN_RUN_SECONDS) says what it left waiting', async () => {
    // Three of the agent's decisions queued, and a service that takes 1.5 s to answer each.
    const ledger = await openLedger({ databasePath: join(dir, 'ledger.sqlite') });
    try {
      for (const offerId of [990_001, 990_002, 990_003])
        await ledger.outbox.enqueue({
          brokerageId: 'nowhere',
          idempotencyKey: decisionKey('nowhere', offerId, DECIDE_OFFER),
          operation: DECIDE_OFFER,
          recordRef: `deal:${offerId}`,
          payload: { offerId, requestId: 1, recordId: String(offerId), decision: 'rejected' },
        });
    } finally {
      await ledger.close();
    }
    const sandbox = new SandboxControl(sims.cashOffer.controlUrl);
    await sandbox.faults({ match: 'PATCH /offers', latencyMs: 1500 });
    try {
      const run = await runCli(['sync', '--brokerage', 'nowhere', '--job', 'outbox-drain'], {
        ...env,
        DRAIN_RUN_SECONDS: '1',
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /the run ended on its time budget with 2 outbox commands still waiting \(2 pending\); the next run takes them as they come due/,
      );
    } finally {
      await sandbox.clearFaults();
    }
  });

  it('refuses a sync without its brokerage or job, and names an unknown brokerage', async () => {
    const missing = await cli('sync', '--job', 'marketplace');
    expect(missing.code).not.toBe(0);
    const unknown = await cli('setup-crm', '--brokerage', 'nope');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/no brokerage "nope" is configured in .* \(known: acme, nowhere\)/);
  });
});
