import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crmSchemaFor } from '../../src/brokerages/crm-setup.schema';
import { CrmStageMap } from '../../src/crm';
import { HubSpotCrmAdapter } from '../../src/crm/hubspot';
import { startCashOfferSandbox, type RunningCashOfferSandbox } from '../../sandbox/cash-offer';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../sandbox/hubspot';
import { freePort } from './free-port';
import { SyncAgent, VALID_LISTING } from './sync-agent';
import { SandboxControl } from './sync-sandbox';
import { waitFor } from './wait-for';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

const LISTINGS_PIPELINE = 'default';
const TRIGGER_STAGE = 'qualifiedtobuy';

export interface WorldBrokerage {
  id: string;
  sandbox: RunningCashOfferSandbox;
  control: SandboxControl;
  hubspot: HubSpotEmulator;
  agent: SyncAgent;
}

export interface WorkerWorldOptions {
  brokerages: number;
  // The shared PostgreSQL ledger; without it the daemons use the SQLite file `ledgerPath`.
  ledgerUrl?: string;
  workers: number;
  leaseSeconds: number;
  // WORKER_HEARTBEAT_SECONDS: a worker silent for 6 of these has its jobs taken over (the default 5).
  heartbeatSeconds?: number;
  // The CRM account's limit, enforced by the emulator (429 + Retry-After) and told to the daemon.
  crmRequestsPerSecond?: number;
  // How long the daemon waits for the Cash Offer service before calling the outcome unknown.
  cashOfferTimeoutMs?: number;
  logLevel?: string;
  // Cron expressions by schedule key, over the defaults below (every 2-3 s, marketplace yearly).
  schedules?: Record<string, string>;
}

const DEFAULT_SCHEDULES: Record<string, string> = {
  crmChanges: '*/2 * * * * *',
  outboxDrain: '*/2 * * * * *',
  inboxDrain: '*/2 * * * * *',
  offersReconcile: '*/3 * * * * *',
  marketplace: '0 0 1 1 *',
};

// Several brokerages, each with its own Cash Offer sandbox and HubSpot emulator (in this process),
// and the brokerage files and environment for daemons (dist/bin/daemon.js) sharing one PostgreSQL
// ledger. Worker ports are chosen up front: brokerage i's webhooks go to worker i mod n, so intake
// happens on every instance while any worker may apply the events.
export class WorkerWorld {
  readonly workers: WorkerProcess[] = [];

  private constructor(
    readonly dir: string,
    readonly brokerages: WorldBrokerage[],
    readonly ports: number[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly crmRequestsPerSecond: number | undefined,
  ) {}

  // Each CRM account's limit as the emulator enforces it (429 + Retry-After beyond it).
  async applyCrmLimits(): Promise<void> {
    if (!this.crmRequestsPerSecond) return;
    for (const b of this.brokerages) {
      const res = await fetch(`${b.hubspot.url}/__control/settings`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rateLimit: { max: this.crmRequestsPerSecond, intervalMs: 1000 } }),
      });
      if (!res.ok) throw new Error(`could not limit ${b.id}'s CRM: ${res.status} ${await res.text()}`);
    }
  }

  static async start(options: WorkerWorldOptions): Promise<WorkerWorld> {
    const dir = mkdtempSync(join(tmpdir(), 'cos-workers-'));
    const configDir = join(dir, 'brokerages');
    mkdirSync(configDir);
    const ports: number[] = [];
    for (let i = 0; i < options.workers; i++) ports.push(await freePort());
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      TZ: 'UTC',
      WEBHOOK_HOST: '127.0.0.1',
      ADMIN_HOST: '127.0.0.1',
      CONFIG_DIR: configDir,
      LEDGER_PATH: join(dir, 'ledger.sqlite'),
      ...(options.ledgerUrl ? { LEDGER_URL: options.ledgerUrl } : {}),
      JOB_LEASE_SECONDS: String(options.leaseSeconds),
      ...(options.heartbeatSeconds ? { WORKER_HEARTBEAT_SECONDS: String(options.heartbeatSeconds) } : {}),
      // The tests follow runs through their "run started" lines, which are logged at debug.
      LOG_LEVEL: options.logLevel ?? 'debug',
    };
    const brokerages: WorldBrokerage[] = [];
    for (let i = 0; i < options.brokerages; i++) {
      const id = `b${String(i + 1).padStart(2, '0')}`;
      const token = `pat-${id}-0123456789`;
      const rps = options.crmRequestsPerSecond;
      const sandbox = await startCashOfferSandbox({
        port: 0,
        webhookRetryDelaysMs: [100, 200],
        pushDelayMs: 20,
      });
      const hubspot = await startHubSpotEmulator({
        port: 0,
        token,
        // Limited once the workers start (applyCrmLimits), so seeding a backlog is not throttled.
        rateLimit: null,
        searchPerSecond: null,
      });
      const crm = new HubSpotCrmAdapter({
        accessToken: token,
        basePath: hubspot.url,
        searchRateLimit: { max: 1000, intervalMs: 1000 },
      });
      CrmStageMap.fromReport(await crm.ensureSchema(crmSchemaFor('hubspot')));
      const prefix = id.toUpperCase();
      Object.assign(env, {
        [`${prefix}_CASH_OFFER_KEY`]: sandbox.agentKey,
        [`${prefix}_HUBSPOT_TOKEN`]: token,
        [`${prefix}_WEBHOOK_SECRET`]: `whsec-${id}-0123456789abcdef`,
      });
      writeFileSync(
        join(configDir, `${id}.yaml`),
        [
          `id: ${id}`,
          'cashOffer:',
          `  baseUrl: ${sandbox.baseUrl}`,
          `  apiKeyEnv: ${prefix}_CASH_OFFER_KEY`,
          `  timeoutMs: ${options.cashOfferTimeoutMs ?? 5000}`,
          'crm:',
          '  kind: hubspot',
          `  baseUrl: ${hubspot.url}`,
          `  tokenEnv: ${prefix}_HUBSPOT_TOKEN`,
          ...(rps ? [`  rateLimit: { requestsPerSecond: ${rps} }`] : []),
          // The emulator never limits search here; HubSpot's 5 a second would pace every poll.
          '  searchRateLimit: { requestsPerSecond: 1000 }',
          '  pipelines:',
          '    listings:',
          `      pipelineId: ${LISTINGS_PIPELINE}`,
          `      triggerStageId: ${TRIGGER_STAGE}`,
          'webhooks:',
          `  publicBaseUrl: http://127.0.0.1:${ports[i % ports.length]}`,
          `  secretEnv: ${prefix}_WEBHOOK_SECRET`,
          'schedules:',
          ...Object.entries({ ...DEFAULT_SCHEDULES, ...options.schedules }).map(([k, v]) => `  ${k}: '${v}'`),
          '',
        ].join('\n'),
      );
      brokerages.push({
        id,
        sandbox,
        control: new SandboxControl(sandbox.controlUrl),
        hubspot,
        agent: new SyncAgent(hubspot.url, token, crm),
      });
    }
    return new WorkerWorld(dir, brokerages, ports, env, options.crmRequestsPerSecond);
  }

  // Listing deals already in the trigger stage: each must become exactly one offer request.
  async seedDeals(brokerage: WorldBrokerage, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { dealId } = await brokerage.agent.listingDeal({
        ...VALID_LISTING,
        listing_street_number: String(100 + i),
      });
      await brokerage.agent.requestCashOffer(dealId);
      ids.push(dealId);
    }
    return ids;
  }

  get ledgerPath(): string {
    return this.env.LEDGER_PATH!;
  }

  // The workers' environment (secrets included), e.g. for running the CLI beside them.
  get environment(): NodeJS.ProcessEnv {
    return { ...this.env };
  }

  async startWorkers(count = this.ports.length, extraEnv: NodeJS.ProcessEnv = {}): Promise<WorkerProcess[]> {
    await this.applyCrmLimits();
    const env = { ...this.env, ...extraEnv };
    const started = this.ports.slice(0, count).map((port) => startWorkerProcess(env, port));
    this.workers.push(...started);
    for (const worker of started) {
      await waitFor(() => worker.stdout().includes('listening on') || worker.child.exitCode !== null, {
        what: 'a worker to listen',
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      if (worker.child.exitCode !== null) throw new Error(`a worker exited at start:\n${worker.stdout()}`);
    }
    return started;
  }

  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.kill('SIGTERM')));
    this.workers.length = 0;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.kill('SIGKILL')));
    for (const b of this.brokerages) {
      await b.sandbox.close();
      await b.hubspot.close();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
