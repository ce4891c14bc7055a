import type { BrokerageCrm } from '../../../src/brokerages/brokerage-crm';
import type { LoadedBrokerage } from '../../../src/config';
import type { CashOfferClient } from '../../../src/cash-offer';
import type { OutboxCommand } from '../../../src/ledger/entities/outbox-command.entity';
import { RecordIssues } from '../../../src/sync/common/record-issues';
import { DEAL, LINK } from '../../../src/sync/common/listing-deal.properties';
import { DecisionHistoryRecorder } from '../../../src/sync/history/decision-history.recorder';
import { RequestStatusService } from '../../../src/sync/request-status/request-status.service';
import { CreateOfferRequestExecutor } from '../../../src/sync/seller-requests/create-offer-request.executor';
import { PhotoBatchesQueue } from '../../../src/sync/seller-requests/photo-batches.queue';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';

// The create's write-back against a status another writer shows while it runs. Seen in a soak of
// three workers on PostgreSQL: the write-back read "no status shown yet", called prelim, and
// meanwhile a reconcile on another worker showed `active` from the active list; the write-back then
// wrote the create's `in_review` on the deal. The ledger said `active`, so no later reconcile wrote
// the deal again: it showed `in_review` for good while the service listed the request active.
describe.each(ledgerEngines())('the create write-back and the request status (%s)', (engine) => {
  let f: LedgerFixture;
  beforeEach(async () => {
    f = await openTestLedger(engine);
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const BROKERAGE = 'acme';
  const DEAL_ID = '10006';

  // The CRM's deal as the agent sees it: each write's properties merged in order.
  function dealCrm(): { crm: BrokerageCrm; shown: Record<string, string | null> } {
    const shown: Record<string, string | null> = {};
    const crm = {
      brokerageId: BROKERAGE,
      port: {
        updateRecords: async (
          _kind: string,
          records: { id: string; properties: Record<string, string | null> }[],
        ) =>
          records.map((r) => {
            Object.assign(shown, r.properties);
            return { ok: true, record: { id: r.id, properties: r.properties } };
          }),
      },
    } as unknown as BrokerageCrm;
    return { crm, shown };
  }

  function services(ledger = f.ledger) {
    const status = new RequestStatusService(
      ledger.links,
      new DecisionHistoryRecorder(ledger.history, ledger.outbox),
      ledger.turns,
      ledger.recordErrors,
      f.clock,
    );
    const executor = new CreateOfferRequestExecutor(
      ledger.links,
      new RecordIssues(ledger.recordErrors),
      f.clock,
      ledger.outbox,
      new PhotoBatchesQueue(ledger.outbox),
      ledger.inbox,
      status,
    );
    return { status, executor };
  }

  const sentAt = new Date('2026-03-01T11:59:00.000Z');
  const command = {
    id: 1,
    brokerageId: BROKERAGE,
    kind: 'create_offer_request',
    recordRef: `deal:${DEAL_ID}`,
    payload: { property: { address: '1 Main St' }, request: {} },
    sentAt,
    updatedAt: sentAt,
  } as unknown as OutboxCommand;
  const created = { offer_request_id: 1001, offer_request_status: 'in_review' };

  it('leaves the deal on the status a reconcile on another worker showed while the create was answered', async () => {
    const other = await f.openAnother();
    const mine = services();
    const theirs = services(other);
    const { crm, shown } = dealCrm();
    const ctx = {
      brokerage: { id: BROKERAGE } as LoadedBrokerage,
      crm: async () => crm,
      signal: new AbortController().signal,
      cashOffer: {
        // While prelim is asked, the other worker's reconcile reads the active list (a minute after
        // the send) and shows `active`.
        prelim: async () => {
          await theirs.status.apply(crm, 1001, 'active', { readAt: f.clock.now() });
          return { buyer_count: 3 };
        },
      } as unknown as CashOfferClient,
    };
    await mine.executor.writeBack(command, created, ctx);

    expect(shown[DEAL.status]).toBe('active');
    expect(shown[DEAL.requestId]).toBe('1001');
    expect(shown[DEAL.prelimBuyers]).toBe('3');
    expect(await f.ledger.links.find(BROKERAGE, LINK.requestStatus, '1001')).toMatchObject({
      contentHash: 'active',
    });
  });

  it("shows the create answer's status when nothing else has, read as of the send", async () => {
    const { executor } = services();
    const { crm, shown } = dealCrm();
    const ctx = {
      brokerage: { id: BROKERAGE } as LoadedBrokerage,
      crm: async () => crm,
      signal: new AbortController().signal,
      cashOffer: { prelim: async () => ({ buyer_count: 2 }) } as unknown as CashOfferClient,
    };
    await executor.writeBack(command, created, ctx);

    expect(shown[DEAL.status]).toBe('in_review');
    expect(await f.ledger.links.find(BROKERAGE, LINK.requestStatus, '1001')).toMatchObject({
      contentHash: 'in_review',
      readAt: sentAt,
    });
  });
});
