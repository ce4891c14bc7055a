import { DEAL } from '../../../src/sync/common/listing-deal.properties';
import { agentAppPerDescribe } from './agent-app';
import { VALID_LISTING } from '../../support/sync-agent';

// A deal the agent marks "Cash offer test record" goes to the service as a test record
// (`test: true` on the request and its property) and the deal shows it; other deals do not.
describe('test records', () => {
  const app = agentAppPerDescribe();

  it('sends a checked deal with test: true and leaves an unchecked one alone', async () => {
    const { t, agent, sandbox } = app;
    const { dealId: testDeal } = await agent.listingDeal({ ...VALID_LISTING, [DEAL.testRecord]: 'true' });
    const { dealId: realDeal } = await agent.listingDeal({
      ...VALID_LISTING,
      listing_street_name: 'Elm Street',
    });
    await agent.requestCashOffer(testDeal);
    await agent.requestCashOffer(realDeal);
    expect((await t.run('crm-changes')).counts).toMatchObject({ created: 2, failed: 0 });
    expect((await t.run('outbox-drain')).counts).toMatchObject({ created: 2 });

    const requests = await sandbox.requests();
    const stored = (dealId: string) => requests.find((r) => r.offer_request_external_id === dealId);
    expect(stored(testDeal)).toMatchObject({ test: true });
    expect(stored(realDeal)?.test ?? null).toBeNull();
    const shown = await agent.deal(testDeal, [DEAL.testRecord, DEAL.requestId]);
    expect(shown.properties[DEAL.testRecord]).toBe('true');
    expect(shown.properties[DEAL.requestId]).toBe(String(stored(testDeal)?.offer_request_id));
  });
});
