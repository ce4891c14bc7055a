import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { WRITE_BACK_OPERATION } from '../../../src/sync/outbox/outbox-drain.service';
import { eventually, startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { VALID_LISTING } from '../../support/sync-agent';
import { DEAL_PROPS, SellerFlowSteps } from '../../support/sync-flows';

describe('outbox drain: a failed CRM write-back', () => {
  let t: SyncTestApp;
  let steps: SellerFlowSteps;

  beforeAll(async () => {
    t = await startSyncApp();
    steps = new SellerFlowSteps(t);
  });

  afterAll(async () => {
    await t.close();
  });

  const hubspotFaults = async (faults: Record<string, number>) => {
    const res = await fetch(`${t.hubspot.url}/__control/faults`, {
      method: 'PUT',
      body: JSON.stringify(faults),
    });
    expect(res.ok).toBe(true);
  };

  it('is retried on its own later and never repeats the remote write', async () => {
    const { dealId } = await steps.agent.listingDeal(VALID_LISTING);
    await steps.agent.requestCashOffer(dealId);
    await t.run('crm-changes');

    // The service takes the request, then the CRM refuses every write.
    await hubspotFaults({ errorRate: 1, errorStatus: 400 });
    await t.run('outbox-drain');
    await hubspotFaults({ errorRate: 0 });
    const requests = async () =>
      (await steps.sandbox.requests()).filter((r) => r.offer_request_external_id === dealId);
    expect(await requests()).toHaveLength(1);
    const [create] = await t.ledger.outbox
      .listByState('acme', ['done'])
      .then((all) => all.filter((c) => c.recordRef === `deal:${dealId}`));
    expect(create.operation).toBe('create_offer_request');
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.requestId] ?? '').toBe('');
    const [retry] = (await t.ledger.outbox.listByState('acme', ['pending', 'failed'])).filter(
      (c) => c.operation === WRITE_BACK_OPERATION,
    );
    expect(retry.payload).toEqual({ commandId: create.id });

    // Due again after its backoff (seconds): the deal gets its request id; the service saw one POST.
    await eventually(
      async () => {
        await t.run('outbox-drain');
        return (await t.ledger.outbox.get(retry.id))?.state === 'done';
      },
      20_000,
      500,
    );
    const deal = await steps.agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties[DEAL.requestId]).toBe(String((await requests())[0].offer_request_id));
    expect(await requests()).toHaveLength(1);
    expect((await t.ledger.outbox.get(create.id))?.attempts).toBe(1);
  });
});
