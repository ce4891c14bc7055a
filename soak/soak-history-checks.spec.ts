import type { OutboxRow } from './soak-ledger';
import type { StoredOffer } from './soak-service';
import { historyWrong, type ExportedEntry } from './soak-history-checks';

const command = (id: number, operation: string, state = 'done'): OutboxRow => ({
  id,
  operation,
  record_ref: `deal:${100 + id}`,
  state,
  attempts: 1,
  last_error: null,
  result: null,
});

const answered = (
  commandId: number,
  operation: string,
  outcome: string,
  record = 'offer:7001',
): ExportedEntry => ({
  record,
  kind: 'command_sent',
  outcome,
  detail: { commandId, operation },
});

const VERIFIED = { code: 0, output: 'ok' };
const OFFER = { offer_id: 7001 } as StoredOffer;
const shown = (record: string) => ({ record, kind: 'record_shown', outcome: 'created', detail: null });
const COUNTER = { counter_offer_id: 9001, offer_id: 7001, counter_offer_status: 'pending' };

describe('historyWrong', () => {
  it('passes a history that tells each done command once and each counter at the service', () => {
    const entries = [
      shown('offer:7001'),
      answered(1, 'counter_offer', 'unknown'),
      answered(1, 'counter_offer', 'done'),
      { ...answered(2, 'write_back', 'done'), kind: 'write_back' },
    ];
    expect(
      historyWrong(
        entries,
        [command(1, 'counter_offer'), command(2, 'write_back')],
        [OFFER],
        [COUNTER],
        VERIFIED,
      ),
    ).toEqual([]);
  });

  it('names a done command whose answer the history lost, or told twice', () => {
    const found = historyWrong(
      [answered(2, 'decide_offer', 'done'), answered(2, 'decide_offer', 'done')],
      [command(1, 'decide_offer'), command(2, 'decide_offer'), command(3, 'decide_offer', 'unknown')],
      [],
      [],
      VERIFIED,
    );
    expect(found.map((v) => [v.kind, v.record, v.detail])).toEqual([
      [
        'history',
        'command 1 (decide_offer, deal:101)',
        "done in the ledger, but the decision history has 0 'done' entries for it",
      ],
      [
        'history',
        'command 2 (decide_offer, deal:102)',
        "done in the ledger, but the decision history has 2 'done' entries for it",
      ],
    ]);
  });

  it("names a counter the service holds that its offer's history does not tell as sent", () => {
    const found = historyWrong(
      [shown('offer:7001'), answered(1, 'counter_offer', 'unknown')],
      [],
      [OFFER],
      [COUNTER],
      VERIFIED,
    );
    expect(found).toEqual([
      {
        kind: 'history',
        record: 'offer:7001',
        detail: 'the service holds counter 9001 on it, but its history tells no counter_offer sent and done',
      },
    ]);
  });

  it('names an offer the service holds whose history tells no record shown', () => {
    expect(historyWrong([answered(1, 'decide_offer', 'unknown')], [], [OFFER], [], VERIFIED)).toEqual([
      {
        kind: 'history',
        record: 'offer:7001',
        detail: 'the service holds offer 7001, but its history tells no CRM record shown for it',
      },
    ]);
  });

  it('reports a chain history --verify finds broken', () => {
    const found = historyWrong([], [], [], [], {
      code: 1,
      output: 'entry 12 (seq 4) does not match its hash\n',
    });
    expect(found).toEqual([
      {
        kind: 'history',
        record: 'hash chain',
        detail: 'history --verify exited 1: entry 12 (seq 4) does not match its hash',
      },
    ]);
  });
});
