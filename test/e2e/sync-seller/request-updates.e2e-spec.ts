import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { DEAL_PROPS, SellerFlowSteps } from '../../support/sync-flows';

describe('request updates: later edits of a submitted listing deal', () => {
  let t: SyncTestApp;
  let steps: SellerFlowSteps;

  beforeAll(async () => {
    t = await startSyncApp();
    steps = new SellerFlowSteps(t);
  });

  afterAll(async () => {
    await t.close();
  });

  const patches = async () =>
    (await steps.sandbox.calls()).filter(
      (c) => c.method === 'PATCH' && c.path.startsWith('/api/v2/offer-requests'),
    );

  it('sends listing-agent edits with PATCH and reports edits the service cannot take on the deal', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    expect(await patches()).toHaveLength(0);

    await steps.agent.update(dealId, {
      listing_agent_email: 'sam@acme-realty.example',
      listing_agent_first_name: 'Sam',
      listing_street_name: 'Elm Street',
    });
    const run = await t.run('crm-changes');
    expect(run.status).toBe('succeeded');
    await t.run('outbox-drain');
    expect(await patches()).toHaveLength(1);
    const [stored] = (await steps.sandbox.requests()).filter((r) => r.offer_request_id === requestId);
    expect((stored as unknown as { property: Record<string, unknown> }).property).toMatchObject({
      ListAgentEmail: 'sam@acme-realty.example',
      ListAgentFirstName: 'Sam',
      StreetName: 'Oak Street',
    });
    const deal = await steps.agent.deal(dealId, DEAL_PROPS);
    expect(deal.properties[DEAL.syncError]).toBe(
      'StreetName changed after submission (sent "Oak Street", now "Elm Street"); the Cash Offer service does not accept changes to it, so it was not sent',
    );

    // Nothing new: no second PATCH. Reverting the street clears the message.
    await steps.agent.update(dealId, { listing_street_name: 'Oak Street' });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await patches()).toHaveLength(1);
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError] ?? '').toBe('');
  });

  it('sends photo links added after submission once each, and says removed ones stay', async () => {
    const front = 'https://photos.acme-realty.example/front.jpg';
    const back = 'https://photos.acme-realty.example/back.jpg';
    const side = 'https://photos.acme-realty.example/side.jpg';
    const { dealId, requestId } = await steps.activeRequest({ [DEAL.photos]: front });
    const before = (await patches()).length;
    await steps.agent.update(dealId, { [DEAL.photos]: `${front}\n${back}, ${side}` });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect((await patches()).length).toBe(before + 2);
    const [stored] = (await steps.sandbox.requests()).filter((r) => r.offer_request_id === requestId);
    const media = (stored as unknown as { media: { url: string }[] }).media.map((m) => m.url);
    expect(media).toEqual([front, back, side]);

    await steps.agent.update(dealId, { [DEAL.photos]: `${back}\n${side}` });
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect((await patches()).length).toBe(before + 2);
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError]).toContain(
      `were removed after submission (${front}); the Cash Offer service keeps photos once added`,
    );
  });
});
