import { outboxKey } from '../../../src/ledger/outbox-key';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// The one takeover path: a worker that holds a pair's pg-boss singleton claims its run with
// `singletonHeld`, and what an earlier holder left marked in progress for the pair (its run, the
// commands it was sending) is taken over in the claim's transaction. Without the singleton, a run
// on PostgreSQL takes nothing (other workers' liveness cannot be told there).
describe.each(ledgerEngines())('a run claimed while holding its singleton (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  async function deadHoldersWork(): Promise<{ runId: number; commandId: number }> {
    const claim = await f.ledger.runs.claim('b1', 'outbox-drain', { singletonHeld: true });
    if (!('run' in claim)) throw new Error('the first holder could not claim its run');
    const { command } = await f.ledger.outbox.enqueue({
      brokerageId: 'b1',
      idempotencyKey: outboxKey('b1', 'deal:deal-1', 'create_offer_request'),
      operation: 'create_offer_request',
      recordRef: 'deal:deal-1',
      payload: {},
    });
    await f.ledger.outbox.markSending(command.id);
    return { runId: claim.run.id, commandId: command.id };
  }

  it('takes over the run and the sending commands an earlier holder of the pair left', async () => {
    const left = await deadHoldersWork();
    const next = await f.ledger.runs.claim('b1', 'outbox-drain', { singletonHeld: true });
    expect('run' in next && next.recovered).toEqual({ runs: 1, outbox: 1, inbox: 0 });
    expect((await f.ledger.outbox.get(left.commandId))?.state).toBe('unknown');
    const runs = await f.ledger.runs.lastRuns('b1');
    expect(runs.map((r) => [r.job, r.status])).toEqual([['outbox-drain', 'running']]);
    // Another pair's run is not touched.
    const other = await f.ledger.runs.claim('b1', 'inbox-drain', { singletonHeld: true });
    expect('run' in other && other.recovered).toEqual({ runs: 0, outbox: 0, inbox: 0 });
  });

  if (engine === 'postgres')
    // Seen in a workers soak on a saturated host: a run taken over while its worker lived on claimed
    // again before its fence stopped it, then ended; the event it had marked processing stayed so,
    // with no run left running for the pair's next holder to recover it from.
    it('recovers a claim still out after its run ended, when it holds the singleton', async () => {
      const left = await deadHoldersWork();
      await f.ledger.runs.finish(left.runId, {
        status: 'interrupted',
        counts: { read: 0, created: 0, updated: 0, unchanged: 0, failed: 0 },
        error: 'taken over by another worker',
      });
      const next = await f.ledger.runs.claim('b1', 'outbox-drain', { singletonHeld: true });
      expect('run' in next && next.recovered).toEqual({ runs: 0, outbox: 1, inbox: 0 });
      expect((await f.ledger.outbox.get(left.commandId))?.state).toBe('unknown');
    });

  if (engine === 'postgres')
    it('takes nothing without the singleton: another worker may still be running it', async () => {
      const left = await deadHoldersWork();
      const next = await f.ledger.runs.claim('b1', 'outbox-drain');
      expect('run' in next && next.recovered).toEqual({ runs: 0, outbox: 0, inbox: 0 });
      expect((await f.ledger.outbox.get(left.commandId))?.state).toBe('sending');
    });
});
