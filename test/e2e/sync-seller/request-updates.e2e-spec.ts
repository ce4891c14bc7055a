import { OutboxCommand } from '../../../src/ledger';
import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { ConfigService } from '../../../src/config/config.service';
import { OutboxDrainService } from '../../../src/sync/outbox/outbox-drain.service';
import { startSyncApp, type SyncTestApp } from '../../support/sync-app';
import { DEAL_PROPS, SellerFlowSteps } from '../../support/sync-flows';
import { waitFor } from '../../support/wait-for';

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

  // The listing agent the service holds for a request, and the agent's edit of it on the deal.
  const listingAgentOf = (dealId: string, requestId: number) => ({
    agentAtService: async () => {
      const [stored] = (await steps.sandbox.requests()).filter((r) => r.offer_request_id === requestId);
      return (stored as unknown as { property: Record<string, unknown> }).property.ListAgentEmail;
    },
    edit: async (email: string) => {
      await steps.agent.update(dealId, { listing_agent_email: email });
      expect((await t.run('crm-changes')).status).toBe('succeeded');
    },
  });

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

  // The agent's last edit is what the service holds, however the edits came: an edit back to an
  // earlier value is sent again, and an older edit retried after a newer one never overwrites it.
  it("the listing agent the service holds is the deal's last edit: an edit back is sent, an older edit never lands last", async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const patchesBefore = (await patches()).length;
    const { agentAtService, edit } = listingAgentOf(dealId, requestId);

    await edit('ann@acme-realty.example');
    await t.run('outbox-drain');
    await edit('bo@acme-realty.example');
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('bo@acme-realty.example');
    // Back to the first: a new update, though that body was sent before.
    await edit('ann@acme-realty.example');
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('ann@acme-realty.example');

    // An edit whose send failed and waits for its retry (as a 503 leaves it), then a newer one that
    // goes through: the retry of the older one must not put it back.
    await edit('cy@acme-realty.example');
    const [older] = await t.ledger.outbox.listByState('acme', ['pending']);
    await t.ledger.transactions.run((m) =>
      m.update(
        OutboxCommand,
        { id: older.id },
        { state: 'failed', attempts: 1, nextAttemptAt: new Date(Date.now() + 3_600_000) },
      ),
    );
    await edit('di@acme-realty.example');
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('di@acme-realty.example');
    await t.ledger.transactions.run((m) =>
      m.update(OutboxCommand, { id: older.id }, { nextAttemptAt: null }),
    );
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('di@acme-realty.example');
    await t.run('crm-changes');
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('di@acme-realty.example');
    // Ann, Bo, Ann again and Di went out; Cy, replaced before it could, never did.
    expect((await patches()).length).toBe(patchesBefore + 4);
    expect(await t.ledger.outbox.get(older.id)).toMatchObject({
      state: 'done',
      result: { superseded: expect.any(Number) },
    });
    expect((await steps.agent.deal(dealId, DEAL_PROPS)).properties[DEAL.syncError] ?? '').toBe('');
  });

  it('an update queued while an earlier one is on the wire waits for it, though another drain (the CLI) takes it at once', async () => {
    const { dealId, requestId } = await steps.activeRequest();
    const { agentAtService, edit } = listingAgentOf(dealId, requestId);
    const ofDeal = async (state: OutboxCommand['state']) =>
      (await t.ledger.outbox.listByState('acme', [state])).filter((c) => c.recordRef === `deal:${dealId}`);

    await edit('eve@acme-realty.example');
    // The first update is slow to arrive (held before the service takes it, within the time-out).
    await steps.sandbox.faults({ match: 'PATCH /offer-requests', latencyMs: 1000 });
    const slowDrain = t.run('outbox-drain');
    const [onTheWire] = await waitFor(
      async () => {
        const sending = await ofDeal('sending');
        return sending.length > 0 && sending;
      },
      { what: 'the first update on the wire' },
    );
    await steps.sandbox.clearFaults();
    await edit('fay@acme-realty.example');
    const [newer] = await ofDeal('pending');
    const brokerage = t.app.get(ConfigService).get('acme')!;
    const taken = await t.app
      .get(OutboxDrainService)
      .executeNow(brokerage, newer, new AbortController().signal);
    expect(taken.state).toBe('pending');
    expect(taken.lastError).toContain(`command ${onTheWire.id}`);
    expect((await slowDrain).status).toBe('succeeded');
    expect(await agentAtService()).toBe('eve@acme-realty.example');

    await t.ledger.transactions.run((m) =>
      m.update(OutboxCommand, { id: newer.id }, { nextAttemptAt: null }),
    );
    await t.run('outbox-drain');
    expect(await agentAtService()).toBe('fay@acme-realty.example');
    expect(await t.ledger.outbox.get(newer.id)).toMatchObject({ state: 'done', attempts: 1 });
  });
});
