import { Logger } from '@nestjs/common';
import type { BrokerageCrm } from '../../../src/brokerages/brokerage-crm';
import type { CashOfferClient } from '../../../src/cash-offer';
import type { Offer } from '../../../src/cash-offer/schema';
import {
  CASH_OFFERS_PIPELINE,
  CrmStageMap,
  type CrmPort,
  type CrmRecord,
  type CrmUpdateInput,
  type CrmUpsertInput,
} from '../../../src/crm';
import type { MetricsService } from '../../../src/observability/metrics/metrics.service';
import { DECIDE_OFFER, decisionKey } from '../../../src/sync/decisions/decision.command';
import { OfferRecordOutcome } from '../../../src/sync/decisions/offer-record.outcome';
import { DEAL, LINK } from '../../../src/sync/common/listing-deal.properties';
import type { DecisionHistoryRecorder } from '../../../src/sync/history/decision-history.recorder';
import { encodeCounterLink } from '../../../src/sync/offers/counter-link';
import { OFFER } from '../../../src/sync/offers/offer-record.properties';
import { OffersService } from '../../../src/sync/offers/offers.service';
import { HeldStages } from '../../../src/sync/offers/held-stages.service';
import type { RequestStatusService } from '../../../src/sync/request-status/request-status.service';
import type { Ledger } from '../../../src/ledger';
import { LedgerFixture, ledgerEngines, openTestLedger } from '../../support/ledger-fixture';
import { waitFor } from '../../support/wait-for';

// Two writers of one brokerage's offer records: one read the service, then waited its turn while
// the other read it later and wrote. The one holding the older answer must not write it over the
// newer one (issue 27), on the real ledger of each engine.

const BROKERAGE = 'b1';
const LISTING_DEAL = 'listing-1';
const STAGES = ['incoming', 'accept_requested', 'accepted', 'reject_requested', 'rejected', 'countered'];

function offer(id: number, amount: number, status: string): Offer {
  return {
    offer_id: id,
    offer_request_id: 7,
    offer_request_external_id: LISTING_DEAL,
    offer_amount: amount,
    buyer_pays_buyer_broker_commission: false,
    buyer_pays_listing_broker_commission: false,
    buyer_broker_commission_pct: 3,
    listing_broker_commission_pct: 2.5,
    created_at: '2026-02-28T10:00:00.000Z',
    offer_expires: '2026-03-07T10:00:00.000Z',
    offer_status: status,
    offer_is_counter_offer: false,
  } as Offer;
}

// A CRM holding records in memory, answering the port's calls the flows make here.
class MemoryCrm {
  readonly records = new Map<string, CrmRecord>();
  // Throws after the next upsert has landed: a writer killed between its CRM write and its links.
  killAfterNextUpsert = false;
  private nextId = 1;

  byKey(key: string): CrmRecord | undefined {
    return [...this.records.values()].find((r) => r.properties[OFFER.id] === key);
  }

  port(): CrmPort {
    const port = {
      upsertRecords: (_kind: string, _unique: string, inputs: CrmUpsertInput[]) => {
        const results = inputs.map((input) => {
          const found = this.byKey(input.key);
          const record = found ?? this.add(input.properties);
          this.place(record, input.properties, input);
          return { key: input.key, ok: true as const, id: record.id, created: !found };
        });
        if (this.killAfterNextUpsert) {
          this.killAfterNextUpsert = false;
          return Promise.reject(new Error('killed'));
        }
        return Promise.resolve(results);
      },
      updateRecords: (_kind: string, inputs: CrmUpdateInput[]) =>
        Promise.resolve(
          inputs.map((input) => {
            const record = this.records.get(input.id) ?? this.add({}, input.id);
            this.place(record, input.properties, input);
            return { key: input.id, ok: true as const, id: input.id, created: false };
          }),
        ),
      findByUniqueValues: (_kind: string, _unique: string, values: string[]) =>
        Promise.resolve(values.map((v) => this.byKey(v)).filter((r): r is CrmRecord => r !== undefined)),
      getRecords: (_kind: string, ids: string[]) =>
        Promise.resolve(ids.map((id) => this.records.get(id)).filter((r): r is CrmRecord => r !== undefined)),
      associate: (pairs: unknown[]) => Promise.resolve(pairs.map((pair) => ({ pair, ok: true }))),
      // Keeps no stage history, as a CRM without one.
      stageHistory: () => Promise.resolve(undefined),
    };
    return port as unknown as CrmPort;
  }

  private add(properties: CrmRecord['properties'], id = `deal-${this.nextId++}`): CrmRecord {
    const record: CrmRecord = { id, kind: 'deal', properties: { ...properties }, updatedAt: '' };
    this.records.set(id, record);
    return record;
  }

  private place(
    record: CrmRecord,
    properties: CrmRecord['properties'],
    placement: { pipelineId?: string; stageId?: string },
  ): void {
    Object.assign(record.properties, properties);
    if (placement.stageId) record.stageId = placement.stageId;
  }
}

// The service's GET /offers: what it lists at the moment of the request. A request can be held
// after its answer is taken, as a writer is held between its read and its turn.
class Service {
  offers: Offer[] = [];
  private hold: { gate: Promise<void>; answered: () => void } | undefined;

  // `answered` once the next request's answer is taken; it is returned on `release`.
  holdNextAnswer(): { release: () => void; answered: Promise<void> } {
    let release: () => void = () => undefined;
    let answered: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const taken = new Promise<void>((resolve) => (answered = resolve));
    this.hold = { gate, answered };
    return { release, answered: taken };
  }

  client(): CashOfferClient {
    const client = {
      answersFromEveryOffer: () => false,
      listOffers: async (query: { offset?: number }) => {
        const answer = this.offers.slice(query.offset ?? 0).map((o) => ({ ...o }));
        const hold = this.hold;
        this.hold = undefined;
        if (hold) {
          hold.answered();
          await hold.gate;
        }
        return answer;
      },
    };
    return client as unknown as CashOfferClient;
  }
}

describe.each(ledgerEngines())(
  'offer records are written in the order their data was read (%s)',
  (engine) => {
    let f: LedgerFixture;
    let memory: MemoryCrm;
    let service: Service;
    let crm: BrokerageCrm;
    let offers: OffersService;
    let stages: CrmStageMap;

    beforeAll(() => {
      Logger.overrideLogger(false);
    });

    beforeEach(async () => {
      f = await openTestLedger(engine);
      memory = new MemoryCrm();
      service = new Service();
      stages = new CrmStageMap({
        [CASH_OFFERS_PIPELINE]: {
          id: 'pipe',
          stages: Object.fromEntries(STAGES.map((s) => [s, `stage-${s}`])),
        },
      });
      crm = { brokerageId: BROKERAGE, port: memory.port(), stages } as unknown as BrokerageCrm;
      offers = offersServiceOn(f.ledger);
      await f.ledger.links.upsertLinks(BROKERAGE, LINK.offerRequest, [
        { remoteId: '7', crmId: LISTING_DEAL, contentHash: 'request' },
      ]);
      service.offers = [offer(1, 300_000, 'active')];
      await offers.refreshRequest(crm, service.client(), 7);
      f.clock.advance(1000);
    });

    afterEach(async () => {
      await f.cleanup();
    });

    // The offers service of one process of the ledger (another worker: another `Ledger`).
    function offersServiceOn(ledger: Ledger): OffersService {
      const status = {
        listingDealOf: () => Promise.resolve(LISTING_DEAL),
        apply: () => Promise.resolve('unchanged'),
      } as unknown as RequestStatusService;
      const metrics = { recordsSyncedInRun: () => undefined } as unknown as MetricsService;
      const history = { shownEntries: () => [] } as unknown as DecisionHistoryRecorder;
      return new OffersService(
        ledger.turns,
        ledger.links,
        ledger.recordErrors,
        status,
        metrics,
        history,
        f.clock,
        new HeldStages(ledger.outbox, ledger.recordErrors),
      );
    }

    const stageOf = (offerId: number) =>
      stages.resolve('pipe', memory.byKey(String(offerId))?.stageId)?.stageKey;
    const statusOf = (offerId: number) => memory.byKey(String(offerId))?.properties[OFFER.status];
    const summary = () => {
      const deal = memory.records.get(LISTING_DEAL)?.properties ?? {};
      return { count: deal[DEAL.offerCount], best: deal[DEAL.bestOffer] };
    };

    it('an event whose re-read waited behind a newer one leaves the records and the summary alone', async () => {
      expect(statusOf(1)).toBe('active');
      // Writer A (an inbox-drain event) reads: offer 1 active, alone.
      const held = service.holdNextAnswer();
      const stale = offers.refreshRequest(crm, service.client(), 7);
      await held.answered;
      // Then the service moves on: offer 1 rejected, offer 2 arrives; writer B reads and writes that.
      f.clock.advance(1000);
      service.offers = [offer(1, 300_000, 'rejected'), offer(2, 350_000, 'active')];
      await offers.refreshRequest(crm, service.client(), 7);
      expect([statusOf(1), stageOf(1), statusOf(2)]).toEqual(['rejected', 'rejected', 'active']);
      expect(summary()).toEqual({ count: '2', best: '350000' });
      // A's turn comes: what it read is older than what the records show.
      f.clock.advance(1000);
      held.release();
      const { counts } = await stale;
      // A's next page (offer 2, from offset 1) was read after B's write: A's read as a whole dates
      // from its first page, so neither offer is written.
      expect(counts).toMatchObject({ read: 2, updated: 0, unchanged: 2 });
      expect([statusOf(1), stageOf(1), statusOf(2)]).toEqual(['rejected', 'rejected', 'active']);
      expect(summary()).toEqual({ count: '2', best: '350000' });
      // A later read is written as always.
      service.offers = [offer(1, 300_000, 'rejected'), offer(2, 350_000, 'accepted')];
      await offers.refreshRequest(crm, service.client(), 7);
      expect([statusOf(2), stageOf(2)]).toEqual(['accepted', 'accepted']);
      expect(summary()).toEqual({ count: '2', best: '350000' });
    });

    it('a writer killed after its CRM write still holds back one that read before it', async () => {
      const held = service.holdNextAnswer();
      const stale = offers.refreshRequest(crm, service.client(), 7);
      await held.answered;
      f.clock.advance(1000);
      service.offers = [offer(1, 300_000, 'rejected')];
      memory.killAfterNextUpsert = true;
      await expect(offers.refreshRequest(crm, service.client(), 7)).rejects.toThrow('killed');
      expect(statusOf(1)).toBe('rejected');
      held.release();
      await stale;
      expect(statusOf(1)).toBe('rejected');
      // The link vouches for nothing: the next pass writes the record again.
      f.clock.advance(1000);
      const { counts } = await offers.refreshRequest(crm, service.client(), 7);
      expect(counts).toMatchObject({ updated: 1 });
    });

    it("a decision's outcome placed from a read older than the record is placed from a new read", async () => {
      // The agent asked to reject offer 1; the service refuses. The write-back read the request (offer
      // 1 active) and waited while the service accepted the offer and an event showed it.
      const outcome = new OfferRecordOutcome(
        offers,
        new HeldStages(f.ledger.outbox, f.ledger.recordErrors),
        f.ledger.outbox,
      );
      const { command: reject } = await f.ledger.outbox.enqueue({
        brokerageId: BROKERAGE,
        idempotencyKey: decisionKey(BROKERAGE, 1, DECIDE_OFFER),
        operation: DECIDE_OFFER,
        recordRef: `deal:${memory.byKey('1')!.id}`,
        payload: {},
      });
      const held = service.holdNextAnswer();
      const shown = outcome.show(
        crm,
        service.client(),
        { requestId: 7, offerId: 1, recordId: memory.byKey('1')!.id },
        {
          of: reject,
          answers: { operation: 'decide_offer', decision: 'rejected' },
          message: 'The Cash Offer service did not reject offer 1: offer already accepted',
        },
      );
      await held.answered;
      f.clock.advance(1000);
      service.offers = [offer(1, 300_000, 'accepted')];
      await offers.refreshRequest(crm, service.client(), 7);
      expect(stageOf(1)).toBe('accepted');
      f.clock.advance(1000);
      held.release();
      await shown;
      expect([statusOf(1), stageOf(1)]).toEqual(['accepted', 'accepted']);
      expect(memory.byKey('1')?.properties[OFFER.decisionError]).toMatch(/did not reject/);
    });

    it("a reconcile reading a countered request's other offers holds no worker's writers up while the service is slow", async () => {
      // Readings sweep 1572 (three workers, 11 s hangs, a per-second limit): a reconcile's page read
      // the whole of a request our counter waits on inside the offer records' turn, and the agent's
      // decisions waited 47 s behind its retries.
      await f.ledger.links.upsertLinks(BROKERAGE, LINK.counter, [
        {
          remoteId: '1',
          crmId: '901',
          contentHash: encodeCounterLink({ status: 'pending', requestId: 7, listedAtSend: 'countered' }),
        },
      ]);
      service.offers = [offer(1, 300_000, 'countered'), offer(2, 350_000, 'active')];
      await offers.refreshRequest(crm, service.client(), 7);
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let readsWaiting = 0;
      const pageReadAt = f.clock.now();
      const reconcile = offers.applyOffers(crm, [offer(1, 300_000, 'countered')], {
        readAt: pageReadAt,
        requestOffersOf: async () => {
          readsWaiting += 1;
          await gate;
          return [offer(1, 300_000, 'countered'), offer(2, 350_000, 'active')];
        },
      });
      await waitFor(() => readsWaiting === 1, { timeoutMs: 5000, what: "the reconcile's read of request 7" });
      // Meanwhile the buyer of offer 2 raised it and an event shows it: on PostgreSQL in another
      // worker, on SQLite in the daemon itself (its one process runs every job; a second ledger in
      // this process would count as the same holder of the turn).
      f.clock.advance(1000);
      service.offers = [offer(1, 300_000, 'countered'), offer(2, 360_000, 'active')];
      const writer = engine === 'postgres' ? offersServiceOn(await f.openAnother()) : offers;
      let shown = false;
      const event = writer.refreshRequest(crm, service.client(), 7).then(() => (shown = true));
      try {
        await waitFor(() => shown, { timeoutMs: 5000, what: "the event's write" });
      } finally {
        release();
        await Promise.all([reconcile, event]);
      }
      expect(memory.byKey('2')?.properties[OFFER.amount]).toBe('360000');
      expect(summary()).toEqual({ count: '2', best: '360000' });
    });
  },
);
