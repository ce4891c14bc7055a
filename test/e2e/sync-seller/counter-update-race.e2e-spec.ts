import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { NeutralSellerSteps } from '../../support/crm-agent';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';

// A buyer can refuse our counter within a second of it: the service's UPDATE may arrive after the
// counter command is done but before its CRM write-back has written the counter's link. Under a
// service that lists a countered offer as `rejected` at once, that UPDATE is the only sign of the
// refusal, so it must wait for the link instead of being refused as "not a counter this brokerage
// made" (seen in the crash soak, seed 20261122: the record stayed Countered). The window is made
// exact here by holding the write-back back and taking the link away, as a kill between them would.
describe('an UPDATE that arrives before our counter is linked', () => {
  let t: SyncTestApp;
  let steps: NeutralSellerSteps;

  beforeAll(async () => {
    t = await startSyncApp('hubspot');
    steps = new NeutralSellerSteps(t);
    await steps.sandbox.specReadings({ counteredOfferListedAs: 'rejected' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('waits in the inbox, then shows the refusal once the write-back links the counter', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 360_000 });
    await steps.applyEvents(1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: '371000' });
    expect((await t.run('crm-changes')).status).toBe('succeeded');
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    const counter = (await steps.sandbox.counters()).find((c) => c.offer_id === offer.offer_id)!;

    // The state right after the counter's command was done, before its write-back ran.
    const db = t.ledger.dataSource;
    await db.query(
      `DELETE FROM links WHERE brokerage_id = 'acme' AND kind = 'counter_offer' AND remote_id = ?`,
      [String(offer.offer_id)],
    );
    await db.query(
      `UPDATE outbox_commands SET state = 'pending', next_attempt_at = '2999-01-01 00:00:00.000'
       WHERE operation = 'write_back' AND payload LIKE ?`,
      [`%counter_offer%`],
    );

    await steps.sandbox.rejectCounter(counter.counter_offer_id);
    await steps.applyEvents(1);
    const inbox = await t.ledger.inbox.list({
      brokerageId: 'acme',
      statuses: ['failed', 'flagged'],
      limit: 10,
    });
    expect(inbox.map((e) => [e.eventType, e.status])).toEqual([['UPDATE', 'failed']]);
    expect(inbox[0].lastError).toContain('tried again once it is linked');

    // The write-back runs and links the counter; the UPDATE, due again, is applied.
    await db.query(
      `UPDATE outbox_commands SET next_attempt_at = NULL WHERE operation = 'write_back' AND state = 'pending'`,
    );
    expect((await t.run('outbox-drain')).status).toBe('succeeded');
    await db.query(`UPDATE inbox_events SET next_attempt_at = NULL WHERE status = 'failed'`);
    await t.run('inbox-drain');
    expect((await t.ledger.inbox.depth('acme')).flagged).toBe(0);
    const refused = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(refused!)).toBe('counter_rejected');
    expect(refused!.properties[OFFER.counterStatus]).toBe('rejected');
  });

  it('links the counter before its command is done, so the buyer answer never waits on the CRM write-back', async () => {
    const { requestId } = await steps.activeRequest();
    const offer = await steps.sandbox.makeOffer(requestId, { offer_amount: 352_000 });
    await steps.applyEvents(1);
    const record = await steps.agent.offerRecord(offer.offer_id);
    await steps.agent.moveOffer(record!.id, 'counter_requested', { cash_offer_counter_amount: '363000' });
    expect((await t.run('crm-changes')).status).toBe('succeeded');

    // The service refuses every read of the request's offers (a refusal, not an outage: the
    // service's breaker stays closed for the buyer's answer): the counter goes as the agent filled
    // it, and its write-back, which reads them, cannot run.
    await steps.sandbox.faults({ match: 'GET /offers', errorRate: 1, errorStatus: 400 });
    await t.run('outbox-drain');
    await steps.sandbox.clearFaults();
    const counter = (await steps.sandbox.counters()).find((c) => c.offer_id === offer.offer_id)!;
    const db = t.ledger.dataSource;
    const writeBacks = await db.query(
      `SELECT state FROM outbox_commands WHERE operation = 'write_back' AND record_ref = ?`,
      [`deal:${record!.id}`],
    );
    expect(writeBacks.map((c: { state: string }) => c.state)).not.toContain('done');
    const [link] = await db.query(
      `SELECT crm_id FROM links WHERE brokerage_id = 'acme' AND kind = 'counter_offer' AND remote_id = ?`,
      [String(offer.offer_id)],
    );
    expect(link?.crm_id).toBe(String(counter.counter_offer_id));

    // The buyer refuses at once: the UPDATE finds our counter and shows the refusal.
    await steps.sandbox.rejectCounter(counter.counter_offer_id);
    await steps.applyEvents(1);
    expect((await t.ledger.inbox.depth('acme')).flagged).toBe(0);
    const refused = await steps.agent.offerRecord(offer.offer_id);
    expect(steps.agent.stageKey(refused!)).toBe('counter_rejected');
    expect(refused!.properties[OFFER.counterStatus]).toBe('rejected');
  });
});
