import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { SellerFlowSteps } from '../../support/sync-flows';
import { waitFor } from '../../support/wait-for';

// The service's delivery faults (at-least-once, unordered) against the real flows: the sandbox sends every event 1 to 5 times and
// reorders them; 50 identical deliveries arrive at once; a stale event arrives after a decision.
// Each event has exactly one effect, and the CRM ends as clean in-order delivery would leave it:
// one record per offer, each with the service's own status.
describe('webhook delivery faults end in the same CRM state as clean delivery', () => {
  let t: SyncTestApp;
  let steps: SellerFlowSteps;

  beforeAll(async () => {
    t = await startSyncApp();
    steps = new SellerFlowSteps(t);
  });

  afterAll(async () => {
    await t.close();
  });

  const deliveries = () => steps.sandbox.deliveries();

  const drainUntilQuiet = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) {
      await t.run('inbox-drain');
      const depth = await t.ledger.inbox.depth('acme');
      if (depth.pending + depth.failed + depth.processing === 0) return;
    }
    throw new Error('the inbox did not empty');
  };

  // The CRM offer records of these offers (0, 1 or more each: more would be a duplicate).
  const offerRecords = (offerIds: number[]): { offerId: number; status: string | null | undefined }[] =>
    offerIds.flatMap((offerId) =>
      t.hubspot.state
        .findAllByProperty('deals', OFFER.id, String(offerId))
        .map((stored) => ({ offerId, status: stored.properties[OFFER.status] })),
    );

  it('duplicated (1-5 times) and reordered deliveries give one record per offer with the service status', async () => {
    const { requestId } = await steps.activeRequest();
    await steps.sandbox.faults({
      webhooks: { duplicateRate: 1, maxDuplicates: 5, reorderWindowMs: 150 },
      seed: 42,
    });
    const made = [];
    for (let i = 0; i < 6; i++)
      made.push(await steps.sandbox.makeOffer(requestId, { offer_amount: 300_000 + i * 1000 }));
    // Every delivery the sandbox sent (duplicates included) has arrived: every offer delivered, and
    // the log no longer grows past the reorder window.
    const ours = async () =>
      (await deliveries()).filter(
        (d) => d.event.event === 'new_offer' && d.event.offer_request_id === requestId,
      );
    let seen = -1;
    await waitFor(
      async () => {
        const log = await ours();
        const delivered = new Set(log.filter((d) => d.outcome === 'delivered').map((d) => d.event.offer_id));
        const settled = delivered.size === made.length && log.length === seen;
        seen = log.length;
        return settled;
      },
      {
        what: 'every offer delivered and the delivery log to stop growing',
        timeoutMs: 20_000,
        intervalMs: 400,
      },
    );
    await steps.sandbox.clearFaults();
    expect((await ours()).filter((d) => d.duplicate).length).toBeGreaterThan(0);
    await drainUntilQuiet();

    const truth = (await steps.sandbox.offers()).filter((o) => o.offer_request_id === requestId);
    const records = offerRecords(truth.map((o) => o.offer_id));
    expect(records).toHaveLength(truth.length);
    for (const offer of truth) {
      expect(records.find((r) => r.offerId === offer.offer_id)?.status).toBe(offer.offer_status);
    }
    const depth = await t.ledger.inbox.depth('acme');
    expect(depth.dead).toBe(0);
  });

  it('50 identical deliveries at once have one effect', async () => {
    const { requestId } = await steps.activeRequest();
    await steps.sandbox.faults({ webhooks: { dropRate: 1 }, seed: 7 });
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 333_000 });
    await steps.sandbox.clearFaults();
    const deals = t.hubspot.state.count('deals');
    const body = JSON.stringify({ event: 'new_offer', ...offer });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(t.hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await drainUntilQuiet();
    expect(t.hubspot.state.count('deals')).toBe(deals + 1);
    expect(offerRecords([offer.offer_id])).toHaveLength(1);
  });

  it('a late event never moves an accepted offer back to active', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 410_000 });
    await steps.applyEvents(1);
    const accept = await fetch(`${t.sandbox.baseUrl}/offers`, {
      method: 'PATCH',
      headers: { authorization: t.sandbox.agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ offer_id: offer.offer_id, offer_status: 'accepted' }),
    });
    expect(accept.status).toBe(200);
    await t.run('offers-reconcile');
    expect(offerRecords([offer.offer_id])[0]?.status).toBe('accepted');

    // The original "active" event arrives late (as a redelivery with a changed field, so it is new content).
    const late = await fetch(t.hookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'new_offer', ...offer, offer_status: 'active', viewed: true }),
    });
    expect(late.status).toBe(200);
    await drainUntilQuiet();
    expect(offerRecords([offer.offer_id])[0]?.status).toBe('accepted');
  });
});
