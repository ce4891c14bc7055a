import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CashOfferClientFactory } from '../../../src/cash-offer';
import type { CashOfferClient } from '../../../src/cash-offer';
import { SystemClock } from '../../../src/common/clock';
import type { LoadedBrokerage } from '../../../src/config/config.loader';
import { CASH_OFFER_CRM_SCHEMA, CRM_ROLE, CrmStageMap, VendorNeutralCrmPort } from '../../../src/crm';
import { HubSpotCrmAdapter, hubSpotVendorProfile } from '../../../src/crm/hubspot';
import { openLedger } from '../../../src/ledger/ledger';
import type { Ledger } from '../../../src/ledger/ledger';
import type { JobContext, JobCounts } from '../../../src/scheduler/job.types';
import { emptyCounts } from '../../../src/scheduler/job.types';
import { startCashOfferSandbox } from '../../../sandbox/cash-offer';
import type { RunningCashOfferSandbox } from '../../../sandbox/cash-offer';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator, RequestLogEntry } from '../../../sandbox/hubspot';
import type { MarketplaceSource } from '../../../src/sync/marketplace/marketplace.sync';
import { MarketplaceSync } from '../../../src/sync/marketplace/marketplace.sync';

export const BROKERAGE_ID = 'acme';

// The two simulators, a real ledger file and the daemon's clients, wired by hand for one brokerage.
export interface BuyerWorld {
  sandbox: RunningCashOfferSandbox;
  emulator: HubSpotEmulator;
  ledger: Ledger;
  crm: HubSpotCrmAdapter;
  stages: CrmStageMap;
  buyerClient: CashOfferClient;
  dir: string;
  marketplacePass(options?: {
    dryRun?: boolean;
    source?: MarketplaceSource;
    onProgress?: (done: number, total?: number) => void;
  }): Promise<JobCounts>;
  control(target: 'sandbox' | 'crm', method: string, path: string, body?: unknown): Promise<unknown>;
  crmRequests(): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
}

export async function startBuyerWorld(): Promise<BuyerWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'cos-buyer-'));
  const sandbox = await startCashOfferSandbox({ port: 0, pushDelayMs: 20 });
  const emulator = await startHubSpotEmulator({
    port: 0,
    token: 'pat-buyer',
    rateLimit: null,
    searchPerSecond: null,
  });
  const ledger = await openLedger({ databasePath: join(dir, 'ledger.sqlite') });
  const crm = new HubSpotCrmAdapter({
    accessToken: 'pat-buyer',
    basePath: emulator.url,
    rateLimit: { max: 10_000, intervalMs: 1000 },
    searchRateLimit: { max: 1000, intervalMs: 1000 },
  });
  const stages = CrmStageMap.fromReport(await crm.ensureSchema(CASH_OFFER_CRM_SCHEMA));
  const buyerClient = new CashOfferClientFactory().create({
    brokerageId: BROKERAGE_ID,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.buyerKey,
    rateLimit: { max: 1000, intervalMs: 1000 },
    retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 1000 },
  });
  const brokerage = { id: BROKERAGE_ID } as LoadedBrokerage;
  const sync = new MarketplaceSync(ledger.links, ledger.recordErrors, new SystemClock());

  const control = async (
    target: 'sandbox' | 'crm',
    method: string,
    path: string,
    body?: unknown,
  ): Promise<unknown> => {
    const base = target === 'sandbox' ? sandbox.controlUrl : `${emulator.url}/__control`;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };

  return {
    sandbox,
    emulator,
    ledger,
    crm,
    stages,
    buyerClient,
    dir,
    control,
    async marketplacePass({
      dryRun = false,
      source = buyerClient,
      onProgress = (_done: number, _total?: number): void => undefined,
    } = {}) {
      const run = dryRun ? null : await ledger.runs.start(BROKERAGE_ID, 'marketplace');
      const ctx: JobContext = {
        brokerage,
        runId: run?.id ?? null,
        signal: new AbortController().signal,
        dryRun,
        progress: onProgress,
      };
      try {
        // As the daemon's marketplace job does: the flow talks to the vendor-neutral port.
        const port = new VendorNeutralCrmPort(crm, hubSpotVendorProfile(new Map()));
        const counts = await sync.run(ctx, source, {
          crm: port,
          stages,
          record: { nameProperty: CRM_ROLE.name },
        });
        if (run) await ledger.runs.finish(run.id, { status: 'succeeded', counts });
        return counts;
      } catch (error) {
        if (run)
          await ledger.runs.finish(run.id, { status: 'failed', counts: emptyCounts(), error: String(error) });
        throw error;
      }
    },
    async crmRequests() {
      return ((await control('crm', 'GET', '/requests')) as { requests: RequestLogEntry[] }).requests;
    },
    async close() {
      buyerClient.close();
      await ledger.close();
      await emulator.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// CRM calls that change something (searches and batch reads are POSTs that do not).
export function crmWrites(log: RequestLogEntry[]): RequestLogEntry[] {
  return log.filter(
    (e) =>
      e.method !== 'GET' &&
      !/\/search$/.test(e.path) &&
      !/\/batch\/read$/.test(e.path) &&
      !e.path.startsWith('/__control'),
  );
}
