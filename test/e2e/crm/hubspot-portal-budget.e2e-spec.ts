import { Logger } from '@nestjs/common';
import { CrmPortFactory } from '../../../src/brokerages/crm-port.factory';
import { SystemClock } from '../../../src/common/clock';
import type { LoadedBrokerage } from '../../../src/config/config.loader';
import { RateLimitMisses } from '../../../src/common/rate-limit-misses';
import type { CrmOperations, ReadChangesOptions } from '../../../src/crm';
import { HubSpotCrmAdapter, HubSpotPortalLimiters } from '../../../src/crm/hubspot';
import { MetricsService } from '../../../src/observability/metrics/metrics.service';
import { startHubSpotEmulator } from '../../../sandbox/hubspot';
import type { HubSpotEmulator } from '../../../sandbox/hubspot';
import { freePort } from '../../support/free-port';
import { EmulatorControl } from './emulator-control';

const TOKEN = 'pat-network';
const READ: ReadChangesOptions = { kind: 'deal', since: null, properties: ['dealname'] };

// Either side of the port will do: only the number of searches counts here.
async function readOnce(adapter: CrmOperations): Promise<void> {
  for await (const page of adapter.readChanges(READ)) void page;
}

// Many brokerages (offices of one network) on one HubSpot portal: HubSpot counts search per
// account ("five requests per second per account"), so their adapters must share one budget.
describe('one HubSpot portal, many adapters: one search budget', () => {
  let emulator: HubSpotEmulator;
  let control: EmulatorControl;

  beforeAll(async () => {
    // The emulator enforces the published search limit, 5 per second, and answers a 429 beyond it.
    emulator = await startHubSpotEmulator({ port: await freePort(), token: TOKEN, searchIndexLagMs: 0 });
    control = new EmulatorControl(emulator.url);
  });

  afterAll(async () => {
    await emulator.close();
  });

  beforeEach(async () => {
    await control.reset();
  });

  // No retries: any search the portal refuses fails its read, so the emulator's count is exact.
  const adapterFor = (brokerageId: string, portalLimiters?: HubSpotPortalLimiters) =>
    new HubSpotCrmAdapter({
      accessToken: TOKEN,
      basePath: emulator.url,
      brokerageId,
      maxRateLimitRetries: 0,
      ...(portalLimiters ? { portalLimiters } : {}),
    });

  it('two adapters on one registry never exceed the portal search limit in any window', async () => {
    const portals = new HubSpotPortalLimiters();
    const a = adapterFor('office-a', portals);
    const b = adapterFor('office-b', portals);
    const before = emulator.state.rateLimitCounts();
    const reads = [
      ...Array.from({ length: 8 }, () => readOnce(a)),
      ...Array.from({ length: 8 }, () => readOnce(b)),
    ];
    const results = await Promise.allSettled(reads);
    const after = emulator.state.rateLimitCounts();

    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(portals.size).toBe(1);
    expect(after.searchRejected - before.searchRejected).toBe(0);
    expect(after.searchAdmitted - before.searchAdmitted).toBeGreaterThanOrEqual(16);
  });

  it("the daemon's factory gives every brokerage naming one portal the same budget", async () => {
    const metrics = new MetricsService();
    const factory = new CrmPortFactory(new SystemClock(), null, metrics);
    // Two brokerage files naming the same portal (base URL and token), as offices of one network.
    const office = (id: string) =>
      ({
        id,
        config: { crm: { kind: 'hubspot', baseUrl: `${emulator.url}/` } },
        secrets: { crmToken: TOKEN },
      }) as unknown as LoadedBrokerage;
    const [a, b] = [factory.create(office('office-a')), factory.create(office('office-b'))];
    const before = emulator.state.rateLimitCounts();
    const results = await Promise.allSettled([
      ...Array.from({ length: 8 }, () => readOnce(a)),
      ...Array.from({ length: 8 }, () => readOnce(b)),
    ]);
    const after = emulator.state.rateLimitCounts();
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(after.searchRejected - before.searchRejected).toBe(0);
    expect(after.searchAdmitted - before.searchAdmitted).toBeGreaterThanOrEqual(16);
    expect(await metrics.render()).not.toContain('cash_offer_sync_rate_limit_misses_total{');
  });

  // The portal's search budget shared with another app of the account: its operator gives the
  // daemon part of it, here 2 a second of the 5.
  it("the factory keeps a brokerage file's own search limit, below HubSpot's", async () => {
    const factory = new CrmPortFactory(new SystemClock(), null, new MetricsService());
    const office = {
      id: 'office-a',
      config: { crm: { kind: 'hubspot', baseUrl: emulator.url, searchRateLimit: { requestsPerSecond: 2 } } },
      secrets: { crmToken: TOKEN },
    } as unknown as LoadedBrokerage;
    const port = factory.create(office, { maxTransientRetries: 0 });
    await control.put('settings', { searchPerSecond: 2 });
    const before = emulator.state.rateLimitCounts();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => readOnce(port)));
    const after = emulator.state.rateLimitCounts();
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(after.searchRejected - before.searchRejected).toBe(0);
    expect(after.searchAdmitted - before.searchAdmitted).toBeGreaterThanOrEqual(6);
  });

  it('the same two adapters with a budget each go over it and are refused (what the registry prevents)', async () => {
    const a = adapterFor('office-a');
    const b = adapterFor('office-b');
    const before = emulator.state.rateLimitCounts();
    await Promise.allSettled([
      ...Array.from({ length: 8 }, () => readOnce(a)),
      ...Array.from({ length: 8 }, () => readOnce(b)),
    ]);
    expect(emulator.state.rateLimitCounts().searchRejected - before.searchRejected).toBeGreaterThan(0);
  });

  it('a 429 the limiter let through is counted in the metric and logged once, not a line per retry', async () => {
    const metrics = new MetricsService();
    const warnings: string[] = [];
    const misses = new RateLimitMisses(new SystemClock(), { warn: (m) => warnings.push(m) }, (remote) =>
      metrics.rateLimitMiss(remote),
    );
    const adapterWarn = jest.spyOn(Logger.prototype, 'warn');
    const adapter = new HubSpotCrmAdapter({
      accessToken: TOKEN,
      basePath: emulator.url,
      retryBaseDelayMs: 1,
      onRateLimitMiss: () => misses.record('hubspot', 'office-a'),
    });
    await control.put('faults', { burst429: 3 });
    try {
      await readOnce(adapter);
    } finally {
      adapterWarn.mockRestore();
    }

    expect(await metrics.render()).toContain('cash_offer_sync_rate_limit_misses_total{remote="hubspot"} 3');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('answered 429');
    expect(adapterWarn.mock.calls.filter(([m]) => String(m).includes('retry'))).toEqual([]);
  });
});
