import type { CallOptions, CashOfferClient } from '../../cash-offer';
import type { Offer } from '../../cash-offer/schema';
import { ManualClock } from '../../common/clock';
import { passRequestOffers, readRequestOffers, SharedBookRead, streamOfferReads } from './offer-pages';

const offer = (id: number, requestId = 1): Offer =>
  ({ offer_id: id, offer_request_id: requestId, offer_status: 'active', offer_amount: 100 }) as Offer;

// A client whose calls wait `waitMs` for the rate limiter, then try once (refused, `tries` - 1 times)
// and are answered: the clock moves as the waits and tries would.
function pacedClient(
  clock: ManualClock,
  pages: Offer[][],
  { waitMs, tries = 1, everyOffer = false }: { waitMs: number; tries?: number; everyOffer?: boolean },
): CashOfferClient {
  let served = 0;
  return {
    answersFromEveryOffer: () => everyOffer,
    listOffers: async (_query: unknown, call: CallOptions = {}) => {
      for (let attempt = 1; attempt <= tries; attempt++) {
        clock.advance(waitMs);
        await call.beforeSend?.();
        clock.advance(50);
      }
      if (everyOffer) return pages.flat();
      return pages[served++] ?? [];
    },
  } as unknown as CashOfferClient;
}

describe('offer reads are timed when their request left, after the rate limiter', () => {
  it('a page is read as of its answered try, not of before the limiter let it out', async () => {
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    const client = pacedClient(clock, [[offer(1), offer(2)]], { waitMs: 4_000, tries: 2 });
    const reads = [];
    for await (const read of streamOfferReads(client, clock)) reads.push(read);
    expect(reads).toHaveLength(1);
    // 4 s waited, a refused try (50 ms), 4 s waited again: the answered try left at 12:00:08.050.
    expect(reads[0].readAt.toISOString()).toBe('2026-12-02T12:00:08.050Z');
    // Its answer came 50 ms later: what a counter's lapse is judged by (offer-record.view.ts).
    expect(reads[0].answeredAt?.toISOString()).toBe('2026-12-02T12:00:08.100Z');
  });

  it('a service read whole in one call: as of that call', async () => {
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    const client = pacedClient(clock, [[offer(1)], [offer(2)]], { waitMs: 3_000, everyOffer: true });
    const reads = [];
    for await (const read of streamOfferReads(client, clock)) reads.push(read);
    expect(reads.map((r) => r.offers.length)).toEqual([2]);
    expect(reads[0].readAt.toISOString()).toBe('2026-12-02T12:00:03.000Z');
    expect(reads[0].answeredAt?.toISOString()).toBe('2026-12-02T12:00:03.050Z');
  });

  it("one request's offers, read over pages: as of the first page's request", async () => {
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    const client = pacedClient(clock, [[offer(1), offer(2, 2)], []], { waitMs: 2_000, everyOffer: true });
    const read = await readRequestOffers(client, clock, 1);
    expect(read.offers.map((o) => o.offer_id)).toEqual([1]);
    expect(read.readAt.toISOString()).toBe('2026-12-02T12:00:02.000Z');
    expect(read.answeredAt?.toISOString()).toBe('2026-12-02T12:00:02.050Z');
  });

  it('no offers: as of before the read was asked for', async () => {
    const clock = new ManualClock(new Date('2026-12-02T12:00:00Z'));
    const client = pacedClient(clock, [], { waitMs: 2_000, everyOffer: true });
    const read = await readRequestOffers(client, clock, 1);
    expect(read).toEqual({ offers: [], readAt: new Date('2026-12-02T12:00:00Z') });
  });
});

describe("one reconcile pass's reads of single requests' offers", () => {
  // A service that ignores the request filter (and paging) without refusing it: every read is the book.
  function ignoringClient(book: Offer[]): { client: CashOfferClient; calls: () => number } {
    let calls = 0;
    const client = {
      answersFromEveryOffer: () => false,
      listOffers: async () => {
        calls += 1;
        return book;
      },
    } as unknown as CashOfferClient;
    return { client, calls: () => calls };
  }

  it('reads the book once where the service answers a request filter with every offer', async () => {
    const { client, calls } = ignoringClient([offer(1, 1), offer(2, 2), offer(3, 1), offer(4, 3)]);
    const requestOffersOf = passRequestOffers(client);
    expect((await requestOffersOf(1)).map((o) => o.offer_id)).toEqual([1, 3]);
    const afterFirst = calls();
    expect((await requestOffersOf(2)).map((o) => o.offer_id)).toEqual([2]);
    expect((await requestOffersOf(3)).map((o) => o.offer_id)).toEqual([4]);
    expect(calls()).toBe(afterFirst);
  });

  it('reads the book once, whole, where the service refused the filter', async () => {
    const queries: unknown[] = [];
    const client = {
      answersFromEveryOffer: () => true,
      listOffers: async (query: { offset?: number }) => {
        queries.push(query);
        return query.offset ? [] : [offer(1, 1), offer(2, 2), offer(3, 1)];
      },
    } as unknown as CashOfferClient;
    const requestOffersOf = passRequestOffers(client);
    expect((await requestOffersOf(1)).map((o) => o.offer_id)).toEqual([1, 3]);
    expect((await requestOffersOf(2)).map((o) => o.offer_id)).toEqual([2]);
    expect(await requestOffersOf(3)).toEqual([]);
    expect(queries.every((q) => !Object.hasOwn(q as object, 'offer_request_id'))).toBe(true);
    expect(queries.length).toBeLessThanOrEqual(2);
  });

  it('reads each request where the service honours the filter', async () => {
    let calls = 0;
    const client = {
      answersFromEveryOffer: () => false,
      listOffers: async (query: { offer_request_id?: number; offset?: number }) => {
        calls += 1;
        return query.offset ? [] : [offer(10 + (query.offer_request_id ?? 0), query.offer_request_id)];
      },
    } as unknown as CashOfferClient;
    const requestOffersOf = passRequestOffers(client);
    expect((await requestOffersOf(1)).map((o) => o.offer_id)).toEqual([11]);
    const afterFirst = calls;
    expect((await requestOffersOf(2)).map((o) => o.offer_id)).toEqual([12]);
    expect(calls).toBeGreaterThan(afterFirst);
  });
});

describe('SharedBookRead: events read the whole book once, from a read asked for after they came', () => {
  const start = new Date('2026-12-02T12:00:00Z');
  const book = [[offer(1, 1), offer(2, 2), offer(3, 3)]];

  it('a read asked for no earlier than an event came serves it; one asked before does not', async () => {
    const clock = new ManualClock(start);
    const client = pacedClient(clock, book, { waitMs: 1_000, everyOffer: true });
    const calls = jest.spyOn(client, 'listOffers');
    const shared = new SharedBookRead(client, clock);
    const received = clock.now();
    clock.advance(500);
    const first = await shared.requestOffers(1, received);
    expect(first.offers.map((o) => o.offer_id)).toEqual([1]);
    // The service refused the filter: the book is asked for whole, not filtered by the client.
    expect(calls.mock.calls[0][0]).toEqual({});
    const second = await shared.requestOffers(2, received);
    expect(second).toEqual({ offers: [offer(2, 2)], readAt: first.readAt, answeredAt: first.answeredAt });
    expect(calls).toHaveBeenCalledTimes(1);

    // An event that came after that read was asked for is read again, and so is a read with no bound.
    const later = clock.now();
    expect((await shared.requestOffers(3, later)).offers).toEqual([offer(3, 3)]);
    expect(calls).toHaveBeenCalledTimes(2);
    await shared.requestOffers(3);
    expect(calls).toHaveBeenCalledTimes(3);
  });

  it('a service that honours the filter is read per request', async () => {
    const clock = new ManualClock(start);
    const client = pacedClient(clock, [[offer(1, 1)], [], [offer(2, 2)], []], { waitMs: 1_000 });
    const calls = jest.spyOn(client, 'listOffers');
    const shared = new SharedBookRead(client, clock);
    const received = clock.now();
    clock.advance(500);
    expect((await shared.requestOffers(1, received)).offers).toEqual([offer(1, 1)]);
    expect((await shared.requestOffers(2, received)).offers).toEqual([offer(2, 2)]);
    expect(
      calls.mock.calls.map(([query]) => (query as { offer_request_id?: number }).offer_request_id),
    ).toEqual([1, 1, 2, 2]);
  });
});
