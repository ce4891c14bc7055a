import type { BrokerageCrm } from '../../brokerages/brokerage-crm';
import { CASH_OFFERS_PIPELINE, CrmError, type CrmStageChange } from '../../crm';
import { CrmStageMap } from '../../crm/crm-stage-map';
import type { OutboxRepository, RecordErrorRepository } from '../../ledger';
import { agentRequestKey, DECIDE_OFFER_OPERATION, type AgentRequest } from './agent-held-stage';

const REJECT: AgentRequest = { operation: DECIDE_OFFER_OPERATION, decision: 'rejected' };
import { HeldStages, type StageMove } from './held-stages.service';

const STAGES = ['incoming', 'countered', 'counter_rejected', 'reject_requested', 'counter_requested'];
const id = (stage: string) => `stage-${stage}`;

// After a write that moved offer records: the agent's move the write went over, seen in the stage
// history, is put back while its request waits; nothing else is.
describe('HeldStages.putBackOverwritten', () => {
  const stages = new CrmStageMap({
    [CASH_OFFERS_PIPELINE]: { id: 'pipe', stages: Object.fromEntries(STAGES.map((s) => [s, id(s)])) },
  });
  let histories: Map<string, CrmStageChange[]> | undefined;
  let commands: Map<string, { state: string; payload: unknown }>;
  const updateRecords = jest.fn();
  const stageHistory = jest.fn(async () => histories);
  const recordErrors = { record: jest.fn(async () => ({})) };
  const outbox = { findByKey: jest.fn(async (key: string) => commands.get(key) ?? null) };
  const crm = {
    brokerageId: 'acme',
    port: { updateRecords, stageHistory },
    stages,
  } as unknown as BrokerageCrm;
  const held = new HeldStages(
    outbox as unknown as OutboxRepository,
    recordErrors as unknown as RecordErrorRepository,
  );
  const changes = (...stageKeys: string[]) =>
    stageKeys.map((s, n) => ({
      stageId: id(s),
      at: new Date(Date.UTC(2026, 11, 1, 10, 0, 10 - n)).toISOString(),
    }));
  // The reconcile read the record Countered and wrote Counter rejected (the buyer refused the counter).
  const move: StageMove = {
    offerKey: '7009',
    recordId: 'deal-1',
    stageId: id('counter_rejected'),
    stageIdRead: id('countered'),
  };

  beforeEach(() => {
    jest.clearAllMocks();
    commands = new Map();
    updateRecords.mockResolvedValue([{ key: 'deal-1', ok: true, id: 'deal-1', created: false }]);
  });

  it("puts back a reject the agent asked for between the writer's read and its write", async () => {
    histories = new Map([['deal-1', changes('counter_rejected', 'reject_requested', 'countered')]]);
    const putBack = await held.putBackOverwritten(crm, [move]);
    expect(putBack).toEqual(new Map([['7009', 'reject_requested']]));
    expect(updateRecords).toHaveBeenCalledWith('deal', [
      {
        id: 'deal-1',
        properties: {},
        pipelineId: 'pipe',
        stageId: id('reject_requested'),
        moveSentOnce: true,
      },
    ]);
  });

  it('leaves a request already answered, and the request the write itself answers', async () => {
    histories = new Map([['deal-1', changes('counter_rejected', 'reject_requested', 'countered')]]);
    commands.set(agentRequestKey('acme', '7009', REJECT), {
      state: 'done',
      payload: { decision: 'rejected' },
    });
    expect((await held.putBackOverwritten(crm, [move])).size).toBe(0);

    commands.clear();
    const own = await held.putBackOverwritten(crm, [{ ...move, answered: REJECT }]);
    expect(own.size).toBe(0);
    expect(updateRecords).not.toHaveBeenCalled();
  });

  it('leaves a move made after the write, a history with nothing in between, and a CRM with no history', async () => {
    histories = new Map([['deal-1', changes('reject_requested', 'counter_rejected', 'countered')]]);
    expect((await held.putBackOverwritten(crm, [move])).size).toBe(0);
    histories = new Map([['deal-1', changes('counter_rejected', 'countered')]]);
    expect((await held.putBackOverwritten(crm, [move])).size).toBe(0);
    histories = undefined;
    expect((await held.putBackOverwritten(crm, [move])).size).toBe(0);
    expect(updateRecords).not.toHaveBeenCalled();
  });

  it('goes on when the CRM will not give the history now: the records are written already', async () => {
    stageHistory.mockRejectedValueOnce(new CrmError('UNAVAILABLE', 'the CRM answered 503'));
    expect((await held.putBackOverwritten(crm, [move])).size).toBe(0);
    expect(updateRecords).not.toHaveBeenCalled();
  });

  it('asks for no history when nothing was moved', async () => {
    expect((await held.putBackOverwritten(crm, [])).size).toBe(0);
    expect(stageHistory).not.toHaveBeenCalled();
  });

  it('says so on the offer when the CRM refuses the put-back, and goes on with the others', async () => {
    histories = new Map([
      ['deal-1', changes('counter_rejected', 'reject_requested', 'countered')],
      ['deal-2', changes('counter_rejected', 'counter_requested', 'countered')],
    ]);
    updateRecords
      .mockResolvedValueOnce([
        { key: 'deal-1', ok: false, error: new CrmError('INVALID_RECORD', 'deal deal-1: stage refused') },
      ])
      .mockResolvedValueOnce([{ key: 'deal-2', ok: true, id: 'deal-2', created: false }]);
    const putBack = await held.putBackOverwritten(crm, [
      move,
      { ...move, offerKey: '7010', recordId: 'deal-2' },
    ]);
    expect(putBack).toEqual(new Map([['7010', 'counter_requested']]));
    expect(recordErrors.record).toHaveBeenCalledWith(
      expect.objectContaining({
        brokerageId: 'acme',
        recordKind: 'offer',
        recordRef: '7009',
        message: expect.stringMatching(
          /could not be put back \(deal deal-1: stage refused\); move the record to "Reject requested" again/,
        ),
      }),
    );
  });
});
