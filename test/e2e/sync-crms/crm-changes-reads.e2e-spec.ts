import {
  BUYER_LEADS_STREAM,
  LEAD_ERROR,
  SUBMIT_FLAG,
} from '../../../src/sync/buyer-leads/buyer-lead.constants';
import { DEMAND_CHECK_STREAM, DEMAND_FLAG } from '../../../src/sync/demand-check/demand-check.constants';
import { OFFER_DECISIONS_STREAM } from '../../../src/sync/decisions/offer-decisions.consumer';
import { PUSH_STREAM } from '../../../src/sync/push-to-marketplace/push.constants';
import { REQUEST_UPDATES_STREAM } from '../../../src/sync/request-updates/request-updates.consumer';
import { SELLER_REQUESTS_STREAM } from '../../../src/sync/seller-requests/seller-requests.consumer';
import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { EmulatorControl } from '../crm/emulator-control';
import { NEUTRAL_LISTING, NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';

// A crm-changes run reads each CRM record kind once for all the consumers of that kind
// (on HubSpot a read is a search, and a portal allows five searches a second), and every consumer
// still does its own work, moves its own cursor (the stream names the ledger already holds), and
// does not redo what it did.
describe('crm-changes reads each record kind once per run (HubSpot)', () => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;
  let emulator: EmulatorControl;

  beforeAll(async () => {
    t = await startSyncApp('hubspot');
    steps = new NeutralSellerSteps(t);
    emulator = new EmulatorControl(t.hubspot.url);
  });

  afterAll(async () => {
    await t?.close();
  });

  // Runs crm-changes and counts the searches it made, per object type.
  const searchesOfOneRun = async () => {
    await emulator.clearRequests();
    const outcome = await t.run('crm-changes');
    const searches = (await emulator.requests()).filter(
      (r) => r.method === 'POST' && r.path.endsWith('/search'),
    );
    const of = (type: string) => searches.filter((r) => r.path === `/crm/v3/objects/${type}/search`).length;
    return { outcome, deals: of('deals'), contacts: of('contacts'), all: searches.length };
  };

  it('one search per kind while every consumer of the kind does its own work', async () => {
    // An offer waiting for the agent's decision, a new listing deal asking for a cash offer, a deal
    // asking for a demand check, and a buyer contact flagged with no listing to be a lead on.
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 380_000 });
    await steps.applyEvents(1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'accept_requested');
    const { dealId: requested } = await steps.agent.listingDeal(NEUTRAL_LISTING);
    await steps.agent.requestCashOffer(requested);
    const { dealId: checked } = await steps.agent.listingDeal({ ...NEUTRAL_LISTING, [DEMAND_FLAG]: 'true' });
    const buyer = await t.world.createContact('Ada', 'Buyer', 'ada@example.com');
    const [flagged] = await t.world.port.updateRecords('contact', [
      { id: buyer, properties: { [SUBMIT_FLAG]: 'true' } },
    ]);
    expect(flagged.ok).toBe(true);

    const first = await searchesOfOneRun();
    expect(first).toMatchObject({ deals: 1, contacts: 1, all: 2 });
    // The buyer lead fails (no listing linked), so the run says so; the others went on.
    expect(first.outcome.status).toBe('succeeded');
    expect(first.outcome.counts).toMatchObject({ created: 2, updated: 1, failed: 1 });

    // seller-requests queued the new deal's request and offer-decisions the acceptance.
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    const sent = (await steps.sandbox.requests()).filter((r) => r.offer_request_external_id === requested);
    expect(sent).toHaveLength(1);
    expect(steps.agent.stageKey((await steps.agent.offerRecord(offer.offer_id))!)).toBe('accepted');
    // demand-check wrote its counts and lowered the flag.
    expect((await steps.agent.deal(checked, [DEMAND_FLAG])).properties[DEMAND_FLAG]).toBe('false');
    // buyer-leads told the contact why.
    const [contact] = await t.world.port.getRecords('contact', [buyer], [LEAD_ERROR]);
    expect(contact.properties[LEAD_ERROR]).toContain('not associated with any marketplace listing');
    expect((await steps.agent.deal(requested)).properties[DEAL.requestId]).toBe(
      String(sent[0].offer_request_id),
    );

    // Each consumer's own cursor, under the stream name the ledger already used.
    for (const stream of [
      SELLER_REQUESTS_STREAM,
      REQUEST_UPDATES_STREAM,
      PUSH_STREAM,
      DEMAND_CHECK_STREAM,
      OFFER_DECISIONS_STREAM,
      BUYER_LEADS_STREAM,
    ])
      expect(await t.ledger.cursors.get('acme', stream)).not.toBeNull();

    // Another run re-reads the overlap window, still with one search per kind, and sends nothing again.
    const second = await searchesOfOneRun();
    expect(second).toMatchObject({ deals: 1, contacts: 1, all: 2 });
    expect(second.outcome.counts).toMatchObject({ created: 0, updated: 0 });
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    expect(
      (await steps.sandbox.requests()).filter((r) => r.offer_request_external_id === requested),
    ).toHaveLength(1);
  });
});
