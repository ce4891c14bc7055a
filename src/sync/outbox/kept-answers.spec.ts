import type { CallOptions, CashOfferClient } from '../../cash-offer';
import type { OutboxCommand } from '../../ledger';
import { BuyerLeadExecutor } from '../buyer-leads/buyer-lead.executor';
import { AddMediaExecutor } from '../seller-requests/add-media.executor';
import { CreateOfferRequestExecutor } from '../seller-requests/create-offer-request.executor';
import type { OutboxContext } from './outbox.executors';

// The writes a reconcile may never find again (no lead or photo lookup; a request the active list
// shows without the deal's id) keep the service's answer the moment it comes, before the drain's
// ledger writes: a crash there leaves the command with its answer, not of unknown outcome.
describe('the answer kept the moment it comes', () => {
  function contextWith(cashOffer: Partial<Record<string, unknown>>, steps: string[]): OutboxContext {
    const client = { ...cashOffer } as unknown as CashOfferClient;
    return {
      brokerage: { id: 'b1' },
      cashOffer: client,
      call: { beforeSend: () => Promise.resolve(void steps.push('beforeSend')) },
      keepAnswer: (answer: unknown) => Promise.resolve(void steps.push(`kept ${JSON.stringify(answer)}`)),
    } as unknown as OutboxContext;
  }
  const answered =
    (steps: string[], write: string, answer: unknown) =>
    async (...args: unknown[]): Promise<unknown> => {
      await (args.at(-1) as CallOptions | undefined)?.beforeSend?.();
      steps.push(write);
      return answer;
    };

  it('a buyer lead: its id and time', async () => {
    const steps: string[] = [];
    const ctx = contextWith(
      {
        submitBuyerLead: answered(steps, 'POST /buyer/lead', {
          lead_id: 'l-1',
          created_at: '2026-12-06T20:00:00Z',
        }),
      },
      steps,
    );
    const command = { payload: { contactId: 'c1', listingKey: 'k1', dealId: 'd1', body: {} } };
    await new BuyerLeadExecutor().send(command as unknown as OutboxCommand, ctx);
    expect(steps).toEqual([
      'beforeSend',
      'POST /buyer/lead',
      'kept {"lead_id":"l-1","created_at":"2026-12-06T20:00:00Z"}',
    ]);
  });

  it('a media update: nothing but that it was answered', async () => {
    const steps: string[] = [];
    const ctx = contextWith({ addMedia: answered(steps, 'PATCH /offer-requests/', undefined) }, steps);
    const command = { payload: { requestId: 3, dealId: 'd1', urls: ['https://photos.example/1.jpg'] } };
    await new AddMediaExecutor(undefined as never).send(command as unknown as OutboxCommand, ctx);
    expect(steps).toEqual(['beforeSend', 'PATCH /offer-requests/', 'kept null']);
  });

  it("a create: the request's id as the service answered it", async () => {
    const steps: string[] = [];
    const ctx = contextWith(
      {
        createOfferRequest: answered(steps, 'POST /offer-requests', {
          offer_request_id: 1001,
          offer_request_status: 'in_review',
        }),
      },
      steps,
    );
    const executor = new CreateOfferRequestExecutor(
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
      undefined as never,
    );
    const command = {
      recordRef: 'deal:d1',
      payload: { request: { offer_request_external_id: 'd1' }, property: {} },
    };
    const result = await executor.send(command as unknown as OutboxCommand, ctx);
    expect(steps).toEqual([
      'beforeSend',
      'POST /offer-requests',
      'kept {"offer_request_id":1001,"offer_request_status":"in_review"}',
    ]);
    expect(result).toEqual({ offer_request_id: 1001, offer_request_status: 'in_review' });
  });
});
