import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFERS_PIPELINE, CrmError, type CrmRecord } from '../../crm';
import { CrmStageMap } from '../../crm/crm-stage-map';
import type { OutboxRepository, RecordErrorRepository } from '../../ledger';
import type { JobContext } from '../../scheduler/job.types';
import { emptyCounts } from '../../scheduler/job.types';
import type { RecordIssues } from '../common/record-issues';
import type { DecisionHistoryRecorder } from '../history/decision-history.recorder';
import { OFFER } from '../offers/offer-record.properties';
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
describe('OfferDecisionsConsumer when the CRM refuses to move a refused decision back', () => {
  const stages = new CrmStageMap({
    [CASH_OFFERS_PIPELINE]: { id: 'pipe', stages: Object.fromEntries(STAGES.map((s) => [s, `stage-${s}`])) },
  });
  const updateRecords = jest.fn();
  const crm = {
    brokerageId: 'acme',
    port: { updateRecords },
    stages,
    testMode: false,
  } as unknown as BrokerageCrm;
  const outbox = { findByKey: jest.fn(async () => null), enqueue: jest.fn(async () => ({})) };
  const issues = { report: jest.fn(async () => undefined) };
  const recordErrors = { record: jest.fn(async () => ({})) };
  const consumer = new OfferDecisionsConsumer(
    outbox as unknown as OutboxRepository,
    issues as unknown as RecordIssues,
    {} as DecisionHistoryRecorder,
    recordErrors as unknown as RecordErrorRepository,
  );
  const acceptRequested = (id: string, offerId: number, status: string): CrmRecord => ({
    id,
    kind: 'deal',
    updatedAt: '2026-11-30T10:00:00.000Z',
    pipelineId: 'pipe',
    stageId: 'stage-accept_requested',
    properties: { [OFFER.id]: String(offerId), [OFFER.requestRef]: '7', [OFFER.status]: status },
  });

  it('keeps the refusal in errors and sends the next record of the page', async () => {
    updateRecords.mockResolvedValueOnce([
      { ok: false, error: new CrmError('NOT_FOUND', 'deal 41 was not found', { record: '41' }) },
    ]);
    const counts = emptyCounts();

    await consumer.consumePage({
      records: [acceptRequested('41', 501, 'rejected'), acceptRequested('42', 502, 'active')],
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
});
