import { Ledger } from '../../../src/ledger/ledger';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// A CRM's notification ids in the ledger: a redelivery is known once, on every worker.
describe.each(ledgerEngines())('CRM webhook event ids (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('remembers ids once per brokerage and CRM, and says which were new', async () => {
    const events = f.ledger.crmWebhookEvents;
    expect(await events.remember('acme', 'hubspot', ['1', '2', '2'])).toEqual(['1', '2']);
    expect(await events.remember('acme', 'hubspot', ['2', '3', '1'])).toEqual(['3']);
    expect(await events.remember('other', 'hubspot', ['1'])).toEqual(['1']);
    expect(await events.remember('acme', 'followupboss', ['1'])).toEqual(['1']);
    expect(await events.remember('acme', 'hubspot', [])).toEqual([]);
  });

  it('forgets what a failed request took, and knows when the last one came', async () => {
    const events = f.ledger.crmWebhookEvents;
    expect(await events.lastReceivedAt('acme', 'hubspot')).toBeNull();
    await events.remember('acme', 'hubspot', ['1', '2']);
    const first = f.clock.now();
    f.clock.advance(60_000);
    await events.remember('acme', 'hubspot', ['3']);
    expect((await events.lastReceivedAt('acme', 'hubspot'))?.getTime()).toBe(first.getTime() + 60_000);
    await events.forget('acme', 'hubspot', ['2', '3']);
    expect(await events.remember('acme', 'hubspot', ['1', '2', '3'])).toEqual(['2', '3']);
  });

  it('keeps ids through the retry horizon when pruned, and drops them after', async () => {
    const events = f.ledger.crmWebhookEvents;
    await events.remember('acme', 'hubspot', ['1']);
    f.clock.advance(24 * 60 * 60_000);
    await f.ledger.retention.prune({ olderThan: f.clock.now() });
    expect(await events.remember('acme', 'hubspot', ['1'])).toEqual([]);
    f.clock.advance(2 * 24 * 60 * 60_000);
    await f.ledger.retention.prune({ olderThan: f.clock.now() });
    expect(await events.remember('acme', 'hubspot', ['1'])).toEqual(['1']);
  });

  if (engine === 'postgres')
    it('takes a redelivery once when several workers receive it at the same instant', async () => {
      const workers: Ledger[] = [f.ledger, await f.openAnother(), await f.openAnother()];
      const ids = Array.from({ length: 100 }, (_, i) => String(1000 + i));
      const taken = await Promise.all(
        workers.flatMap((w) => [w.crmWebhookEvents.remember('acme', 'hubspot', ids)]),
      );
      expect(taken.flat().sort()).toEqual([...ids].sort());
    });
});
