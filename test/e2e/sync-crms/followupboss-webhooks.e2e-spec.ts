import { createHmac, randomUUID } from 'node:crypto';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { JobRunner, SchedulerDriver } from '../../../src/scheduler';
import { CrmAgent, NEUTRAL_LISTING } from '../../support/crm-agent';
import { crmWebhookCount } from '../../support/crm-webhook-metrics';
import { ledgerEngines } from '../../support/ledger-fixture';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../../support/postgres-database';
import { BROKERAGE, startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { SandboxControl } from '../../support/sync-sandbox';
import { waitFor } from '../../support/wait-for';

const FAR_AWAY = '0 0 1 1 *';

function sign(body: string, systemKey: string): string {
  return createHmac('sha256', systemKey).update(Buffer.from(body).toString('base64')).digest('hex');
}

const crmChangesRuns = async (t: SyncTestApp) =>
  (await t.ledger.runs.list({ brokerageId: BROKERAGE, job: 'crm-changes' })).filter(
    (r) => r.status !== 'running',
  );

async function registeredHooks(t: SyncTestApp): Promise<{ event: string; url: string }[]> {
  const res = await fetch(`${t.world.url}/__control/webhooks`);
  return (await res.json()) as { event: string; url: string }[];
}

// Follow Up Boss webhooks make crm-changes run early; the run still reads the CRM itself.
describe('Follow Up Boss webhooks as an early trigger', () => {
  // On PostgreSQL the early run is a job in the pair's pg-boss queue, as on workers.
  describe.each(ledgerEngines())('with crm-changes on a far-away cron (%s ledger)', (engine) => {
    let t: SyncTestApp;
    let database: TestPostgresDatabase | undefined;

    beforeAll(async () => {
      database = engine === 'postgres' ? await createTestPostgresDatabase('fubhooks') : undefined;
      t = await startSyncApp('followupboss', {
        crmChangeWebhooks: true,
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
    });

    afterAll(async () => {
      await t?.close();
      await database?.drop();
    });

    it('an agent accepting an offer in Follow Up Boss reaches the service within seconds, not at the next poll', async () => {
      const daemon = new URL(t.hookUrl).origin;
      const hooks = await waitFor(
        async () => {
          const all = await registeredHooks(t);
          return all.length === 4 && all;
        },
        { what: 'the four Follow Up Boss webhooks to be registered' },
      );
      expect(hooks.map((h) => h.event).sort()).toEqual([
        'dealsCreated',
        'dealsUpdated',
        'peopleCreated',
        'peopleUpdated',
      ]);
      expect(hooks.every((h) => h.url === `${daemon}/webhooks/crm/followupboss/${BROKERAGE}`)).toBe(true);
      if (engine === 'sqlite') {
        const nextPoll = t.app.get(SchedulerDriver).nextRun(BROKERAGE, 'crm-changes')!;
        expect(nextPoll.getTime() - Date.now()).toBeGreaterThan(60 * 60_000);
      }

      const agent = new CrmAgent(t.world);
      const sandbox = new SandboxControl(t.sandbox.controlUrl);
      const { dealId } = await agent.listingDeal(NEUTRAL_LISTING);
      await agent.requestCashOffer(dealId);
      const request = await waitFor(
        async () => (await sandbox.requests()).find((r) => r.offer_request_external_id === dealId),
        { what: "the deal's offer request at the service", timeoutMs: 20_000 },
      );
      await sandbox.approve(request.offer_request_id);
      const offer = await sandbox.makeOffer(request.offer_request_id, { offer_amount: 350_000 });
      const record = await waitFor(() => agent.offerRecord(offer.offer_id), {
        what: 'the offer record in the CRM',
        timeoutMs: 20_000,
      });

      await agent.moveOffer(record.id, 'accept_requested');
      const decided = await waitFor(
        async () =>
          (await sandbox.offers()).find(
            (o) => o.offer_id === offer.offer_id && o.offer_status === 'accepted',
          ),
        { what: 'the service to show the offer accepted', timeoutMs: 20_000 },
      );
      expect(decided).toBeDefined();
      await waitFor(
        async () => (await agent.offerRecord(offer.offer_id))?.properties[OFFER.status] === 'accepted',
        { what: 'the offer record to show accepted', timeoutMs: 20_000 },
      );
      // Every crm-changes run came from a webhook: cron would not have run one before next year.
      expect((await crmChangesRuns(t)).length).toBeGreaterThan(0);
      expect(await crmWebhookCount(t, 'triggered')).toBeGreaterThan(0);
      expect(await crmWebhookCount(t, 'rejected')).toBe(0);
    });
  });

  // On PostgreSQL as the flow suites run there: the same local runner, the ledger on a database.
  describe.each(ledgerEngines())('the receiving route (%s ledger)', (engine) => {
    let t: SyncTestApp;
    let url: string;
    let systemKey: string;

    const post = (body: string, signature?: string, target = url): Promise<Response> =>
      fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'FUB-Signature': signature } : {}) },
        body,
      });
    const event = (name = 'dealsUpdated', eventId = randomUUID()): string =>
      JSON.stringify({
        eventId,
        eventCreated: new Date().toISOString(),
        event: name,
        resourceIds: [1],
        uri: 'https://api.followupboss.com/v1/deals?id=1',
      });
    const idle = (): Promise<boolean> =>
      waitFor(() => !t.app.get(JobRunner).isRunning(BROKERAGE, 'crm-changes'), {
        what: 'no crm-changes run in progress',
      });

    beforeAll(async () => {
      t = await startSyncApp('followupboss', { crmChangeWebhooks: true, engine });
      url = t.hookUrl.replace(/\/webhooks\/.*$/, `/webhooks/crm/followupboss/${BROKERAGE}`);
      systemKey = t.world.followUpBoss!.systemKey;
      await waitFor(async () => (await registeredHooks(t)).length === 4, {
        what: 'the four Follow Up Boss webhooks to be registered',
      });
    });

    afterAll(async () => {
      await t?.close();
    });

    it('a forged or missing signature, or an unknown brokerage, is 401 and starts nothing', async () => {
      const runsBefore = (await crmChangesRuns(t)).length;
      const body = event();
      expect((await post(body, sign(body, 'not-the-system-key'))).status).toBe(401);
      expect((await post(body)).status).toBe(401);
      expect((await post(body, sign(body, systemKey), url.replace(BROKERAGE, 'nobody'))).status).toBe(401);
      expect(t.app.get(JobRunner).isRunning(BROKERAGE, 'crm-changes')).toBe(false);
      expect((await crmChangesRuns(t)).length).toBe(runsBefore);
      expect(await crmWebhookCount(t, 'rejected')).toBe(2);
      expect(await crmWebhookCount(t, 'triggered')).toBe(0);
    });

    it('hostile bodies are answered 4xx, never 5xx', async () => {
      const signed = async (body: string) => (await post(body, sign(body, systemKey))).status;
      expect(await signed('{not json')).toBe(400);
      expect(await signed('[]')).toBe(400);
      expect(await signed(JSON.stringify({ eventId: 5, event: 'dealsUpdated' }))).toBe(400);
      expect(await signed(JSON.stringify({ eventId: 'x', event: 'dealsUpdated', resourceIds: 'all' }))).toBe(
        400,
      );
      const huge = JSON.stringify({
        eventId: 'x',
        event: 'dealsUpdated',
        resourceIds: Array(40_000).fill(1),
      });
      expect(await signed(huge)).toBe(413);
      expect(await crmWebhookCount(t, 'invalid')).toBe(4);
      // An event the daemon does not use is acknowledged, so FUB does not retry it.
      const body = event('emailsCreated');
      const ignored = await post(body, sign(body, systemKey));
      expect(ignored.status).toBe(200);
      expect(await ignored.json()).toEqual({ received: true, result: 'ignored' });
    });

    it('a redelivered event is acknowledged and triggers nothing more', async () => {
      await idle();
      const body = event();
      const first = await post(body, sign(body, systemKey));
      expect(await first.json()).toEqual({ received: true, result: 'triggered' });
      const again = await post(body, sign(body, systemKey));
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, result: 'duplicate' });
      await idle();
    });

    it('the emulator delivering an event twice: the copy is acknowledged as a duplicate', async () => {
      await idle();
      const runsBefore = (await crmChangesRuns(t)).length;
      const duplicatesBefore = await crmWebhookCount(t, 'duplicate');
      await fetch(`${t.world.url}/__control/webhooks/faults`, {
        method: 'PUT',
        body: JSON.stringify({ duplicate: 1 }),
      });
      await new CrmAgent(t.world).listingDeal(NEUTRAL_LISTING);
      await waitFor(async () => (await crmWebhookCount(t, 'duplicate')) === duplicatesBefore + 1, {
        what: 'the duplicate webhook to be counted',
      });
      await waitFor(async () => (await crmChangesRuns(t)).length > runsBefore, {
        what: 'a crm-changes run after the webhook',
      });
      await idle();
      const deliveries = (await (await fetch(`${t.world.url}/__control/webhooks/deliveries`)).json()) as {
        deliveries: { outcome: unknown }[];
      };
      expect(deliveries.deliveries.every((d) => d.outcome === 200)).toBe(true);
    });

    it('lost webhooks lose nothing: the next poll picks the change up', async () => {
      await idle();
      const triggeredBefore = await crmWebhookCount(t, 'triggered');
      const faults = (body: unknown) =>
        fetch(`${t.world.url}/__control/webhooks/faults`, { method: 'PUT', body: JSON.stringify(body) });
      await faults({ drop: 1000 });
      const agent = new CrmAgent(t.world);
      const { dealId } = await agent.listingDeal(NEUTRAL_LISTING);
      await agent.requestCashOffer(dealId);
      await waitFor(
        async () => {
          const log = (await (await fetch(`${t.world.url}/__control/webhooks/deliveries`)).json()) as {
            pending: number;
            deliveries: { outcome: unknown }[];
          };
          return log.pending === 0 && log.deliveries.some((d) => d.outcome === 'dropped');
        },
        { what: 'the emulator to drop a webhook delivery' },
      );
      await faults({ drop: 0 });
      expect(await crmWebhookCount(t, 'triggered')).toBe(triggeredBefore);
      const sandbox = new SandboxControl(t.sandbox.controlUrl);
      expect((await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId)).toHaveLength(
        0,
      );
      expect((await t.run('crm-changes')).status).toBe('succeeded');
      expect((await t.run('outbox-drain')).status).toBe('succeeded');
      expect((await sandbox.requests()).filter((r) => r.offer_request_external_id === dealId)).toHaveLength(
        1,
      );
    });

    it('a burst of 50 events during a run causes one follow-up run', async () => {
      await idle();
      const control = (method: string, body?: unknown) =>
        fetch(`${t.world.url}/__control/faults`, { method, ...(body ? { body: JSON.stringify(body) } : {}) });
      const runsBefore = (await crmChangesRuns(t)).length;
      // A slow CRM keeps the run going for the whole burst.
      await control('PUT', { latencyMs: 1000 });
      const running = t.app.get(JobRunner).run(BROKERAGE, 'crm-changes');
      const answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const body = event();
          return ((await (await post(body, sign(body, systemKey))).json()) as { result: string }).result;
        }),
      );
      await control('DELETE');
      expect(answers.filter((a) => a === 'triggered')).toHaveLength(1);
      expect(answers.filter((a) => a === 'coalesced')).toHaveLength(49);
      expect((await running).status).toBe('succeeded');
      await waitFor(async () => (await crmChangesRuns(t)).length === runsBefore + 2, {
        what: 'the run and its one follow-up run',
      });
      await idle();
      expect((await crmChangesRuns(t)).length).toBe(runsBefore + 2);
    });
  });
});
