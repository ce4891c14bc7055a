import { hubSpotSignatureV3 } from '../../../sandbox/hubspot';
import { hubSpotWebhooksJson } from '../../../src/brokerages/hubspot-webhook-subscriptions';
import { ConfigService } from '../../../src/config/config.service';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { JobRunner, SchedulerDriver } from '../../../src/scheduler';
import { FollowUpRuns } from '../../../src/webhooks/follow-up-runs';
import { CrmAgent, NEUTRAL_LISTING } from '../../support/crm-agent';
import { crmWebhookCount as hubSpotWebhookCount } from '../../support/crm-webhook-metrics';
import { hubSpotChangeEvent } from '../../support/hubspot-change-event';
import { ledgerEngines } from '../../support/ledger-fixture';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import { BROKERAGE, startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { SandboxControl } from '../../support/sync-sandbox';
import { waitFor } from '../../support/wait-for';

const FAR_AWAY = '0 0 1 1 *';

const crmWebhookCount = (t: SyncTestApp, result: string, brokerage = BROKERAGE) =>
  hubSpotWebhookCount(t, result, { brokerage, crm: 'hubspot' });

const crmChangesRuns = async (t: SyncTestApp) =>
  (await t.ledger.runs.list({ brokerageId: BROKERAGE, job: 'crm-changes' })).filter(
    (r) => r.status !== 'running',
  );

// The emulated private app, subscribed as setup-crm's webhooks.json says, posting to the daemon.
async function subscribe(t: SyncTestApp): Promise<string> {
  const brokerage = t.app.get(ConfigService).get(BROKERAGE)!;
  const webhooksJson = hubSpotWebhooksJson(brokerage) as { settings: { targetUrl: string } };
  const res = await fetch(`${t.hubspot.url}/__control/webhooks`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(webhooksJson),
  });
  expect(res.status).toBe(200);
  return webhooksJson.settings.targetUrl;
}

const emulatorControl = (t: SyncTestApp, path: string, body: unknown) =>
  fetch(`${t.hubspot.url}/__control/webhooks/${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function emulatorDeliveries(t: SyncTestApp) {
  const res = await fetch(`${t.hubspot.url}/__control/webhooks/deliveries`);
  return (await res.json()) as { pending: number; deliveries: { eventIds: number[]; outcome: unknown }[] };
}

// HubSpot webhooks make crm-changes run early; the run still reads HubSpot itself.
describe('HubSpot webhooks as an early trigger', () => {
  describe.each(ledgerEngines())('with crm-changes on a far-away cron (%s ledger)', (engine) => {
    let t: SyncTestApp;
    let database: TestPostgresDatabase | undefined;

    beforeAll(async () => {
      database = engine === 'postgres' ? await createTestPostgresDatabase('hshooks') : undefined;
      t = await startSyncApp('hubspot', {
        hubSpotWebhooks: true,
        ledgerUrl: database?.url,
        cron: {
          schedules: {
            crmChanges: FAR_AWAY,
            offersReconcile: FAR_AWAY,
            marketplace: FAR_AWAY,
            outboxDrain: '* * * * * *',
            inboxDrain: '* * * * * *',
          },
        },
      });
      await subscribe(t);
    });

    afterAll(async () => {
      await t?.close();
      await database?.drop();
    });

    it('an agent asking for a cash offer, then accepting one, in HubSpot reaches the service in seconds', async () => {
      if (engine === 'sqlite') {
        const nextPoll = t.app.get(SchedulerDriver).nextRun(BROKERAGE, 'crm-changes')!;
        expect(nextPoll.getTime() - Date.now()).toBeGreaterThan(60 * 60_000);
      }
      const agent = new CrmAgent(t.world);
      const sandbox = new SandboxControl(t.sandbox.controlUrl);
      const { dealId } = await agent.listingDeal(NEUTRAL_LISTING);
      const asked = Date.now();
      await agent.requestCashOffer(dealId);
      const request = await waitFor(
        async () => (await sandbox.requests()).find((r) => r.offer_request_external_id === dealId),
        { what: "the deal's offer request at the service", timeoutMs: 20_000 },
      );
      // The emulator's search shows an edit 2 s after it is made; the follow-up run 3 s after the
      // webhook reads it. Polling alone would wait for next year's tick.
      const tookMs = Date.now() - asked;
      expect(tookMs).toBeLessThan(15_000);

      await sandbox.approve(request.offer_request_id);
      const offer = await sandbox.makeOffer(request.offer_request_id, { offer_amount: 350_000 });
      // The offer record comes from the service's event (inbox), not from HubSpot.
      const record = await waitFor(() => agent.offerRecord(offer.offer_id), {
        what: 'the offer record in the CRM',
        timeoutMs: 20_000,
      });
      await agent.moveOffer(record.id, 'accept_requested');
      await waitFor(
        async () =>
          (await sandbox.offers()).find(
            (o) => o.offer_id === offer.offer_id && o.offer_status === 'accepted',
          ),
        { what: 'the service to show the offer accepted', timeoutMs: 20_000 },
      );
      await waitFor(
        async () => (await agent.offerRecord(offer.offer_id))?.properties[OFFER.status] === 'accepted',
        { what: 'the offer record to show accepted', timeoutMs: 20_000 },
      );
      // Every crm-changes run came from a webhook: cron would not have run one before next year.
      expect((await crmChangesRuns(t)).length).toBeGreaterThan(0);
      expect(await crmWebhookCount(t, 'triggered')).toBeGreaterThan(0);
      expect(await crmWebhookCount(t, 'forged')).toBe(0);
      expect(await t.ledger.crmWebhookEvents.lastReceivedAt(BROKERAGE, 'hubspot')).not.toBeNull();
    });
  });

  describe.each(ledgerEngines())('the receiving route (%s ledger)', (engine) => {
    let t: SyncTestApp;
    let url: string;
    let secret: string;
    let nextEventId = 1_000_000;

    const batch = (eventIds: number[] = [nextEventId++], extra: Record<string, unknown> = {}) =>
      JSON.stringify(eventIds.map((eventId) => hubSpotChangeEvent(eventId, extra)));
    const post = (
      body: string,
      options: { key?: string | null; timestamp?: number; contentType?: string; target?: string } = {},
    ): Promise<Response> => {
      const timestamp = String(options.timestamp ?? Date.now());
      const target = options.target ?? url;
      const key = options.key === undefined ? secret : options.key;
      return fetch(target, {
        method: 'POST',
        headers: {
          'content-type': options.contentType ?? 'application/json',
          'X-HubSpot-Request-Timestamp': timestamp,
          ...(key === null
            ? {}
            : { 'X-HubSpot-Signature-v3': hubSpotSignatureV3('POST', target, body, timestamp, key) }),
        },
        body,
      });
    };
    const result = async (res: Response) => ((await res.json()) as { result?: string }).result;

    beforeAll(async () => {
      t = await startSyncApp('hubspot', { hubSpotWebhooks: true, engine });
      url = await subscribe(t);
      secret = t.hubspot.clientSecret;
    });

    afterAll(async () => {
      await t?.close();
    });

    it('forged, missing, stale and misaddressed signatures are 401, change nothing and are counted', async () => {
      const runsBefore = (await crmChangesRuns(t)).length;
      const body = batch();
      expect((await post(body, { key: 'not-the-client-secret' })).status).toBe(401);
      expect((await post(body, { key: null })).status).toBe(401);
      // A true signature made six minutes ago: a captured request replayed later.
      expect((await post(body, { timestamp: Date.now() - 6 * 60_000 })).status).toBe(401);
      // Signed for another brokerage's URL, or sent to a brokerage that is not configured.
      expect((await post(body, { target: url.replace(/acme$/, 'nobody') })).status).toBe(401);
      expect(await crmWebhookCount(t, 'forged')).toBe(2);
      expect(await crmWebhookCount(t, 'stale')).toBe(1);
      expect(await crmWebhookCount(t, 'forged', 'unknown')).toBe(1);
      expect(await crmWebhookCount(t, 'triggered')).toBe(0);
      // Nothing was taken: neither an event id in the ledger nor a run.
      expect(await t.ledger.crmWebhookEvents.lastReceivedAt(BROKERAGE, 'hubspot')).toBeNull();
      expect((await crmChangesRuns(t)).length).toBe(runsBefore);
      // The same batch, truly signed now, is taken: the refusals did not burn its ids.
      expect(await result(await post(body))).toBe('triggered');
    });

    it('a replayed batch (same event ids, new or same signature) is acknowledged and asks for nothing', async () => {
      const body = batch([nextEventId++, nextEventId++]);
      const timestamp = Date.now();
      expect(await result(await post(body, { timestamp }))).toMatch(/^(triggered|coalesced)$/);
      const triggered = await crmWebhookCount(t, 'triggered');
      const coalesced = await crmWebhookCount(t, 'coalesced');
      const again = await post(body, { timestamp });
      expect(again.status).toBe(200);
      expect(await result(again)).toBe('replayed');
      expect(await result(await post(body))).toBe('replayed');
      expect(await crmWebhookCount(t, 'replayed')).toBe(2);
      expect(await crmWebhookCount(t, 'triggered')).toBe(triggered);
      expect(await crmWebhookCount(t, 'coalesced')).toBe(coalesced);
      // A batch holding one new id beside replayed ones is taken for the new one.
      const mixed = JSON.parse(body) as unknown[];
      const fresh = JSON.parse(batch()) as unknown[];
      expect(await result(await post(JSON.stringify([...mixed, ...fresh])))).toMatch(
        /^(triggered|coalesced)$/,
      );
    });

    it('an event about another object (a company) is taken but asks for no run', async () => {
      expect(await result(await post(batch(undefined, { objectTypeId: '0-2' })))).toBe('ignored');
    });

    it('hostile bodies are answered 400, 413 or 415, never 5xx', async () => {
      const invalidBefore = await crmWebhookCount(t, 'invalid');
      const statuses = await Promise.all(
        [
          '{not json',
          '[]',
          JSON.stringify({ eventId: 1, subscriptionType: 'deal.creation' }),
          'null',
          batch(undefined, { eventId: 'abc' }),
          batch(undefined, { objectId: -4 }),
          batch(undefined, { subscriptionType: 42 }),
          batch(undefined, { portalId: '12345678' }),
          // More events than any HubSpot request holds, under the size limit.
          JSON.stringify(Array(201).fill(JSON.parse(batch())[0])),
        ].map(async (body) => (await post(body)).status),
      );
      expect(statuses).toEqual(Array(9).fill(400));
      expect(await crmWebhookCount(t, 'invalid')).toBe(invalidBefore + 9);
      const huge = JSON.stringify(Array(2000).fill(JSON.parse(batch())[0]));
      expect(huge.length).toBeGreaterThan(64 * 1024);
      expect((await post(huge)).status).toBe(413);
      expect((await post(batch(), { contentType: 'text/plain' })).status).toBe(415);
      // Unsigned garbage is refused for its signature before its shape is read.
      expect((await post('{not json', { key: null })).status).toBe(401);
    });

    it('the emulator: a badly signed delivery is refused and counted, a duplicated one is a replay', async () => {
      const forgedBefore = await crmWebhookCount(t, 'forged');
      const replayedBefore = await crmWebhookCount(t, 'replayed');
      const agent = new CrmAgent(t.world);
      const settled = () =>
        waitFor(async () => (await emulatorDeliveries(t)).pending === 0, {
          what: 'no emulator webhook delivery pending',
          timeoutMs: 20_000,
        });
      const { dealId } = await agent.listingDeal(NEUTRAL_LISTING);
      await settled();
      const seen = (await emulatorDeliveries(t)).deliveries.length;
      // The next batch badly signed: refused, and not retried by the emulator (a 4xx is final).
      await emulatorControl(t, 'faults', { badSignature: 1 });
      await agent.update(dealId, { listing_city: 'Dallas' });
      await settled();
      // The next one sent twice: the copy is a replay.
      await emulatorControl(t, 'faults', { duplicate: 1 });
      await agent.update(dealId, { listing_city: 'Houston' });
      await settled();
      const outcomes = (await emulatorDeliveries(t)).deliveries.slice(seen).map((d) => d.outcome);
      expect(outcomes).toEqual([401, 200, 200]);
      expect(await crmWebhookCount(t, 'forged')).toBe(forgedBefore + 1);
      expect(await crmWebhookCount(t, 'replayed')).toBe(replayedBefore + 1);
    });

    it('with every webhook dropped, the next poll still picks the change up', async () => {
      // No follow-up of an earlier test's webhooks may run meanwhile: only the poll below.
      t.app.get(FollowUpRuns).cancelAll();
      await waitFor(() => !t.app.get(JobRunner).isRunning(BROKERAGE, 'crm-changes'), {
        what: 'no crm-changes run in progress',
      });
      const triggeredBefore = await crmWebhookCount(t, 'triggered');
      await emulatorControl(t, 'faults', { drop: 1000 });
      const agent = new CrmAgent(t.world);
      const sandbox = new SandboxControl(t.sandbox.controlUrl);
      const { dealId } = await agent.listingDeal(NEUTRAL_LISTING);
      await agent.requestCashOffer(dealId);
      await waitFor(
        async () => {
          const log = await emulatorDeliveries(t);
          return log.pending === 0 && log.deliveries.some((d) => d.outcome === 'dropped');
        },
        { what: 'the emulator to drop a webhook delivery' },
      );
      await emulatorControl(t, 'faults', { drop: 0 });
      expect(await crmWebhookCount(t, 'triggered')).toBe(triggeredBefore);
      expect((await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId)).toHaveLength(
        0,
      );
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      expect((await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId)).toHaveLength(
        1,
      );
    });
  });
});
