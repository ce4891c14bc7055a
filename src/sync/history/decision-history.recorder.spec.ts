import type { Offer } from '../../cash-offer/schema';
import type { HistoryRepository, OutboxRepository } from '../../ledger';
import { DecisionHistoryRecorder, type ShownOffer } from './decision-history.recorder';

describe('DecisionHistoryRecorder.shownEntries: what an offer record was written to show', () => {
  const recorder = new DecisionHistoryRecorder({} as HistoryRepository, {} as OutboxRepository);
  const offer = {
    offer_id: 8,
    offer_request_id: 5,
    offer_amount: 320000,
    offer_status: 'counter_offered',
  } as unknown as Offer;
  const shown = (stage: string | null): ShownOffer => ({
    offer,
    crmId: '10036',
    created: false,
    stage,
    counterId: null,
    counterStatus: null,
  });

  it('names the stage written', () => {
    const [entry] = recorder.shownEntries('soak', [shown('countered')], [offer]);
    expect(entry.summary).toBe(
      'CRM record 10036 updated: stage countered, status counter_offered, amount 320000',
    );
    expect(entry.detail).toMatchObject({ stage: 'countered' });
  });

  // A sweep's history read "updated: stage incoming" for a record the agent had moved to Counter
  // requested, which the write had left there (an undecided offer only places a new record).
  it('says a record left in its stage was left so, not the stage it would have on creation', () => {
    const [entry] = recorder.shownEntries('soak', [shown(null)], [offer]);
    expect(entry.summary).toBe(
      'CRM record 10036 updated: stage left as it was, status counter_offered, amount 320000',
    );
    expect(entry.detail).toMatchObject({ stage: null });
  });
});
