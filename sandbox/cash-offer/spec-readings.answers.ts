import type { CounterOffer, PrelimResult } from '../../src/cash-offer/schema';
import type { JsonObject } from '../../src/cash-offer/schema';
import type { StoredCounterOffer, StoredOfferRequest } from './sandbox.types';
import type { SpecReadingValues } from './spec-readings';

// POST /counter-offers under the readings of its answer and of the pending counter's word.
export function readCounterAnswer(
  counter: CounterOffer,
  readings: Pick<SpecReadingValues, 'counterAnswer' | 'counterPendingWord'>,
): { status: number; body: unknown } {
  const shown =
    counter.counter_offer_status === 'pending'
      ? { ...counter, counter_offer_status: readings.counterPendingWord }
      : counter;
  switch (readings.counterAnswer) {
    case 'empty-204':
      return { status: 204, body: undefined };
    case 'empty-200':
      return { status: 200, body: undefined };
    case 'id-only-200':
      return { status: 200, body: { counter_offer_id: counter.counter_offer_id } };
    default:
      return { status: 201, body: shown };
  }
}

// POST /offer-requests/prelim's answer in each plausible shape.
export function prelimAnswer(counts: PrelimResult, shape: SpecReadingValues['prelimAnswer']): unknown {
  switch (shape) {
    case 'buyers':
      return { buyers: counts.buyer_count, buy_boxes: counts.buy_box_count };
    case 'nested':
      return { data: { buyer_count: counts.buyer_count, buy_box_count: counts.buy_box_count } };
    case 'empty':
      return {};
    default:
      return counts;
  }
}

// The UPDATE callback when a buyer rejects a counter, in the reading's shape (none: not sent).
export function counterRejectedUpdate(
  c: StoredCounterOffer,
  r: StoredOfferRequest,
  now: string,
  shape: SpecReadingValues['counterRejectedCallback'],
): JsonObject | undefined {
  const counter = {
    counter_offer_id: c.counter_offer_id,
    offer_id: c.offer_id,
    offer_request_id: c.offer_request_id,
    offer_request_external_id: r.offer_request_external_id,
    counter_offer_status: 'rejected',
    updated_at: now,
  };
  switch (shape) {
    case 'none':
      return undefined;
    case 'nested':
      return { event: 'UPDATE', counter_offer: counter };
    case 'offer-only':
      return { event: 'UPDATE', offer_id: c.offer_id, counter_offer_status: 'rejected' };
    default:
      return { event: 'UPDATE', update_type: 'counter_offer_rejected', ...counter };
  }
}
