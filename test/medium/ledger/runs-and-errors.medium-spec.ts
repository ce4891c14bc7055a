import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

describe.each(ledgerEngines())('RunRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const counts = { read: 10, created: 2, updated: 3, unchanged: 4, failed: 1 };

  it('starts a run and finishes it with its counts', async () => {
    const run = await f.ledger.runs.start('b1', 'marketplace');
    expect(run).toMatchObject({
      brokerageId: 'b1',
      job: 'marketplace',
      status: 'running',
      startedAt: f.clock.now(),
    });
    f.clock.advance(2000);
    const finished = await f.ledger.runs.finish(run.id, {
      counts,
      status: 'failed',
      error: 'HubSpot answered 503',
    });
    expect(finished).toMatchObject({
      status: 'failed',
      finishedAt: f.clock.now(),
      readCount: 10,
      createdCount: 2,
      updatedCount: 3,
      unchangedCount: 4,
      failedCount: 1,
      error: 'HubSpot answered 503',
    });
    await expect(f.ledger.runs.finish(run.id, { counts, status: 'succeeded' })).rejects.toThrow(
      `run ${run.id} is failed`,
    );
  });

  it('answers the latest run per job, the last success and the history', async () => {
    const ids: number[] = [];
    for (const [brokerageId, job, status] of [
      ['b1', 'marketplace', 'succeeded'],
      ['b1', 'marketplace', 'failed'],
      ['b1', 'offers', 'succeeded'],
      ['b2', 'marketplace', 'succeeded'],
    ] as const) {
      const run = await f.ledger.runs.start(brokerageId, job);
      await f.ledger.runs.finish(run.id, { counts, status });
      ids.push(run.id);
    }
    const running = await f.ledger.runs.start('b1', 'offers');
    expect((await f.ledger.runs.lastRuns('b1')).map((r) => [r.job, r.id])).toEqual([
      ['marketplace', ids[1]],
      ['offers', running.id],
    ]);
    expect(await f.ledger.runs.lastRuns()).toHaveLength(3);
    expect((await f.ledger.runs.lastSuccess('b1', 'marketplace'))?.id).toBe(ids[0]);
    expect((await f.ledger.runs.lastSuccess('b1'))?.id).toBe(ids[2]);
    expect(await f.ledger.runs.lastSuccess('b3')).toBeNull();
    expect((await f.ledger.runs.list({ brokerageId: 'b1', limit: 2 })).map((r) => r.id)).toEqual([
      running.id,
      ids[2],
    ]);
    expect((await f.ledger.runs.list({ job: 'marketplace' })).map((r) => r.id)).toEqual([
      ids[3],
      ids[1],
      ids[0],
    ]);
  });

  it('finds the clean runs wholly inside a span', async () => {
    const from = f.clock.now();
    const finishAfter = async (job: string, ms: number, status: 'succeeded' | 'failed', failed = 0) => {
      const run = await f.ledger.runs.start('b1', job);
      f.clock.advance(ms);
      await f.ledger.runs.finish(run.id, { counts: { ...counts, failed }, status });
      f.clock.advance(1000);
      return run.id;
    };
    const clean = await finishAfter('offers-reconcile', 2000, 'succeeded');
    await finishAfter('offers-reconcile', 2000, 'succeeded', 1);
    await finishAfter('offers-reconcile', 2000, 'failed');
    await finishAfter('marketplace', 2000, 'succeeded');
    const straddling = await f.ledger.runs.start('b1', 'offers-reconcile');
    const to = f.clock.now();
    f.clock.advance(5000);
    await f.ledger.runs.finish(straddling.id, { counts: { ...counts, failed: 0 }, status: 'succeeded' });

    const within = (a: Date, b: Date) =>
      f.ledger.runs.cleanRunsWithin('b1', 'offers-reconcile', a, b).then((runs) => runs.map((r) => r.id));
    expect(await within(from, to)).toEqual([clean]);
    expect(await within(new Date(from.getTime() + 1), to)).toEqual([]);
    expect(await within(from, new Date(from.getTime() + 1999))).toEqual([]);
    expect(await within(from, new Date(to.getTime() + 5000))).toEqual([clean, straddling.id]);
    expect(await f.ledger.runs.cleanRunsWithin('b2', 'offers-reconcile', from, to)).toEqual([]);
  });

  it('marks runs a crash cut short as interrupted', async () => {
    const run = await f.ledger.runs.start('b1', 'marketplace');
    expect(await f.ledger.runs.recoverInterrupted()).toBe(1);
    expect((await f.ledger.runs.list())[0]).toMatchObject({ id: run.id, status: 'interrupted' });
  });
});

describe.each(ledgerEngines())('RecordErrorRepository (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const streetError = {
    brokerageId: 'b1',
    recordKind: 'deal',
    recordRef: 'deal:42',
    field: 'StreetName',
    message: 'StreetName is 57 characters; the service allows 50',
    code: 'INVALID_RECORD',
  };

  it('records an error once per record and field, counting repeats', async () => {
    const first = await f.ledger.recordErrors.record(streetError);
    f.clock.advance(60_000);
    const again = await f.ledger.recordErrors.record({
      ...streetError,
      message: 'StreetName is 58 characters',
    });
    expect(again).toMatchObject({
      id: first.id,
      occurrences: 2,
      message: 'StreetName is 58 characters',
      firstSeenAt: new Date('2026-03-01T12:00:00.000Z'),
      lastSeenAt: new Date('2026-03-01T12:01:00.000Z'),
      resolvedAt: null,
    });
    const whole = await f.ledger.recordErrors.record({
      ...streetError,
      field: undefined,
      message: 'deal has no seller',
    });
    const wholeAgain = await f.ledger.recordErrors.record({
      ...streetError,
      field: null,
      message: 'deal has no seller',
    });
    expect(whole.field).toBeNull();
    expect(wholeAgain).toMatchObject({ id: whole.id, occurrences: 2, field: null });
    expect(await f.ledger.recordErrors.listOpen({ brokerageId: 'b1' })).toHaveLength(2);
  });

  it('resolves every field of a record and re-opens an error that comes back', async () => {
    await f.ledger.recordErrors.record(streetError);
    await f.ledger.recordErrors.record({
      ...streetError,
      field: 'PostalCode',
      message: 'PostalCode is missing',
    });
    await f.ledger.recordErrors.record({ ...streetError, recordRef: 'deal:43' });
    f.clock.advance(1000);
    expect(await f.ledger.recordErrors.resolve('b1', 'deal', 'deal:42')).toBe(2);
    expect((await f.ledger.recordErrors.listOpen()).map((e) => e.recordRef)).toEqual(['deal:43']);
    f.clock.advance(1000);
    const back = await f.ledger.recordErrors.record(streetError);
    expect(back).toMatchObject({ resolvedAt: null, occurrences: 2 });
    expect((await f.ledger.recordErrors.listOpen({ limit: 1 }))[0].id).toBe(back.id);
  });
});
