import type { Clock } from '../../common/clock';
import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFERS_PIPELINE, CrmError, type CrmRecord } from '../../crm';
import { CrmStageMap } from '../../crm/crm-stage-map';
import type { OutboxRepository, RecordErrorRepository } from '../../ledger';
import type { JobContext } from '../../scheduler/job.types';
import { emptyCounts } from '../../scheduler/job.types';
import type { RecordIssues } from '../common/record-issues';
import type { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { OFFER } from '../offers/offer-record.properties';
import { HeldStages } from '../offers/held-stages.service';
import { OfferDecisionsConsumer } from './offer-decisions.consumer';

const STAGES = [
  'incoming',
  'accept_requested',
  'reject_requested',
  'counter_requested',
  'accepted',
  'rejected',
];

// A decision that cannot be sent is refused on its record, which goes back to the stage its status
// says. The CRM may refuse that move (the record was deleted meanwhile, or a rule of the pipeline):
// that is kept for the operator, and the page's other decisions still go out.
describe('OfferDecisionsConsumer', () => {
  const stages = new CrmStageMap({
    [CASH_OFFERS_PIPELINE]: { id: 'pipe', stages: Object.fromEntries(STAGES.map((s) => [s, `stage-${s}`])) },
  });
  const updateRecords = jest.fn();
  // The CRM's records as a read by id sees them (the change read may be a lagging search).
  const inCrm = new Map<string, CrmRecord>();
  const getRecords = jest.fn(async (_kind: string, ids: string[]) =>
    ids.flatMap((id) => (inCrm.has(id) ? [inCrm.get(id)!] : [])),
  );
  const crm = {
    brokerageId: 'acme',
    port: { updateRecords, getRecords },
    stages,
    testMode: false,
  } as unknown as BrokerageCrm;
  const outbox = {
    findByKey: jest.fn(async (): Promise<unknown> => null),
    enqueue: jest.fn(async () => ({})),
    rearm: jest.fn(async () => ({})),
  };
  const issues = { report: jest.fn(async () => undefined), clear: jest.fn(async () => undefined) };
  const history = { agentMove: jest.fn(() => []) };
  const recordErrors = { record: jest.fn(async () => ({})) };
  const heldStages = { putBackOverwritten: jest.fn(async () => new Map()) };
  const consumer = new OfferDecisionsConsumer(
    outbox as unknown as OutboxRepository,
    issues as unknown as RecordIssues,
    history as unknown as DecisionHistoryRecorder,
    recordErrors as unknown as RecordErrorRepository,
    { nowMs: () => Date.parse('2026-12-01T10:00:00Z') } as unknown as Clock,
    heldStages as unknown as HeldStages,
  );
  const inStage =
    (stage: string) =>
    (id: string, offerId: number, status: string): CrmRecord => ({
      id,
      kind: 'deal',
      updatedAt: '2026-11-30T10:00:00.000Z',
      pipelineId: 'pipe',
      stageId: `stage-${stage}`,
      properties: { [OFFER.id]: String(offerId), [OFFER.requestRef]: '7', [OFFER.status]: status },
    });
  const acceptRequested = inStage('accept_requested');
  const page = (...records: CrmRecord[]) => {
    inCrm.clear();
    for (const r of records) inCrm.set(r.id, r);
    return records;
  };
  beforeEach(() => jest.clearAllMocks());

  it('keeps in errors a refused decision the CRM will not move back, and sends the next record of the page', async () => {
    updateRecords.mockResolvedValueOnce([
      { ok: false, error: new CrmError('NOT_FOUND', 'deal 41 was not found', { record: '41' }) },
    ]);
    const counts = emptyCounts();

    await consumer.consumePage({
      records: page(acceptRequested('41', 501, 'rejected'), acceptRequested('42', 502, 'active')),
      crm,
      ctx: { dryRun: false } as JobContext,
      counts,
    });

    expect(issues.report).toHaveBeenCalledWith(
      crm,
      expect.objectContaining({ id: '41' }),
      OFFER.decisionError,
      [{ message: expect.stringContaining('This offer is rejected at the service'), code: 'CONFLICT' }],
    );
    expect(recordErrors.record).toHaveBeenCalledWith({
      brokerageId: 'acme',
      recordKind: 'deal',
      recordRef: '41',
      field: 'stage',
      message:
        'deal 41 could not be moved back to "rejected" after its request was refused: deal 41 was not found',
      code: 'NOT_FOUND',
    });
    expect(outbox.enqueue).toHaveBeenCalledTimes(1);
    expect(outbox.enqueue).toHaveBeenCalledWith(
      expect.objectContaining({ payload: expect.objectContaining({ offerId: 502, decision: 'accepted' }) }),
      expect.any(Function),
    );
    expect(counts).toMatchObject({ read: 2, failed: 1, created: 1 });
  });

  it("looks, after moving a refused record back, for a move of the agent's it went over (not the refused request's own)", async () => {
    updateRecords.mockResolvedValueOnce([{ key: '43', ok: true, id: '43', created: false }]);
    await consumer.consumePage({
      records: page(acceptRequested('43', 503, 'rejected')),
      crm,
      ctx: { dryRun: false } as JobContext,
      counts: emptyCounts(),
    });
    expect(heldStages.putBackOverwritten).toHaveBeenCalledWith(crm, [
      {
        offerKey: '503',
        recordId: '43',
        stageId: 'stage-rejected',
        stageIdRead: 'stage-accept_requested',
        answered: { operation: 'decide_offer', decision: 'accepted' },
      },
    ]);
  });

  // A CRM's search may show a write only after a lag: the change read can find a record in a
  // "… requested" stage the consumer has already moved on, or the agent has moved again since.
  describe('a change read that shows an older version of the record', () => {
    it('takes the move from a read by id: a record moved on since is left as it is, with no write', async () => {
      const stale = acceptRequested('41', 501, 'rejected');
      page();
      inCrm.set('41', inStage('rejected')('41', 501, 'rejected'));
      const counts = emptyCounts();

      await consumer.consumePage({ records: [stale], crm, ctx: { dryRun: false } as JobContext, counts });

      expect(getRecords).toHaveBeenCalledWith(
        'deal',
        ['41'],
        expect.arrayContaining([OFFER.id, OFFER.status]),
      );
      expect(updateRecords).not.toHaveBeenCalled();
      expect(issues.report).not.toHaveBeenCalled();
      expect(outbox.enqueue).not.toHaveBeenCalled();
      expect(counts).toMatchObject({ read: 1, unchanged: 1 });
    });

    it("acts on the agent's latest move when the record is in another requested stage now", async () => {
      const stale = acceptRequested('42', 502, 'active');
      page();
      inCrm.set('42', inStage('reject_requested')('42', 502, 'active'));
      const counts = emptyCounts();

      await consumer.consumePage({ records: [stale], crm, ctx: { dryRun: false } as JobContext, counts });

      expect(outbox.enqueue).toHaveBeenCalledTimes(1);
      expect(outbox.enqueue).toHaveBeenCalledWith(
        expect.objectContaining({ payload: expect.objectContaining({ offerId: 502, decision: 'rejected' }) }),
        expect.any(Function),
      );
      expect(counts).toMatchObject({ read: 1, created: 1 });
    });

    it('skips a record deleted since it was found, and makes no read for a page with no requested stage', async () => {
      page();
      const counts = emptyCounts();
      await consumer.consumePage({
        records: [acceptRequested('43', 503, 'active')],
        crm,
        ctx: { dryRun: false } as JobContext,
        counts,
      });
      expect(outbox.enqueue).not.toHaveBeenCalled();
      expect(counts).toMatchObject({ read: 1, unchanged: 1 });

      getRecords.mockClear();
      await consumer.consumePage({
        records: [inStage('incoming')('44', 504, 'active')],
        crm,
        ctx: { dryRun: false } as JobContext,
        counts: emptyCounts(),
      });
      expect(getRecords).not.toHaveBeenCalled();
    });
  });

  // An accept the service refused (409: the offer's counter waits on its buyer) did nothing there.
  describe('after a decision the service refused', () => {
    const refusedAccept = {
      id: 9,
      state: 'dead',
      operation: 'decide_offer',
      payload: { offerId: 505, decision: 'accepted' },
      result: { refused: true },
      lastError: 'offer 505 is countered; it can no longer be accepted',
      updatedAt: new Date('2026-12-01T10:00:00Z'),
    };
    const rejectRequested = (updatedAt: string): CrmRecord => ({
      ...inStage('reject_requested')('45', 505, 'active'),
      updatedAt,
    });

    it("sends the agent's move made since in its place", async () => {
      outbox.findByKey.mockResolvedValueOnce(refusedAccept);
      const counts = emptyCounts();
      await consumer.consumePage({
        records: page(rejectRequested('2026-12-01T10:01:00.000Z')),
        crm,
        ctx: { dryRun: false } as JobContext,
        counts,
      });
      expect(outbox.rearm).toHaveBeenCalledWith(
        refusedAccept,
        expect.objectContaining({ offerId: 505, decision: 'rejected' }),
        [],
      );
      expect(history.agentMove).toHaveBeenCalledWith(
        expect.objectContaining({ move: 'reject', command: refusedAccept }),
      );
      expect(issues.clear).toHaveBeenCalledWith(
        crm,
        expect.objectContaining({ id: '45' }),
        OFFER.decisionError,
      );
      expect(outbox.enqueue).not.toHaveBeenCalled();
      expect(counts).toMatchObject({ created: 1 });
    });

    it("sends another move in its place even when the CRM's clock shows it no later than the refusal", async () => {
      outbox.findByKey.mockResolvedValueOnce(refusedAccept);
      await consumer.consumePage({
        records: page(rejectRequested('2026-12-01T10:00:00.000Z')), // whole seconds, as some CRMs keep
        crm,
        ctx: { dryRun: false } as JobContext,
        counts: emptyCounts(),
      });
      expect(outbox.rearm).toHaveBeenCalledWith(
        refusedAccept,
        expect.objectContaining({ offerId: 505, decision: 'rejected' }),
        [],
      );
    });

    it('tells a record asking the refused decision again, unchanged since the refusal, that nothing was sent again', async () => {
      outbox.findByKey.mockResolvedValueOnce(refusedAccept);
      updateRecords.mockResolvedValueOnce([{ key: '45', ok: true, id: '45', created: false }]);
      await consumer.consumePage({
        records: page({
          ...inStage('accept_requested')('45', 505, 'active'),
          updatedAt: '2026-12-01T09:59:58.000Z',
        }),
        crm,
        ctx: { dryRun: false } as JobContext,
        counts: emptyCounts(),
      });
      expect(outbox.rearm).not.toHaveBeenCalled();
      expect(issues.report).toHaveBeenCalledWith(
        crm,
        expect.objectContaining({ id: '45' }),
        OFFER.decisionError,
        [
          {
            message: expect.stringContaining('An earlier request on this offer was refused'),
            code: 'CONFLICT',
          },
        ],
      );
    });

    it('never replaces a decision that may have been applied (given up after retries)', async () => {
      outbox.findByKey.mockResolvedValueOnce({ ...refusedAccept, result: null });
      updateRecords.mockResolvedValueOnce([{ key: '45', ok: true, id: '45', created: false }]);
      await consumer.consumePage({
        records: page(rejectRequested('2026-12-01T10:01:00.000Z')),
        crm,
        ctx: { dryRun: false } as JobContext,
        counts: emptyCounts(),
      });
      expect(outbox.rearm).not.toHaveBeenCalled();
      expect(outbox.enqueue).not.toHaveBeenCalled();
    });
  });
});
