import type { Offer } from '../../cash-offer/schema';
import { roundCents } from '../common/crm-values';

export interface OfferEconomics {
  buyerBrokerCommissionAmt: number;
  listingBrokerCommissionAmt: number;
  // What the seller nets before other closing costs.
  sellerNet: number;
  // What the buyer pays before other closing and renovation costs.
  buyerCost: number;
}

type Terms = Pick<
  Offer,
  | 'offer_amount'
  | 'buyer_pays_buyer_broker_commission'
  | 'buyer_pays_listing_broker_commission'
  | 'buyer_broker_commission_pct'
  | 'listing_broker_commission_pct'
  | 'buyer_broker_commission_amt'
  | 'listing_broker_commission_amt'
>;

// The spec's commission arithmetic: each commission is offer_amount x pct / 100 and comes off the
// seller's side unless the buyer pays it, in which case it adds to the buyer's cost. Both false gives
// the spec's seller net; both true its buyer cost; mixed flags split the same way.
export function offerEconomics(offer: Terms): OfferEconomics {
  const amount = offer.offer_amount;
  const buyerBroker = offer.buyer_broker_commission_amt ?? (amount * offer.buyer_broker_commission_pct) / 100;
  const listingBroker =
    offer.listing_broker_commission_amt ?? (amount * offer.listing_broker_commission_pct) / 100;
  const sellerPays =
    (offer.buyer_pays_buyer_broker_commission ? 0 : buyerBroker) +
    (offer.buyer_pays_listing_broker_commission ? 0 : listingBroker);
  const buyerPays =
    (offer.buyer_pays_buyer_broker_commission ? buyerBroker : 0) +
    (offer.buyer_pays_listing_broker_commission ? listingBroker : 0);
  return {
    buyerBrokerCommissionAmt: roundCents(buyerBroker),
    listingBrokerCommissionAmt: roundCents(listingBroker),
    sellerNet: roundCents(amount - sellerPays),
    buyerCost: roundCents(amount + buyerPays),
  };
}
