import { CashOfferError, type CallOptions, type CashOfferClient } from '../../cash-offer';
import type { CounterOfferBody, Offer } from '../../cash-offer/schema';
import type { Clock } from '../../common/clock';
import type {
  InboxEvent,
  InboxRepository,
  LinkRepository,
  OutboxCommand,
  OutboxRepository,
} from '../../ledger';
import type { OutboxContext } from '../outbox/outbox.executors';
import { decodeCounterLink, encodeCounterLink, serviceMark } from '../offers/counter-link';
import type { OfferRecordOutcome } from './offer-record.outcome';
import {
  CounterOfferExecutor,
  sentBeforeAcceptance,
  endedBeforeItsOwnExpiry,
  ranOutWithItsOffer,
  refusedOffersNamed,
  type CounterOfferPayload,
} from './counter-offer.executor';

// The executor as the drain's send uses it: no ledger but the outbox's done counters (none).
const executorFor = () =>
  new CounterOfferExecutor(
    undefined as never,
    undefined as never,
    { nowMs: () => Date.parse('2026-12-01T10:00:00Z') } as unknown as Clock,
    undefined as never,
    { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository,
  );
const counterOn7: CounterOfferPayload = {
  offerId: 7,
  requestId: 3,
  recordId: 'r7',
  body: { offer_id: 7, counter_offer_amount: 250_000 },
};

// The counter's one write as the drain sees it: a refusal naming the fields the body left out is
// answered by the counter sent again with them, and between the two the drain is told that nothing
// is on its way (refusedBeforeRetry), so a crash there leaves a counter to send, not an unknown one.
describe('CounterOfferExecutor.send after a refusal naming missing fields', () => {
  const refusal = new CashOfferError({
    code: 'INVALID_RECORD',
    status: 400,
    operation: 'POST /counter-offers',
    message: 'the service refused the record (400): counter_offer_terms is required',
    serviceError: { error: 400, message: 'counter_offer_terms is required' },
  });
  const unreadable = new CashOfferError({
    code: 'INVALID_RECORD',
    status: 400,
    operation: 'GET /offers',
    message: 'the listing is not read in this test',
  });

  it('tells the drain between the refused request and the one sent again, and sends the named field', async () => {
    const steps: string[] = [];
    const bodies: CounterOfferBody[] = [];
    let posts = 0;
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: () => Promise.reject(unreadable),
      counterOffer: async (body: CounterOfferBody, call?: CallOptions) => {
        await call?.beforeSend?.();
        steps.push('sent');
        bodies.push(body);
        posts += 1;
        if (posts === 1) throw refusal;
        return { counter_offer_id: 41, counter_offer_status: 'pending' };
      },
    } as unknown as CashOfferClient;
    const executor = executorFor();
    const payload = counterOn7;
    const ctx = {
      brokerage: { id: 'b1' },
      cashOffer,
      call: {
        beforeSend: () => Promise.resolve(void steps.push('beforeSend')),
        refusedBeforeRetry: (said: string) => Promise.resolve(void steps.push(`refused: ${said}`)),
      },
    } as unknown as OutboxContext;

    const answer = await executor.send({ payload } as unknown as OutboxCommand, ctx);

    expect(steps).toEqual(['beforeSend', 'sent', `refused: ${refusal.message}`, 'beforeSend', 'sent']);
    expect(bodies[0]).not.toHaveProperty('counter_offer_terms');
    expect(bodies[1]).toHaveProperty('counter_offer_terms');
    expect(answer).toMatchObject({ counter_offer_id: 41, required_fields: ['counter_offer_terms'] });
  });
});

// Readings sweep 1632 run 2: a worker killed after the POST was answered, in the read that follows
// it, left the counter unknown on a service that lists a countered offer `active` and names no counter
// on it, so nothing could find it. The answer is kept (the drain's keepAnswer) before that read.
describe('CounterOfferExecutor.send, the answer kept the moment it comes', () => {
  it('is kept after the POST and before the listing read that follows, with what the send learnt', async () => {
    const steps: string[] = [];
    let reads = 0;
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => {
        steps.push(`GET /offers ${++reads}`); // paged: read until the service repeats or runs out
        return [{ offer_id: 7, offer_request_id: 3, offer_status: 'active' }];
      },
      counterOffer: async (_body: CounterOfferBody, call?: CallOptions) => {
        await call?.beforeSend?.();
        steps.push('POST /counter-offers');
        return undefined; // answered 204: no counter record
      },
    } as unknown as CashOfferClient;
    const executor = new CounterOfferExecutor(
      undefined as never,
      { countByContent: async () => 0, latestByContent: async () => [] } as unknown as LinkRepository,
      { nowMs: () => Date.parse('2026-12-01T10:00:00Z') } as unknown as Clock,
      undefined as never,
      { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository,
    );
    const kept: unknown[] = [];
    const ctx = {
      brokerage: { id: 'b1' },
      cashOffer,
      call: { beforeSend: () => Promise.resolve(void steps.push('beforeSend')) },
      keepAnswer: (answer: unknown) => Promise.resolve(void (kept.push(answer), steps.push('kept'))),
    } as unknown as OutboxContext;

    const answer = await executor.send({ payload: counterOn7 } as unknown as OutboxCommand, ctx);

    const afterPost = steps.slice(steps.indexOf('POST /counter-offers') + 1);
    expect(afterPost[0]).toBe('kept');
    expect(afterPost.slice(1)).toEqual(expect.arrayContaining([expect.stringMatching(/^GET \/offers/)]));
    expect(kept).toEqual([{ counter_offer_id: undefined, counter_offer_status: undefined }]);
    expect(answer).toMatchObject(kept[0] as object);
  });
});

describe('CounterOfferExecutor.send, a counter whose own expiry passes before it is posted', () => {
  const NOT_SENT =
    'POST /counter-offers not sent: counter_offer_expires 2026-12-01T09:59:00.000Z passed before the counter could be sent; nothing was sent';

  // Sends a counter expiring at 09:59:00 with the clock at `nowMs`; `onRead` runs as the offer is read.
  async function sendCounter(nowMs: () => number, onRead: () => void = () => undefined) {
    const calls: string[] = [];
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => {
        calls.push('GET /offers');
        onRead();
        return [];
      },
      counterOffer: async () => void calls.push('POST /counter-offers'),
    } as unknown as CashOfferClient;
    const executor = new CounterOfferExecutor(
      undefined as never,
      undefined as never,
      { nowMs } as unknown as Clock,
      undefined as never,
      { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository,
    );
    const payload = {
      ...counterOn7,
      body: { ...counterOn7.body, counter_offer_expires: '2026-12-01T09:59:00Z' },
    };
    const ctx = { brokerage: { id: 'b1' }, cashOffer } as unknown as OutboxContext;
    const refused = await executor
      .send({ payload } as unknown as OutboxCommand, ctx)
      .catch((e: unknown) => e);
    return { refused, calls };
  }

  it('ran out while it waited to be sent: is refused before any request, naming counter_offer_expires', async () => {
    const { refused, calls } = await sendCounter(() => Date.parse('2026-12-01T10:00:00Z'));

    expect(refused).toBeInstanceOf(CashOfferError);
    expect(refused).toMatchObject({ code: 'INVALID_RECORD', status: undefined });
    expect((refused as Error).message).toBe(NOT_SENT);
    expect(calls).toEqual([]);
  });

  // A 200-kill soak sent one 4 s past its expiry (the offer's read waited on the rate limit): the
  // service ended it on arrival, and the offer dropped off the list before any read showed it.
  it('runs out while the offer is read: is not posted, its expiry checked again before the POST', async () => {
    let now = Date.parse('2026-12-01T09:58:58Z');
    const { refused, calls } = await sendCounter(
      () => now,
      () => (now = Date.parse('2026-12-01T09:59:03Z')),
    );

    expect((refused as Error).message).toBe(NOT_SENT);
    expect(calls).toEqual(['GET /offers']);
  });
});

describe('CounterOfferExecutor.send, a counter that runs out between its send and the listing read', () => {
  it('learns nothing of how the service lists a countered offer from that read', async () => {
    const sentAt = Date.parse('2026-12-01T10:00:00Z');
    const nowMs = jest
      .fn()
      // Read before the offer's read and again before the POST; the clock moves on after it.
      .mockReturnValueOnce(sentAt)
      .mockReturnValueOnce(sentAt)
      .mockReturnValue(sentAt + 120_000);
    const reads: string[] = [];
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => {
        reads.push('GET /offers');
        return [{ offer_id: 7, offer_request_id: 3, offer_status: 'active' }];
      },
      counterOffer: async () => ({ counter_offer_id: 41, counter_offer_status: 'pending' }),
    } as unknown as CashOfferClient;
    const executor = new CounterOfferExecutor(
      undefined as never,
      // No counter of this brokerage has shown how its service lists one yet.
      { countByContent: async () => 0, latestByContent: async () => [] } as unknown as LinkRepository,
      { nowMs } as unknown as Clock,
      undefined as never,
      { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository,
    );
    const payload = {
      ...counterOn7,
      body: { ...counterOn7.body, counter_offer_expires: '2026-12-01T10:01:00Z' },
    };
    const ctx = { brokerage: { id: 'b1' }, cashOffer } as unknown as OutboxContext;

    const answer = await executor.send({ payload } as unknown as OutboxCommand, ctx);

    expect(answer).toMatchObject({ counter_offer_id: 41 });
    expect(answer).not.toHaveProperty('listed_at_send');
    expect(reads.length).toBeGreaterThan(0); // the countered offer's terms, read before the send
  });
});

// Readings sweep 1601 run 1's replays: the buyer refused the counter before the send's own read
// (within an answer the gateway held 11 s; within 0.5 s of a prompt one), on a service that sends no
// UPDATE and lists a waiting countered offer `countered`; the read found the offer `active` again.
// Taken for how the service lists a countered offer, it hid the refusal for good.
describe("CounterOfferExecutor.send, an active offer read after the POST, where an earlier counter's was countered", () => {
  const baseUrl = 'https://cash-offer.example/api/v2';
  async function listedAtSend(answerTakesMs: number, earlierSentTo?: string): Promise<unknown> {
    let nowMs = Date.parse('2026-12-05T15:50:32Z');
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => [{ offer_id: 7, offer_request_id: 3, offer_status: 'active' }],
      counterOffer: async () => {
        nowMs += answerTakesMs;
        return undefined; // answered 204: no counter record
      },
    } as unknown as CashOfferClient;
    const earlier = {
      crmId: 'unnamed:5',
      contentHash: encodeCounterLink({
        status: 'rejected',
        listedAtSend: 'countered',
        ...(earlierSentTo !== undefined ? { service: serviceMark(earlierSentTo) } : {}),
      }),
    };
    const links = {
      latestByContent: async (_b: string, _k: string, fragment: string) =>
        earlier.contentHash.includes(fragment) ? [earlier] : [],
    } as unknown as LinkRepository;
    const executor = new CounterOfferExecutor(
      undefined as never,
      links,
      { nowMs: () => nowMs } as unknown as Clock,
      undefined as never,
      { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository,
    );
    const ctx = {
      brokerage: { id: 'b1', config: { cashOffer: { baseUrl } } },
      cashOffer,
    } as unknown as OutboxContext;
    const answer = await executor.send({ payload: counterOn7 } as unknown as OutboxCommand, ctx);
    return (answer as { listed_at_send?: unknown }).listed_at_send;
  }

  it('sent to the same service: the buyer refused already, however soon the read', async () => {
    expect(await listedAtSend(200, 'https://CASH-OFFER.example/api/v2/')).toBe('countered');
  });

  it('sent to another service, or to one not recorded (an older ledger), read at once: the active offer stands', async () => {
    expect(await listedAtSend(200, 'http://127.0.0.1:4010/api/v2')).toBe('active');
    expect(await listedAtSend(200)).toBe('active');
  });

  it('read seconds after the POST: the buyer may have answered in between, whichever service the earlier met', async () => {
    expect(await listedAtSend(11_000, 'http://127.0.0.1:4010/api/v2')).toBe('countered');
    expect(await listedAtSend(11_000)).toBe('countered');
  });
});

describe('CounterOfferExecutor.send, an expiry the service requires and the agent left empty', () => {
  it("sends the offer's own and keeps it as the counter's (expires_sent): when it runs out", async () => {
    const expires = '2026-12-08T12:00:00.000Z';
    const offer = { offer_id: 7, offer_request_id: 3, offer_status: 'active', offer_expires: expires };
    const bodies: CounterOfferBody[] = [];
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => [offer],
      counterOffer: async (body: CounterOfferBody) => {
        bodies.push(body);
        if (body.counter_offer_expires === undefined)
          throw new CashOfferError({
            code: 'INVALID_RECORD',
            status: 422,
            operation: 'POST /counter-offers',
            message: 'the service refused the record (422): counter_offer_expires is required',
            serviceError: { error: 422, message: 'counter_offer_expires is required' },
          });
        return { counter_offer_id: 41, counter_offer_status: 'pending' };
      },
    } as unknown as CashOfferClient;
    const executor = executorFor();
    const payload = counterOn7;
    const ctx = { brokerage: { id: 'b1' }, cashOffer } as unknown as OutboxContext;

    const answer = await executor.send({ payload } as unknown as OutboxCommand, ctx);

    expect(bodies.map((b) => b.counter_offer_expires)).toEqual([undefined, expires]);
    expect(answer).toMatchObject({ counter_offer_id: 41, expires_sent: expires });
  });
});

// A counter whose answer was lost, on an offer the service lists `active` again, where countered
// offers are listed `rejected` at once: provably never received only where this service keeps a
// refused offer closed. Readings sweep 1410, run 2: the first refusal of the run was still waiting
// for its own counter's link, so no link said refused offers reopen, and the counter went twice.
describe('CounterOfferExecutor.reconcile, on an offer listed active again', () => {
  const offer = (offerId: number, requestId: number, status: string): Offer =>
    ({
      offer_id: offerId,
      offer_request_id: requestId,
      offer_status: status,
      offer_amount: 300_000,
    }) as Offer;
  const update = (payload: Record<string, unknown>): InboxEvent =>
    ({ eventType: 'UPDATE', payload: JSON.stringify({ event: 'UPDATE', ...payload }) }) as InboxEvent;

  function reconcileWith(options: {
    offersByRequest: Record<number, Offer[]>;
    updates: InboxEvent[];
    // The offers' statuses read after refusals the ledger linked (counter links' `f`).
    linkedRefusals?: string[];
    // The counter's own expiry, and whether a counter was seen waiting well past its own (`o`).
    counterExpires?: string;
    outlived?: boolean;
    // When the look is made, and what an earlier look kept on the command.
    now?: string;
    kept?: unknown;
    // The fields this service required of the brokerage's done counters.
    required?: string[];
    // The offer's expiry as its record showed it when the agent countered.
    offerExpires?: string;
  }) {
    const reads: number[] = [];
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async (query: { offer_request_id?: number }) => {
        const requestId = query.offer_request_id!;
        reads.push(requestId);
        return options.offersByRequest[requestId] ?? [];
      },
    } as unknown as CashOfferClient;
    // This service lists a countered offer `rejected` (seen on earlier counters); no link of a
    // refusal says whether it reopens refused offers.
    const refusals = options.linkedRefusals ?? [];
    const links = {
      findByContent: async () => [],
      latestByContent: async () => [
        {
          remoteId: '1',
          crmId: 'unnamed:1',
          contentHash: encodeCounterLink({ status: 'pending', listedAtSend: 'rejected' }),
        },
      ],
      countByContent: async (_b: string, _k: string, content: string) =>
        content === '"l":"rejected"'
          ? 1
          : content === '"o":1'
            ? Number(options.outlived ?? false)
            : content === '"f":'
              ? refusals.length
              : refusals.filter((f) => content === `"f":"${f}"`).length,
    } as unknown as LinkRepository;
    const inbox = { list: async () => options.updates } as unknown as InboxRepository;
    const clock = { nowMs: () => Date.parse(options.now ?? '2026-11-29T18:46:21Z') } as unknown as Clock;
    const outbox = {
      latestDone: async () => [{ result: { required_fields: options.required ?? [] } }],
    } as unknown as OutboxRepository;
    const executor = new CounterOfferExecutor(undefined as never, links, clock, inbox, outbox);
    const command = {
      id: 22,
      payload: {
        offerId: 7013,
        requestId: 1006,
        recordId: '10025',
        ...(options.offerExpires ? { expiresAt: options.offerExpires } : {}),
        body: {
          offer_id: 7013,
          counter_offer_amount: 390_600,
          ...(options.counterExpires ? { counter_offer_expires: options.counterExpires } : {}),
        },
      },
      sentAt: new Date('2026-11-29T18:45:27Z'),
      updatedAt: new Date('2026-11-29T18:45:27Z'),
      result: options.kept ?? null,
    } as unknown as OutboxCommand;
    const ctx = {
      brokerage: { id: 'soak', config: { cashOffer: {} } },
      cashOffer,
    } as unknown as OutboxContext;
    return {
      reconcile: () => executor.reconcile(command, ctx),
      confirmReceived: () => executor.receivedWithoutAnswer(command, ctx),
      reads,
    };
  }

  // A 200-kill soak (seed 20261241): a counter found after its answer was lost, on a service that
  // requires an expiry, had none on its link, and when it lapsed with its offer it was shown refused.
  describe('a counter found after its answer was lost keeps the expiry the send filled in', () => {
    const expires = '2026-11-29T19:30:00.000Z';
    const countered = { ...offer(7013, 1006, 'countered'), offer_expires: expires };

    it("the offer's, where this service requires one and the agent gave none", async () => {
      const { reconcile } = reconcileWith({
        offersByRequest: { 1006: [countered] },
        updates: [],
        required: ['counter_offer_terms', 'counter_offer_expires'],
      });
      expect(await reconcile()).toEqual({
        found: true,
        result: { listed_at_send: 'countered', expires_sent: expires },
      });
    });

    it("none where the service does not require one, or the agent's own went", async () => {
      for (const options of [
        { required: ['counter_offer_terms'] },
        { counterExpires: '2026-11-29T19:00:00Z' },
      ]) {
        const { reconcile } = reconcileWith({
          offersByRequest: { 1006: [countered] },
          updates: [],
          ...options,
        });
        expect(await reconcile()).toEqual({ found: true, result: { listed_at_send: 'countered' } });
      }
    });

    // The operator's `confirm-received` finishes such a counter too: it kept no expiry either.
    it('and one the operator confirmed received, from the offer as the agent countered it', async () => {
      const required = ['counter_offer_terms', 'counter_offer_expires'];
      const confirmed = (options: { required: string[]; counterExpires?: string }) =>
        reconcileWith({
          offersByRequest: {},
          updates: [],
          offerExpires: expires,
          ...options,
        }).confirmReceived();
      expect(await confirmed({ required })).toEqual({ expires_sent: expires });
      expect(await confirmed({ required: ['counter_offer_terms'] })).toEqual({});
      expect(await confirmed({ required, counterExpires: '2026-11-29T19:00:00Z' })).toEqual({});
    });
  });

  it('a refusal of another offer that the service lists active again: not proof of absence, it waits for the UPDATE', async () => {
    const { reconcile, reads } = reconcileWith({
      offersByRequest: { 1006: [offer(7013, 1006, 'active')], 1002: [offer(7005, 1002, 'active')] },
      updates: [
        update({
          counter_offer_id: 9001,
          offer_id: 7005,
          offer_request_id: 1002,
          counter_offer_status: 'rejected',
        }),
      ],
    });
    expect(await reconcile()).toMatchObject({
      found: false,
      provablyAbsent: false,
      hint: expect.stringContaining('puts an offer back to active when its buyer refuses a counter'),
    });
    expect([...new Set(reads)]).toEqual([1006, 1002]);
  });

  it('an UPDATE naming no request is looked for among the offers already read', async () => {
    const { reconcile, reads } = reconcileWith({
      offersByRequest: { 1006: [offer(7013, 1006, 'active'), offer(7014, 1006, 'active')] },
      updates: [update({ offer_id: 7014, counter_offer_status: 'rejected' })],
    });
    expect(await reconcile()).toMatchObject({ found: false, provablyAbsent: false });
    expect([...new Set(reads)]).toEqual([1006]);
  });

  it('with a refused offer seen kept closed, the active offer proves the counter never arrived', async () => {
    expect(
      await reconcileWith({
        offersByRequest: { 1006: [offer(7013, 1006, 'active')] },
        updates: [],
        linkedRefusals: ['rejected'],
      }).reconcile(),
    ).toMatchObject({ found: false, provablyAbsent: true });
    expect(
      await reconcileWith({
        offersByRequest: { 1006: [offer(7013, 1006, 'active')], 1002: [offer(7005, 1002, 'rejected')] },
        updates: [update({ counter_offer_id: 9001, offer_id: 7005, offer_request_id: 1002 })],
      }).reconcile(),
    ).toMatchObject({ found: false, provablyAbsent: true });
  });

  // A replay of readings sweep 1519, run 2: the counter's answer was lost and it lapsed (the offer
  // reopened) before the reconcile read the listing; taken for never arrived, it was refused as run
  // out on the way out again, and the record said it was never sent while the service held it.
  it("past the counter's own expiry, an active offer is the counter arrived and lapsed, unless counters are seen to outlive it", async () => {
    const lapsed = { offersByRequest: { 1006: [offer(7013, 1006, 'active')] }, updates: [] };
    expect(
      await reconcileWith({
        ...lapsed,
        linkedRefusals: ['rejected'],
        counterExpires: '2026-11-29T18:45:30Z',
      }).reconcile(),
    ).toEqual({ found: true, result: { counter_offer_status: 'expired' } });
    // Before its expiry, or at a service that lets no counter lapse: absent, as before.
    expect(
      await reconcileWith({
        ...lapsed,
        linkedRefusals: ['rejected'],
        counterExpires: '2026-11-29T19:45:30Z',
      }).reconcile(),
    ).toMatchObject({ found: false, provablyAbsent: true });
    expect(
      await reconcileWith({
        ...lapsed,
        linkedRefusals: ['rejected'],
        counterExpires: '2026-11-29T18:45:30Z',
        outlived: true,
      }).reconcile(),
    ).toMatchObject({ found: false, provablyAbsent: true });
  });

  // A replay of readings sweep 1550, run 2: the worker was killed before the counter left; a look 3 s
  // later found the offer active and waited for a refusal's UPDATE, and past the counter's expiry the
  // same listing was read as the lapse: the record showed a counter that never left as sent and lapsed.
  describe('an offer seen active well before the counter ran out', () => {
    const sent = { offersByRequest: { 1006: [offer(7013, 1006, 'active')] }, updates: [] };
    const counterExpires = '2026-11-29T18:47:30Z';
    const before = '2026-11-29T18:45:30Z';
    const after = '2026-11-29T18:48:00Z';

    it('is kept on the command: the counter was not waiting at the service then', async () => {
      expect(await reconcileWith({ ...sent, counterExpires, now: before }).reconcile()).toMatchObject({
        found: false,
        provablyAbsent: false,
        note: { waitingSeenAbsentAt: Date.parse(before) },
      });
      // Within the clocks' margin of the expiry, a look proves nothing.
      expect(
        await reconcileWith({ ...sent, counterExpires, now: '2026-11-29T18:47:20Z' }).reconcile(),
      ).not.toHaveProperty('note');
    });

    it('past the expiry, the active offer is then no lapse: the counter never arrived, or was answered', async () => {
      const kept = { waitingSeenAbsentAt: Date.parse(before) };
      expect(
        await reconcileWith({
          ...sent,
          counterExpires,
          now: after,
          kept,
          linkedRefusals: ['rejected'],
        }).reconcile(),
      ).toMatchObject({ found: false, provablyAbsent: true });
      expect(await reconcileWith({ ...sent, counterExpires, now: after, kept }).reconcile()).toMatchObject({
        found: false,
        provablyAbsent: false,
        note: kept,
      });
      // Nor is an offer listed expired early, or no longer listed.
      expect(
        await reconcileWith({
          offersByRequest: {
            1006: [{ ...offer(7013, 1006, 'expired'), offer_expires: '2026-12-29T00:00:00Z' }],
          },
          updates: [],
          counterExpires,
          now: after,
          kept,
        }).reconcile(),
      ).toMatchObject({ found: false });
    });

    it('a note from before the send (a replay sent it again) says nothing of it', async () => {
      expect(
        await reconcileWith({
          ...sent,
          counterExpires,
          now: after,
          kept: { waitingSeenAbsentAt: Date.parse('2026-11-29T18:40:00Z') },
          linkedRefusals: ['rejected'],
        }).reconcile(),
      ).toEqual({ found: true, result: { counter_offer_status: 'expired' } });
    });
  });

  // Readings sweep 1421, run 6: the run's first refusal came while the daemon was down, its offer put
  // back to active and its UPDATE still being retried; taken as "never arrived", the counter went twice.
  it('with no refusal seen yet, the service may reopen refused offers: it waits for an UPDATE as where one was seen', async () => {
    expect(
      await reconcileWith({
        offersByRequest: { 1006: [offer(7013, 1006, 'active')] },
        updates: [],
      }).reconcile(),
    ).toMatchObject({
      found: false,
      provablyAbsent: false,
      hint: expect.stringContaining(
        'has not yet seen how the service lists an offer whose buyer refused a counter',
      ),
    });
    expect(
      await reconcileWith({
        offersByRequest: { 1006: [offer(7013, 1006, 'active')] },
        updates: [],
        linkedRefusals: ['rejected', 'active'],
      }).reconcile(),
    ).toMatchObject({ found: false, provablyAbsent: false });
  });
});

describe('refusedOffersNamed', () => {
  it('names each other offer whose counter was refused once, newest first, and leaves other statuses out', () => {
    expect(
      refusedOffersNamed(
        [
          { offerId: 8, requestId: 2, status: 'rejected' },
          { offerId: 7, requestId: 1, status: 'rejected' },
          { offerId: 8, requestId: 2 },
          { offerId: 9, status: 'accepted' },
          { offerId: 10 },
          { counterId: 4, requestId: 2 },
        ],
        7,
      ),
    ).toEqual([{ offerId: 8, requestId: 2 }, { offerId: 10 }]);
  });
});

// Readings sweep 1427, run 3: countered offers listed `active`, refused ones `rejected`. The first
// counters' buyers refused them before the write-back read the offer, which was learnt as how this
// service lists a countered offer (`rejected`); a later counter's `active` offer then looked never
// countered, and it was sent again.
describe('CounterOfferExecutor.writeBack: how the offer is listed right after the counter', () => {
  async function writeBackWith(counterStatus: string, listed: string): Promise<string | undefined> {
    let content = encodeCounterLink({ status: counterStatus, requestId: 1007 });
    const link = () => ({ remoteId: '7011', crmId: 'unnamed:7011', contentHash: content });
    const links = {
      find: async () => link(),
      countByContent: async () => 0,
      latestByContent: async () => [],
      replaceContent: async (_b: string, _k: string, _id: string, _old: string, next: string) => {
        content = next;
      },
    } as unknown as LinkRepository;
    const cashOffer = {
      answersFromEveryOffer: () => false,
      listOffers: async () => [
        { offer_id: 7011, offer_request_id: 1007, offer_status: listed, offer_amount: 466_000 },
      ],
    } as unknown as CashOfferClient;
    const outcome = { show: async () => undefined } as unknown as OfferRecordOutcome;
    const clock = { now: () => new Date('2026-11-30T04:50:23Z') } as unknown as Clock;
    const executor = new CounterOfferExecutor(outcome, links, clock, undefined as never, undefined as never);
    const command = {
      id: 29,
      payload: {
        offerId: 7011,
        requestId: 1007,
        recordId: '10034',
        body: { offer_id: 7011, counter_offer_amount: 489_300 },
      },
    } as unknown as OutboxCommand;
    const ctx = { brokerage: { id: 'soak' }, cashOffer, crm: async () => ({}) } as unknown as OutboxContext;
    await executor.writeBack(command, {}, ctx);
    return decodeCounterLink(link()).listedAtSend;
  }

  it('learns the listing of a counter whose buyer has not answered yet', async () => {
    expect(await writeBackWith('pending', 'rejected')).toBe('rejected');
    expect(await writeBackWith('pending', 'active')).toBe('active');
  });

  it('learns nothing from the listing of a counter already answered: it shows the answer', async () => {
    expect(await writeBackWith('rejected', 'rejected')).toBeUndefined();
    expect(await writeBackWith('rejected', 'active')).toBeUndefined();
    expect(await writeBackWith('accepted', 'rejected')).toBeUndefined();
    // `countered` is this service's own word for a waiting countered offer, whatever came since.
    expect(await writeBackWith('rejected', 'countered')).toBe('countered');
  });
});

describe('sentBeforeAcceptance: a counter whose answer was lost, on an offer the cascade rejected', () => {
  const offers = (decidedAt: string | null) =>
    [
      { offer_id: 7003, offer_status: 'rejected' },
      { offer_id: 7013, offer_status: 'accepted', offer_decided_at: decidedAt },
    ] as unknown as Offer[];

  it('took it there when it left before the other offer was accepted, in any of the time forms', () => {
    expect(sentBeforeAcceptance(offers('2026-11-30T19:31:17Z'), 7003, new Date('2026-11-30T19:31:09Z'))).toBe(
      true,
    );
    expect(
      sentBeforeAcceptance(offers('2026-11-30 19:31:17.000000+00'), 7003, new Date('2026-11-30T19:31:09Z')),
    ).toBe(true);
  });

  it('does not when it left after the acceptance, or when no time tells', () => {
    expect(sentBeforeAcceptance(offers('2026-11-30T19:31:05Z'), 7003, new Date('2026-11-30T19:31:09Z'))).toBe(
      false,
    );
    expect(sentBeforeAcceptance(offers(null), 7003, new Date('2026-11-30T19:31:09Z'))).toBe(false);
    expect(sentBeforeAcceptance(offers('2026-11-30T19:31:17Z'), 7003, null)).toBe(false);
  });

  // Readings sweep 1541 run 2: a service that keeps no decision time (offer_decided_at null).
  describe('where the service keeps no decision time', () => {
    const accepted = (createdAt: string) =>
      [
        { offer_id: 7003, offer_status: 'rejected' },
        { offer_id: 7013, offer_status: 'accepted', offer_decided_at: null, created_at: createdAt },
      ] as unknown as Offer[];
    const sent = new Date('2026-11-30T19:31:09Z');

    it('took it there when it left before the accepted offer was made (a buyer accepting a counter makes it accepted)', () => {
      expect(sentBeforeAcceptance(accepted('2026-11-30T19:31:13Z'), 7003, sent)).toBe(true);
      expect(sentBeforeAcceptance(accepted('2026-11-30 19:31:13.000000+00'), 7003, sent)).toBe(true);
    });

    it("took it there when it left before this daemon's accept of the other offer", () => {
      const madeEarlier = accepted('2026-11-30T19:00:00Z');
      expect(sentBeforeAcceptance(madeEarlier, 7003, sent)).toBe(false);
      expect(sentBeforeAcceptance(madeEarlier, 7003, sent, new Date('2026-11-30T19:31:20Z'))).toBe(true);
      expect(sentBeforeAcceptance(madeEarlier, 7003, sent, new Date('2026-11-30T19:31:01Z'))).toBe(false);
    });

    it('does not when the other offer was made and accepted by us before the counter left', () => {
      expect(sentBeforeAcceptance(accepted('2026-11-30T19:31:01Z'), 7003, sent, null)).toBe(false);
      expect(sentBeforeAcceptance(accepted('not a time'), 7003, sent)).toBe(false);
    });
  });
});

describe('endedBeforeItsOwnExpiry: an offer a counter lapse ended', () => {
  const at = Date.parse('2026-12-02T15:04:01Z');
  const listed = (status: string, expires: string | null) =>
    ({ offer_id: 5, offer_status: status, offer_expires: expires }) as unknown as Offer;

  it('is an offer listed expired while its own expiry is still well ahead (readings sweep 1541 run 1)', () => {
    expect(endedBeforeItsOwnExpiry(listed('expired', '2026-12-09T15:02:33Z'), at)).toBe(true);
    expect(endedBeforeItsOwnExpiry(listed('Expired', '2026-12-09 15:02:33.000000+00'), at)).toBe(true);
  });

  it('is not an offer that ran out by its own expiry, nor one within a minute of it (the clocks may differ)', () => {
    expect(endedBeforeItsOwnExpiry(listed('expired', '2026-12-02T15:03:00Z'), at)).toBe(false);
    expect(endedBeforeItsOwnExpiry(listed('expired', '2026-12-02T15:04:30Z'), at)).toBe(false);
  });

  it('is not an offer listed otherwise, nor one without a readable expiry', () => {
    expect(endedBeforeItsOwnExpiry(listed('active', '2026-12-09T15:02:33Z'), at)).toBe(false);
    expect(endedBeforeItsOwnExpiry(listed('withdrawn', '2026-12-09T15:02:33Z'), at)).toBe(false);
    expect(endedBeforeItsOwnExpiry(listed('expired', null), at)).toBe(false);
    expect(endedBeforeItsOwnExpiry(undefined, at)).toBe(false);
  });

  it('is an offer no longer listed while its own expiry, as last known, is still well ahead (targeted soak 1548001)', () => {
    expect(endedBeforeItsOwnExpiry(undefined, at, '2026-12-09T15:02:33Z')).toBe(true);
    expect(endedBeforeItsOwnExpiry(undefined, at, '2026-12-02T15:04:30Z')).toBe(false);
    expect(endedBeforeItsOwnExpiry(undefined, at, null)).toBe(false);
    // A listed offer is read by its own expiry, not the one last known.
    expect(
      endedBeforeItsOwnExpiry(listed('expired', '2026-12-02T15:03:00Z'), at, '2026-12-09T15:02:33Z'),
    ).toBe(false);
  });
});

describe('CounterOfferExecutor: whether the service keeps an offer closed when its buyer refuses a counter', () => {
  // Readings sweep 1601 run 1: the one refusal the ledger had was read after its offer was accepted
  // (`"f":"accepted"`); taken for "kept closed", it let a lost counter on a reopened offer be sent
  // twice.
  const executorWith = (links: string[]) =>
    new CounterOfferExecutor(
      undefined as never,
      {
        countByContent: async (_b: string, _k: string, fragment: string) =>
          links.filter((l) => l.includes(fragment)).length,
      } as unknown as LinkRepository,
      { nowMs: () => Date.parse('2026-12-01T10:00:00Z') } as unknown as Clock,
      undefined as never,
      undefined as never,
    );
  const ask = (links: string[]) =>
    (
      executorWith(links) as unknown as {
        listedAfterRefusal: (...args: unknown[]) => Promise<string>;
      }
    ).listedAfterRefusal({ brokerage: { id: 'b1' } }, counterOn7, [], []);

  it.each([
    [['{"s":"rejected","f":"accepted"}'], 'unknown'],
    [['{"s":"rejected","f":"expired"}'], 'unknown'],
    [['{"s":"rejected","f":"countered"}'], 'kept-closed'],
    [['{"s":"rejected","f":"rejected"}'], 'kept-closed'],
    [['{"s":"rejected","f":"active"}', '{"s":"rejected","f":"countered"}'], 'reopens'],
  ])('links %j: %s', async (links, expected) => {
    expect(await ask(links)).toBe(expected);
  });
});

describe('ranOutWithItsOffer: an offer that ran out on its own clock, a counter on it with it', () => {
  const at = Date.parse('2026-12-02T15:04:01Z');
  const listed = (status: string, expires: string | null) =>
    ({ offer_id: 5, offer_status: status, offer_expires: expires }) as unknown as Offer;

  it('is an offer listed expired, or no longer listed, past its own expiry (full soak 20261246)', () => {
    expect(ranOutWithItsOffer(listed('expired', '2026-12-02T15:04:00Z'), at)).toBe(true);
    expect(ranOutWithItsOffer(listed('EXPIRED', '2026-12-02 15:00:00+00'), at)).toBe(true);
    expect(ranOutWithItsOffer(undefined, at, '2026-12-02T15:04:00Z')).toBe(true);
  });

  it('is not one whose own expiry is ahead, one listed otherwise, nor one without a readable expiry', () => {
    expect(ranOutWithItsOffer(listed('expired', '2026-12-02T15:05:00Z'), at)).toBe(false);
    expect(ranOutWithItsOffer(listed('active', '2026-12-02T15:00:00Z'), at)).toBe(false);
    expect(ranOutWithItsOffer(listed('rejected', '2026-12-02T15:00:00Z'), at)).toBe(false);
    expect(ranOutWithItsOffer(listed('expired', null), at)).toBe(false);
    expect(ranOutWithItsOffer(undefined, at, null)).toBe(false);
    expect(ranOutWithItsOffer(undefined, at)).toBe(false);
  });
});
