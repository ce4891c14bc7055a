import { WireField, WireObject, fieldsOf } from './wire-field.decorator';
import { OFFER_DECISIONS } from './wire.constants';

// Offers, decisions and counter offers.

const nonNegative = { type: 'number', min: 0 } as const;

// An offer as GET /offers lists it, PATCH /offers answers it and the new_offer event carries it.
// Status fields are plain strings: readers keep values they do not know.
@WireObject('is not an offer field the service knows')
export class Offer {
  @WireField({ type: 'integer', min: 1, required: true })
  offer_id: number;
  @WireField({ type: 'integer', min: 1, required: true, description: 'the request the offer answers' })
  offer_request_id: number;
  @WireField({ type: 'string', nullable: true, description: "echo of the caller's own identifier" })
  offer_request_external_id?: string | null;
  @WireField({ type: 'string', nullable: true })
  external_id?: string | null;
  @WireField({
    type: 'integer',
    min: 0,
    required: true,
    problem: (v) => `{path} must be a whole, non-negative number of dollars; got ${JSON.stringify(v)}`,
  })
  offer_amount: number;
  @WireField({ type: 'boolean', required: true })
  buyer_pays_buyer_broker_commission: boolean;
  @WireField({ type: 'boolean', required: true })
  buyer_pays_listing_broker_commission: boolean;
  @WireField({ ...nonNegative, required: true, description: 'locked at 3' })
  buyer_broker_commission_pct: number;
  @WireField({ ...nonNegative, description: 'present in the list response' })
  buyer_broker_commission_amt?: number;
  @WireField({ ...nonNegative, required: true })
  listing_broker_commission_pct: number;
  @WireField({ ...nonNegative, description: 'present in the list response' })
  listing_broker_commission_amt?: number;
  @WireField({ type: 'datetime', required: true })
  created_at: string;
  @WireField({ type: 'datetime', required: true })
  offer_expires: string;
  // May be empty: a memo is the buyer's free text.
  @WireField({ type: 'string' })
  offer_memo?: string;
  @WireField({ type: 'string', required: true })
  offer_status: string;
  @WireField({ type: 'any', nullable: true })
  additional_terms?: unknown;
  @WireField({ ...nonNegative, required: true, description: 'whole dollars' })
  earnest_money: number;
  @WireField({ type: 'boolean', required: true })
  em_hard_post_inspection: boolean;
  @WireField({ type: 'boolean', required: true })
  lease_back: boolean;
  @WireField({ ...nonNegative, required: true, description: 'days' })
  lease_back_period: number;
  @WireField({ type: 'boolean', required: true })
  flexible_closing: boolean;
  @WireField({ type: 'boolean', required: true })
  post_possession: boolean;
  @WireField({ ...nonNegative, required: true, description: 'days' })
  post_possession_period: number;
  @WireField({ type: 'boolean', required: true })
  waive_warranty: boolean;
  @WireField({ ...nonNegative, required: true, description: 'days' })
  inspection_period: number;
  @WireField({ type: 'boolean', nullable: true })
  offer_is_counter_offer?: boolean | null;
  @WireField({ type: 'datetime', nullable: true })
  offer_decided_at?: string | null;
  @WireField({ type: 'boolean', nullable: true })
  test?: boolean | null;
  @WireField({ type: 'boolean', description: 'webhook payload only' })
  viewed?: boolean;
  @WireField({ type: 'any', nullable: true, description: 'webhook payload only' })
  offer_feedback?: unknown;
  // Our decision: the counter offer an accepted-counter offer came from.
  @WireField({ type: 'integer', min: 1, nullable: true })
  counter_offer_id?: number | null;
}

// PATCH /offers.
@WireObject('is not a field of an offer decision the service knows')
export class OfferDecisionBody {
  @WireField({ type: 'integer', min: 1, required: true })
  offer_id: number;
  @WireField({ type: 'string', enum: OFFER_DECISIONS, required: true })
  offer_status: 'accepted' | 'rejected';
}

// POST /counter-offers. Only the offer and the amount are required (spec-decisions.md).
@WireObject('is not a counter offer field the service knows')
export class CounterOfferBody {
  @WireField({ type: 'integer', min: 1, required: true, description: 'the offer being countered' })
  offer_id: number;
  @WireField({ type: 'number', min: 1, required: true })
  counter_offer_amount: number;
  @WireField({ type: 'boolean' })
  buyer_pays_buyer_broker_commission?: boolean;
  @WireField({ type: 'boolean' })
  buyer_pays_listing_broker_commission?: boolean;
  @WireField(nonNegative)
  listing_broker_commission_pct?: number;
  @WireField({ type: 'string', maxLength: 2000 })
  counter_offer_memo?: string;
  @WireField({ type: 'datetime' })
  counter_offer_expires?: string;
  @WireField({ type: 'object', nullable: true })
  counter_offer_terms?: Record<string, unknown> | null;
  // Its words are not shown (spec-decisions.md): whatever word the service asks for is sent.
  @WireField({ type: 'string', maxLength: 40 })
  counter_offer_status?: string;
  @WireField(nonNegative)
  counter_earnest_money?: number;
  @WireField({ type: 'boolean' })
  counter_em_hard_post_inspection?: boolean;
  @WireField({ type: 'boolean' })
  counter_lease_back?: boolean;
  @WireField(nonNegative)
  counter_lease_back_period?: number;
  @WireField({ type: 'boolean' })
  counter_flexible_closing?: boolean;
  @WireField({ type: 'boolean' })
  counter_post_possession?: boolean;
  @WireField({ type: 'boolean' })
  counter_waive_warranty?: boolean;
  @WireField(nonNegative)
  counter_inspection_period?: number;
  @WireField(nonNegative)
  counter_post_possession_period?: number;
  @WireField({ type: 'boolean' })
  test?: boolean;
}

// The counter record POST /counter-offers answers (spec-decisions.md).
@WireObject('is not a counter offer field the service knows')
export class CounterOffer extends CounterOfferBody {
  @WireField({ type: 'integer', min: 1, required: true })
  counter_offer_id: number;
  @WireField({ type: 'integer', min: 1, required: true })
  offer_request_id: number;
  @WireField({ type: 'datetime', required: true })
  created_at: string;
}

export const COUNTER_OFFER_FIELDS = fieldsOf(CounterOfferBody);

// The spec's counter offer fields that counter a term of the offer, each with the offer field it
// counters (the rest are the counter's own: amount, memo, expiry, terms object, status, test).
export const COUNTER_TERM_OF_OFFER = {
  buyer_pays_buyer_broker_commission: 'buyer_pays_buyer_broker_commission',
  buyer_pays_listing_broker_commission: 'buyer_pays_listing_broker_commission',
  listing_broker_commission_pct: 'listing_broker_commission_pct',
  counter_earnest_money: 'earnest_money',
  counter_em_hard_post_inspection: 'em_hard_post_inspection',
  counter_lease_back: 'lease_back',
  counter_lease_back_period: 'lease_back_period',
  counter_flexible_closing: 'flexible_closing',
  counter_post_possession: 'post_possession',
  counter_post_possession_period: 'post_possession_period',
  counter_waive_warranty: 'waive_warranty',
  counter_inspection_period: 'inspection_period',
} as const satisfies Partial<Record<keyof CounterOfferBody, keyof Offer>>;
