import { CashOfferError, type CallOptions, type CashOfferClient } from '../../cash-offer';
import type { CounterOfferBody } from '../../cash-offer/schema';
import type { OutboxCommand, OutboxRepository } from '../../ledger';
import type { OutboxContext } from '../outbox/outbox.executors';
import { CounterOfferExecutor, type CounterOfferPayload } from './counter-offer.executor';

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
    const outbox = { latestDone: () => Promise.resolve([]) } as unknown as OutboxRepository;
    const executor = new CounterOfferExecutor(
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      outbox,
    );
    const payload: CounterOfferPayload = {
      offerId: 7,
      requestId: 3,
      recordId: 'r7',
      body: { offer_id: 7, counter_offer_amount: 250_000 },
    };
    const ctx = {
      brokerage: { id: 'b1' },
      cashOffer,
      call: {
        beforeSend: () => Promise.resolve(void steps.push('beforeSend')),
        refusedBeforeRetry: (said: string) => Promise.resolve(void steps.push(`refused: ${said}`)),
      },
    } as unknown as OutboxContext;

    const answer = await executor.send({ payload } as unknown as OutboxCommand, ctx);

    expect(steps).toEqual([
      'beforeSend',
      'sent',
      `refused: ${refusal.message}`,
      'beforeSend',
      'sent',
    ]);
    expect(bodies[0]).not.toHaveProperty('counter_offer_terms');
    expect(bodies[1]).toHaveProperty('counter_offer_terms');
    expect(answer).toMatchObject({ counter_offer_id: 41, required_fields: ['counter_offer_terms'] });
  });
});
