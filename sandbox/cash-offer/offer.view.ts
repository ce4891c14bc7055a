import { NewOfferEvent, Offer } from '../../src/cash-offer/schema';
import { StoredOffer, StoredOfferRequest } from './sandbox.types';

const amount = (offerAmount: number, pct: number): number => Math.round(offerAmount * pct) / 100;

// The list form of an offer (GET /offers, PATCH /offers, control API): with commission amounts.
export function toOffer(o: StoredOffer, r: StoredOfferRequest | undefined): Offer {
  return {
    offer_id: o.offer_id,
    offer_request_id: o.offer_request_id,
    offer_request_external_id: r?.offer_request_external_id ?? null,
    external_id: o.external_id,
    offer_amount: o.offer_amount,
    buyer_pays_buyer_broker_commission: o.buyer_pays_buyer_broker_commission,
    buyer_pays_listing_broker_commission: o.buyer_pays_listing_broker_commission,
    buyer_broker_commission_pct: o.buyer_broker_commission_pct,
    buyer_broker_commission_amt: amount(o.offer_amount, o.buyer_broker_commission_pct),
    listing_broker_commission_pct: o.listing_broker_commission_pct,
    listing_broker_commission_amt: amount(o.offer_amount, o.listing_broker_commission_pct),
    created_at: o.created_at,
    offer_expires: o.offer_expires,
    offer_memo: o.offer_memo,
    offer_status: o.offer_status,
    additional_terms: o.additional_terms,
    earnest_money: o.earnest_money,
    em_hard_post_inspection: o.em_hard_post_inspection,
    lease_back: o.lease_back,
    lease_back_period: o.lease_back_period,
    flexible_closing: o.flexible_closing,
    post_possession: o.post_possession,
    post_possession_period: o.post_possession_period,
    waive_warranty: o.waive_warranty,
    inspection_period: o.inspection_period,
    offer_is_counter_offer: o.offer_is_counter_offer,
    offer_decided_at: o.offer_decided_at,
    test: o.test,
    viewed: o.viewed,
    offer_feedback: o.offer_feedback,
    counter_offer_id: o.counter_offer_id,
  };
}

// The new_offer webhook body: exactly the spec's fields (no amounts), plus counter_offer_id.
export function toNewOfferEvent(o: StoredOffer, r: StoredOfferRequest | undefined): NewOfferEvent {
  const { buyer_broker_commission_amt: _b, listing_broker_commission_amt: _l, ...fields } = toOffer(o, r);
  return { event: 'new_offer', ...fields };
}
